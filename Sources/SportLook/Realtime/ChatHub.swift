import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// This instance's sockets: who is connected, who listens to which room's
/// chat, and the recent messages of each room (so ten sockets in a room cost
/// one database read per message, not ten).
final class ChatHub: Sendable {
    struct State {
        var connections: [ObjectIdentifier: ChatConnection] = [:]
        /// Whether the database takes writes, as last told (``databaseTurned(writable:epoch:)``).
        var writable = true
        var writableEpoch = -1
        var rooms: [UUID: Set<ObjectIdentifier>] = [:]
        var byUser: [UUID: Set<ObjectIdentifier>] = [:]
        /// Sockets keeping their chats list live (`watch_rooms`), by room, and the
        /// rooms of each (so a message wakes only the sockets of people in its room).
        var watchersByRoom: [UUID: Set<ObjectIdentifier>] = [:]
        var watched: [ObjectIdentifier: Set<UUID>] = [:]
        var recent: [UUID: [ChatMessage]] = [:]
        /// The name of each person whose name a kept message shows (as its sender or in
        /// its quoted reply): all of them show this one, as a read from the database
        /// would, and a rename rewrites them (``renamed(_:to:)``). People no kept
        /// message shows any more are let go when the names pile up (``namesLimit``).
        var names: [UUID: String] = [:]
        var namesLimit = ChatHub.namesFloor
        /// The names of the last profile changes heard of (``renamesKept`` at most): a
        /// message whose sender's name was read before a change committed, and that
        /// is heard of after it, shows the name the change left (changes are heard of
        /// in the order they committed, so the last one heard is the newest).
        var renames: [UUID: String] = [:]
        /// Bumped when a room's messages change (edit, deletion, reaction): a read
        /// that started before neither fills the cache nor serves later callers.
        var generation: [UUID: Int] = [:]
        /// The highest change number of each room the cache accounts for.
        var changeMark: [UUID: Int64] = [:]
        /// Reads from the database in flight, by room and position: the sockets of
        /// a room all miss the cache for the same new message at once, and share one read.
        var loading: [Position: Task<[ChatMessage], any Error>] = [:]
        /// Reads of changes, by room, then position: every socket of a room is offered
        /// the same change at once (a vote in a poll, a reaction), and those that ask for
        /// the same changes share one read, in flight or done. A room's reads serve until
        /// its next change is heard of (``noteChange(_:upTo:)``).
        var changeReads: [UUID: [ChangeRead: Task<[ChatMessage], any Error>]] = [:]
        /// When each room's sockets were last offered a change, and the change waiting
        /// for its turn (``changePace``).
        var paces: [UUID: Pace] = [:]
    }

    struct ChangeRead: Hashable {
        let after: Int64
        let limit: Int
        /// A read that started before a change was heard of serves nobody asking after it.
        let generation: Int
    }

    /// Recent messages a room keeps at most; past it the oldest quarter goes at once
    /// (not one at a time: each removal moves all the others down).
    static let recentPerRoom = 256
    /// Messages one database read of a room loads.
    static let loadLimit = 200
    /// Names noted before those of people no kept message shows are looked for.
    static let namesFloor = 10_000
    /// Profile changes remembered at most (past it they are all let go: a message
    /// in flight across a rename is heard of within moments of it).
    static let renamesKept = 10_000

    struct Position: Hashable {
        let room: UUID
        let after: Int64
        let generation: Int
    }
    let state = Mutex(State())
    /// Message frames as a room's sockets are sent them, encoded once for all of them.
    private let frames = Mutex<[FrameKey: String]>([:])
    /// A poll's change frames, encoded once for the sockets with no blocks: the part before
    /// each viewer's own choices, the part after, and everyone's choices.
    let pollFrames = Mutex<[FrameKey: PollFrame]>([:])
    /// Frames kept at most; past it they are all let go (about 4 s at 1,000 messages/s).
    static let framesKept = 4_096

