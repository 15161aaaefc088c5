import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// This instance's sockets: who is connected, who listens to which event's
/// chat, and the recent messages of each room (so ten sockets in a room cost
/// one database read per message, not ten).
final class ChatHub: Sendable {
    private struct State {
        var connections: [ObjectIdentifier: ChatConnection] = [:]
        var rooms: [UUID: Set<ObjectIdentifier>] = [:]
        var byUser: [UUID: Set<ObjectIdentifier>] = [:]
        var recent: [UUID: [ChatMessage]] = [:]
        /// Reads from the database in flight, by room and position: the sockets of
        /// a room all miss the cache for the same new message at once, and share one read.
        var loading: [Position: Task<[ChatMessage], any Error>] = [:]
    }

    static let recentPerRoom = 256
    /// Messages one database read of a room loads.
    static let loadLimit = 200

    private struct Position: Hashable {
        let event: UUID
        let after: Int64
    }
    private let state = Mutex(State())
    let chat: ChatService
    let inbox: InboxService
    let accounts: AccountService
    let logger: Logger
    /// How message frames link chat images.
    let links: MediaLinks

    init(chat: ChatService, inbox: InboxService, accounts: AccountService, links: MediaLinks, logger: Logger) {
        self.links = links
        self.chat = chat
        self.inbox = inbox
        self.accounts = accounts
        self.logger = logger
    }

    func register(_ connection: ChatConnection) {
        let id = ObjectIdentifier(connection)
        state.withLock { s in
            s.connections[id] = connection
            s.byUser[connection.userID, default: []].insert(id)
        }
    }

    func unregister(_ connection: ChatConnection) {
        let id = ObjectIdentifier(connection)
        state.withLock { s in
            s.connections[id] = nil
            s.byUser[connection.userID]?.remove(id)
            if s.byUser[connection.userID]?.isEmpty == true { s.byUser[connection.userID] = nil }
            for event in s.rooms.keys where s.rooms[event]?.contains(id) == true { Self.leave(&s, id, event) }
        }
    }

    func join(_ connection: ChatConnection, _ event: UUID) {
        _ = state.withLock { s in s.rooms[event, default: []].insert(ObjectIdentifier(connection)) }
    }

    func leave(_ connection: ChatConnection, _ event: UUID) {
        state.withLock { s in Self.leave(&s, ObjectIdentifier(connection), event) }
    }

    private static func leave(_ s: inout State, _ id: ObjectIdentifier, _ event: UUID) {
        s.rooms[event]?.remove(id)
        if s.rooms[event]?.isEmpty == true {
            s.rooms[event] = nil
            s.recent[event] = nil
        }
    }

    private func members(of event: UUID) -> [ChatConnection] {
        state.withLock { s in (s.rooms[event] ?? []).compactMap { s.connections[$0] } }
    }

    private func connections(of user: UUID) -> [ChatConnection] {
        state.withLock { s in (s.byUser[user] ?? []).compactMap { s.connections[$0] } }
    }

    private func connections(session: UUID) -> [ChatConnection] {
        state.withLock { s in s.connections.values.filter { $0.session == session } }
    }

    var connectionCount: Int { state.withLock { $0.connections.count } }

    /// The fullest outgoing queue right now (frames).
    var largestOutbox: Int { state.withLock { $0.connections.values.map(\.outbox.count).max() ?? 0 } }

    /// Messages after `seq`, ascending, at most `limit`: from the room's recent
    /// messages when they cover it, else from the database (and remembered).
    func messages(event: UUID, after seq: Int64, limit: Int) async throws -> [ChatMessage] {
        let cached: [ChatMessage]? = state.withLock { s in
            guard let recent = s.recent[event], let first = recent.first, let last = recent.last,
                  first.seq <= seq + 1, last.seq > seq else { return nil }
            let start = Int(seq + 1 - first.seq)
            return Array(recent[start..<min(recent.count, start + limit)])
        }
        if let cached { return cached }
        let position = Position(event: event, after: seq)
        let (load, mine) = state.withLock { s in
            if let running = s.loading[position] { return (running, false) }
            let task = Task { [chat] in try await chat.messages(of: event, after: seq, limit: Self.loadLimit) }
            s.loading[position] = task
            return (task, true)
        }
        let loaded: [ChatMessage]
        do {
            loaded = try await load.value
        } catch {
            if mine { state.withLock { _ = $0.loading.removeValue(forKey: position) } }
            throw error
        }
        guard mine else { return Array(loaded.prefix(limit)) }
        state.withLock { s in
            s.loading[position] = nil
            guard s.rooms[event] != nil, let first = loaded.first else { return }
            var recent = s.recent[event] ?? []
            if let last = recent.last, last.seq + 1 == first.seq {
                recent += loaded
            } else if recent.last.map({ $0.seq < first.seq }) ?? true {
                recent = loaded
            } else {
                return
            }
            if recent.count > Self.recentPerRoom { recent.removeFirst(recent.count - Self.recentPerRoom) }
            s.recent[event] = recent
        }
        return Array(loaded.prefix(limit))
    }