    /// What a message frame is made of, for one without an image or a quoted reply: its
    /// room and number, its version (edits, reactions and deletion each move `changeSeq`),
    /// its sender's name as read (a rename does not move `changeSeq`), and where the
    /// room's changes stood for the socket.
    struct FrameKey: Hashable {
        let room: UUID
        let seq: Int64
        let change: Int64
        let afterChange: Int64
        let sender: String
    }
    let chat: ChatService
    let rooms: RoomService
    let inbox: NotificationService
    let accounts: AccountService
    let logger: Logger
    /// How message frames link chat images.
    let links: MediaLinks
    /// The one timer that looks after every socket of this instance.
    let sockets: SocketWatch
    /// The names of people opening sockets, and whether their sessions have ended
    /// meanwhile: read for many sockets at once (``Gathering``).
    let openingNames: Gathering<UUID, Void, String>
    let endedSessions: Gathering<UUID, Void, Bool>

    init(
        chat: ChatService, rooms: RoomService, inbox: NotificationService, accounts: AccountService, links: MediaLinks,
        sockets: SocketWatch, logger: Logger
    ) {
        self.sockets = sockets
        self.links = links
        self.chat = chat
        self.rooms = rooms
        self.inbox = inbox
        self.accounts = accounts
        self.logger = logger
        openingNames = Gathering { ids in try await accounts.names(of: Array(ids.keys)) }
        endedSessions = Gathering { ids in
            let ended = try await accounts.endedSessions(among: Array(ids.keys))
            return Dictionary(uniqueKeysWithValues: ids.keys.map { ($0, ended.contains($0)) })
        }
    }

    func register(_ connection: ChatConnection) {
        let id = ObjectIdentifier(connection)
        state.withLock { s in
            s.connections[id] = connection
            s.byUser[connection.userID, default: []].insert(id)
            // Opened while writes are refused: told once, here (its queue is empty).
            if !s.writable { connection.queue.push(Frames.database(writable: false)) }
        }
    }

    func unregister(_ connection: ChatConnection) {
        let id = ObjectIdentifier(connection)
        state.withLock { s in
            s.connections[id] = nil
            Self.watch(&s, id, rooms: nil)
            s.byUser[connection.userID]?.remove(id)
            if s.byUser[connection.userID]?.isEmpty == true { s.byUser[connection.userID] = nil }
            for room in s.rooms.keys where s.rooms[room]?.contains(id) == true { Self.leave(&s, id, room) }
        }
    }

    func join(_ connection: ChatConnection, _ room: UUID) {
        _ = state.withLock { s in s.rooms[room, default: []].insert(ObjectIdentifier(connection)) }
    }

    func leave(_ connection: ChatConnection, _ room: UUID) {
        state.withLock { s in Self.leave(&s, ObjectIdentifier(connection), room) }
    }

    /// The socket keeps its chats list live; these are the rooms its user is in.
    func watch(_ connection: ChatConnection, rooms: Set<UUID>) {
        state.withLock { s in Self.watch(&s, ObjectIdentifier(connection), rooms: rooms) }
    }

    private static func watch(_ s: inout State, _ id: ObjectIdentifier, rooms: Set<UUID>?) {
        let old = s.watched[id] ?? []
        for room in old.subtracting(rooms ?? []) {
            s.watchersByRoom[room]?.remove(id)
            if s.watchersByRoom[room]?.isEmpty == true { s.watchersByRoom[room] = nil }
        }
        guard let rooms else {
            s.watched[id] = nil
            return
        }
        for room in rooms.subtracting(old) { s.watchersByRoom[room, default: []].insert(id) }
        s.watched[id] = rooms
    }

    private static func leave(_ s: inout State, _ id: ObjectIdentifier, _ room: UUID) {
        s.rooms[room]?.remove(id)
        if s.rooms[room]?.isEmpty == true {
            s.rooms[room] = nil
            s.recent[room] = nil
            s.generation[room] = nil
            s.changeMark[room] = nil
            s.changeReads[room] = nil
        }
    }

    func members(of room: UUID) -> [ChatConnection] {
        state.withLock { s in (s.rooms[room] ?? []).compactMap { s.connections[$0] } }
    }

    func connections(of user: UUID) -> [ChatConnection] {
        state.withLock { s in (s.byUser[user] ?? []).compactMap { s.connections[$0] } }
    }

    func connections(session: UUID) -> [ChatConnection] {
        state.withLock { s in s.connections.values.filter { $0.session == session } }
    }

    func watchers(of room: UUID) -> [ChatConnection] {
        state.withLock { s in (s.watchersByRoom[room] ?? []).compactMap { s.connections[$0] } }
    }

    var watchers: [ChatConnection] {
        state.withLock { s in s.watched.keys.compactMap { s.connections[$0] } }
    }

    var connectionCount: Int { state.withLock { $0.connections.count } }

    /// The fullest outgoing queue right now (frames).
    var largestQueue: Int { state.withLock { $0.connections.values.map(\.queue.count).max() ?? 0 } }

    /// Messages after `seq`, ascending, at most `limit`, when the room's recent messages
    /// cover it (nil otherwise). Not `async`: a socket's catch-up, on its actor, asks
    /// here first, and calling ``messages(room:after:limit:)`` would hop off the actor
    /// and back for every message even when the cache has it.
    func recentMessages(room: UUID, after seq: Int64, limit: Int) -> [ChatMessage]? {
        state.withLock { s in
            guard let recent = s.recent[room], let first = recent.first, let last = recent.last,
                first.seq <= seq + 1, last.seq > seq
            else { return nil }
            let start = Int(seq + 1 - first.seq)
            return Array(recent[start..<min(recent.count, start + limit)])
        }
    }

    /// Messages after `seq`, ascending, at most `limit`: from the room's recent
    /// messages when they cover it, else from the database (and remembered).
    func messages(room: UUID, after seq: Int64, limit: Int) async throws -> [ChatMessage] {
        if let cached = recentMessages(room: room, after: seq, limit: limit) { return cached }
        let (load, mine, position) = state.withLock { s in
            let position = Position(room: room, after: seq, generation: s.generation[room] ?? 0)
            if let running = s.loading[position] { return (running, false, position) }
            let task = Task { [chat] in try await chat.messages(of: room, after: seq, limit: Self.loadLimit) }
            s.loading[position] = task
            return (task, true, position)
        }
        let generation = position.generation
        let loaded: [ChatMessage]
        do {
            loaded = try await load.value
        } catch {
            if mine { state.withLock { _ = $0.loading.removeValue(forKey: position) } }
            throw error
        }
        guard mine else { return state.withLock { s in loaded.prefix(limit).map { Self.named($0, in: &s, note: false) } } }
        return state.withLock { s in
            s.loading[position] = nil
            guard s.rooms[room] != nil, (s.generation[room] ?? 0) == generation, let first = loaded.first else {
                return loaded.prefix(limit).map { Self.named($0, in: &s, note: false) }
            }
            let last = s.recent[room]?.last
            let kept = loaded.map { Self.named($0, in: &s) }
            if let last, last.seq + 1 == first.seq {
                s.recent[room, default: []] += kept
            } else if last.map({ $0.seq < first.seq }) ?? true {
                s.recent[room] = kept
            } else {
                return Array(kept.prefix(limit))
            }
            Self.trim(&s.recent[room, default: []])
            return Array(kept.prefix(limit))
        }
    }

    /// Messages this instance has just stored: each goes on the end of its room's
    /// recent messages when it follows them (or starts them), so the room's sockets
    /// are sent it without a read. Called right after the commit, before the room is told.
    func remember(_ messages: [ChatMessage]) {
        state.withLock { s in
            for message in messages where s.rooms[message.roomID] != nil {
                if let last = s.recent[message.roomID]?.last, last.seq + 1 != message.seq { continue }
                let message = Self.named(message, in: &s)
                // In place: a copy taken out of the dictionary and put back copied every
                // message the room kept, each time one came.
                s.recent[message.roomID, default: []].append(message)
                Self.trim(&s.recent[message.roomID, default: []])
            }
        }
    }

    /// The `message` frame of `message` as one socket sees it. When that is the view
    /// every socket hiding no one has (`sharedView`), it is encoded once for all the
    /// sockets of the room that get it after the same change; a message with an image
    /// (its links are signed until a time) or a quoted reply (the quote is read with it)
    /// is encoded each time, as is the view of a socket hiding someone.
    func messageFrame(_ message: ChatMessage, afterChange: Int64, sharedView: Bool) -> String {
        guard sharedView, message.attachment == nil, message.replyTo == nil else {
            return Frames.message(message, afterChange: afterChange, links: links)
        }
        let key = FrameKey(
            room: message.roomID, seq: message.seq, change: message.changeSeq, afterChange: afterChange, sender: message.sender.name)
        if let frame = frames.withLock({ $0[key] }) { return frame }
        let frame = Frames.message(message, afterChange: afterChange, links: links)
        frames.withLock { kept in
            if kept.count >= Self.framesKept { kept.removeAll(keepingCapacity: true) }
            kept[key] = frame
        }
        return frame
    }