    /// Acts on a bus message.
    func handle(_ message: BusMessage) async {
        switch message {
        case .chat(let event, let seq):
            for connection in members(of: event) { await connection.offer(event: event, seq: seq) }
        case .typing(let event, let user, let name):
            let frame = Frames.typing(event: event, user: user, name: name)
            for connection in members(of: event) where connection.userID != user && !connection.hides(user) { connection.send(ephemeral: frame) }
        case .read(let event, let user, let seq):
            let frame = Frames.read(event: event, user: user, seq: seq)
            for connection in members(of: event) where connection.userID != user && !connection.hides(user) { connection.send(ephemeral: frame) }
        case .session(let id):
            for connection in connections(session: id) { connection.end(.sessionEnded) }
        case .notification(let user, let id):
            let targets = connections(of: user)
            guard !targets.isEmpty else { return }
            let item: InboxItem?
            do {
                item = try await inbox.item(id)
            } catch {
                logger.warning("could not read a notification for live delivery", metadata: ["notification": "\(id)", "error": "\(error)"])
                return
            }
            guard let item else { return }
            let frame = Frames.notification(item)
            for connection in targets { connection.send(ephemeral: frame) }
        case .attendance(let user):
            for connection in connections(of: user) { await connection.recheckMembership() }
        case .block(let blocker, _):
            for connection in connections(of: blocker) { await connection.reloadBlocks() }
        case .resync:
            // Sessions may have ended while the bus was away: their sockets close now.
            let all = state.withLock { Array($0.connections.values) }
            do {
                let ended = try await accounts.endedSessions(among: Array(Set(all.map(\.session))))
                for connection in all where ended.contains(connection.session) {
                    connection.end(.sessionEnded)
                }
            } catch {
                logger.warning("resync could not recheck the sockets' sessions", metadata: ["error": "\(error)"])
            }
            let rooms = state.withLock { Array($0.rooms.keys) }
            for event in rooms {
                let latest: Int64
                do {
                    guard let seq = try await chat.lastSeq(of: event) else { continue }
                    latest = seq
                } catch {
                    logger.warning("resync could not read a room", metadata: ["event": "\(event)", "error": "\(error)"])
                    continue
                }
                for connection in members(of: event) { await connection.offer(event: event, seq: latest) }
            }
        default:
            break
        }
    }
}

/// Feeds bus messages to the hub and keeps this instance's presence fresh.
struct ChatHubService: Service {
    let hub: ChatHub
    let bus: Bus

    func run() async throws {
        let messages = bus.subscribe()
        try? await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in messages { await hub.handle(message) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(30))
                        do {
                            try await hub.chat.heartbeat(instance: bus.instanceID)
                        } catch is CancellationError {
                            return
                        } catch {
                            hub.logger.warning("chat presence heartbeat failed", metadata: ["error": "\(error)"])
                        }
                    }
                }
            }
        }
    }
}

/// The JSON frames the server sends on sockets.
enum Frames {
    static func message(_ message: ChatMessage, links: MediaLinks) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "message")
        json.field("event_id", message.eventID)
        json.key("message")
        ChatMessageRepresentation(message: message, links: links).encode(to: &json)
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func typing(event: UUID, user: UUID, name: String) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "typing")
        json.field("event_id", event)
        json.key("user")
        UserSummaryRepresentation(id: user, name: name).encode(to: &json)
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func read(event: UUID, user: UUID, seq: Int64) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "read")
        json.field("event_id", event)
        json.key("user")
        json.objectStart()
        json.field("id", user)
        json.objectEnd()
        json.field("seq", Int(seq))
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func notification(_ item: InboxItem) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "notification")
        json.key("notification")
        NotificationRepresentation(item).encode(to: &json)
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func simple(_ type: String, event: UUID?, fields: [(String, String)] = [], numbers: [(String, Int)] = []) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", type)
        if let event { json.field("event_id", event) }
        for (k, v) in fields { json.field(k, v) }
        for (k, v) in numbers { json.field(k, v) }
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func error(_ code: String, _ message: String, event: UUID? = nil, clientID: String? = nil) -> String {
        var json = JSONWriter()
        json.objectStart()
        json.field("type", "error")
        json.field("code", code)
        json.field("message", message)
        if let event { json.field("event_id", event) }
        if let clientID { json.field("client_id", clientID) }
        json.objectEnd()
        return String(decoding: json.bytes, as: UTF8.self)
    }
}