    /// `message` as it is kept: the names it shows are the ones the kept messages show
    /// (a message read or stored before a rename was heard of shows the new name once
    /// the rename is). Names met for the first time are noted (`note`), or only looked up.
    private static func named(_ message: ChatMessage, in s: inout State, note: Bool = true) -> ChatMessage {
        var message = message
        message.sender.name = name(of: message.sender, in: &s, note: note)
        if let reply = message.replyTo { message.replyTo?.sender.name = name(of: reply.sender, in: &s, note: note) }
        return message
    }

    private static func name(of person: UserSummary, in s: inout State, note: Bool) -> String {
        if let name = s.names[person.id] { return name }
        let name = s.renames[person.id] ?? person.name
        guard note else { return name }
        s.names[person.id] = name
        if s.names.count > s.namesLimit {
            // Only the people the kept messages show stay.
            var shown: [UUID: String] = [:]
            for messages in s.recent.values {
                for message in messages {
                    shown[message.sender.id] = s.names[message.sender.id]
                    if let reply = message.replyTo { shown[reply.sender.id] = s.names[reply.sender.id] }
                }
            }
            shown[person.id] = name
            s.names = shown
            s.namesLimit = max(namesFloor, 2 * shown.count)
        }
        return name
    }

    /// A person's profile changed (`name` is theirs now): the kept messages that show
    /// another name for them show this one.
    func renamed(_ person: UUID, to name: String) {
        state.withLock { s in
            if s.renames.count >= Self.renamesKept, s.renames[person] == nil { s.renames = [:] }
            s.renames[person] = name
            // Kept change reads show the name they were read with.
            s.changeReads = [:]
            guard let old = s.names[person], old != name else { return }
            s.names[person] = name
            for (room, messages) in s.recent where messages.contains(where: { $0.sender.id == person || $0.replyTo?.sender.id == person }) {
                s.recent[room] = messages.map { message in
                    var message = message
                    if message.sender.id == person { message.sender.name = name }
                    if message.replyTo?.sender.id == person { message.replyTo?.sender.name = name }
                    return message
                }
            }
        }
    }

    /// Drops the oldest quarter of a room's recent messages once they pass ``recentPerRoom``.
    private static func trim(_ recent: inout [ChatMessage]) {
        guard recent.count > recentPerRoom else { return }
        recent.removeFirst(recent.count - recentPerRoom * 3 / 4)
    }

    /// Messages of the room changed after change number `change`, in change order: one
    /// read for the sockets that ask for the same changes (``State/changeReads``).
    func changes(room: UUID, after change: Int64, limit: Int) async throws -> [ChatMessage] {
        let (key, read) = state.withLock { s in
            let key = ChangeRead(after: change, limit: limit, generation: s.generation[room] ?? 0)
            if let kept = s.changeReads[room]?[key] { return (key, kept) }
            let read = Task { [chat] in try await chat.changes(of: room, after: change, limit: limit) }
            // Reads are kept only for rooms with sockets here (``leave(_:_:)`` lets them go).
            if s.rooms[room] != nil { s.changeReads[room, default: [:]][key] = read }
            return (key, read)
        }
        do {
            return try await read.value
        } catch {
            // A failed read serves nobody: the next caller reads again.
            state.withLock { s in if s.changeReads[room]?[key] == read { s.changeReads[room]?[key] = nil } }
            throw error
        }
    }

    /// Lets the room's kept change reads go: the next caller reads the database.
    func forgetChangeReads(_ room: UUID) {
        state.withLock { _ = $0.changeReads.removeValue(forKey: room) }
    }

    /// The room has had changes up to `change` (a socket read so from the database, or
    /// the bus said so): if the cache does not account for them yet, it is dropped, and
    /// reads already running neither fill it nor serve later callers.
    func noteChange(_ room: UUID, upTo change: Int64) {
        state.withLock { s in
            guard change > (s.changeMark[room] ?? 0) else { return }
            s.changeMark[room] = change
            s.recent[room] = nil
            s.generation[room, default: 0] += 1
            s.changeReads[room] = nil
        }
    }

}
