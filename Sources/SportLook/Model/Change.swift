import Foundation

/// What a committed write changed, as memory and sockets must follow it: "look
/// again at X". The database is the truth; a change only says what to re-read.
///
/// A write records its changes inside its transaction (``ChangeSet``); after
/// COMMIT the change feed hands each one to the handlers registered for its kind,
/// and the bus carries it to every other instance, whose feed hands it to the
/// same handlers. Adding an effect is one case here and one handler where the
/// application is wired together (`App/ChangeHandlers.swift`).
public enum Change: Sendable, Hashable, Codable {
    /// An event was created, moved, edited or cancelled.
    case event(id: UUID)
    /// A user's profile, location or visibility changed.
    case user(id: UUID)
    /// A group was made, edited or deleted, or its members changed.
    case group(id: UUID)
    /// This user joined or left this group (or was removed, or it ended): what they
    /// may see changes (members-only events, the group's room).
    case membership(user: UUID, group: UUID)
    /// An access token was revoked.
    case session(id: UUID)
    /// This user's attendances changed (joined, left, promoted).
    case attendance(user: UUID)
    /// A chat message with this `seq` was stored in this room (an event's or a conversation).
    case chat(room: UUID, seq: Int64)
    /// A message of this room was edited, deleted or reacted to, taking change number `change`.
    case chatChange(room: UUID, change: Int64)
    /// How this user sees this room changed (a conversation accepted, a mute): their chats list updates.
    case roomState(user: UUID, room: UUID)
    /// A notification was added to this user's inbox.
    case notification(user: UUID, id: UUID)
    /// Jobs are due.
    case jobs
    /// `blocker` blocked or unblocked `blocked`.
    case block(blocker: UUID, blocked: UUID)
    /// Someone is typing in a room (never stored).
    case typing(room: UUID, user: UUID, name: String)
    /// Someone read a room up to `seq` (ephemeral for sockets; the marker itself is stored).
    case read(room: UUID, user: UUID, seq: Int64)
    /// Changes may have been missed (the bus reconnected, or another instance sent one
    /// this instance cannot read): re-read everything cached.
    case resync

    /// The kinds of change, for registering handlers.
    public enum Kind: String, Sendable, CaseIterable {
        case event, user, group, membership, session, attendance, chat, chatChange, roomState, notification, jobs, block, typing, read,
            resync
    }

    public var kind: Kind {
        switch self {
        case .event: .event
        case .user: .user
        case .group: .group
        case .membership: .membership
        case .session: .session
        case .attendance: .attendance
        case .chat: .chat
        case .chatChange: .chatChange
        case .roomState: .roomState
        case .notification: .notification
        case .jobs: .jobs
        case .block: .block
        case .typing: .typing
        case .read: .read
        case .resync: .resync
        }
    }

    // MARK: Wire form

    /// The version of the wire form this build writes and reads. A change in an
    /// older or newer form is not guessed at: the receiver resynchronises.
    public static let wireVersion = 1

    /// The longest name a typing change carries (a name is at most 80 characters).
    static let typingNameLimit = 80

    /// The change as other instances receive it: `VERSION|JSON`, where the JSON is
    /// the change's own encoding (`{"chat":{"room":"…","seq":5}}`).
    public var wire: String {
        var change = self
        if case .typing(let room, let user, let name) = self, name.count > Self.typingNameLimit {
            change = .typing(room: room, user: user, name: String(name.prefix(Self.typingNameLimit)))
        }
        // Encoding a value of this enum cannot fail: every payload is a UUID, an integer or a string.
        let json = (try? Self.encoder.encode(change)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "\(Self.wireVersion)|\(json)"
    }

    /// The wire form of ``chat(room:seq:)`` for `room`, as the text before the seq and
    /// the text after it, written out without the encoder (a chat message's
    /// notification is built for every message: see `Bus.chatNotification(room:)`).
    /// The same bytes as ``wire`` (a test compares them).
    static func chatWire(room: UUID) -> (head: String, tail: String) {
        ("\(wireVersion)|{\"chat\":{\"room\":\"\(room.text(uppercase: true))\",\"seq\":", "}}")
    }

    /// The wire form of ``chatChange(room:change:)`` for `room`, as the text before the
    /// change number and the text after it: a statement that takes the number announces it
    /// itself (see `Bus.chatChangeNotification(room:)`). The same bytes as ``wire`` (a test
    /// compares them).
    static func chatChangeWire(room: UUID) -> (head: String, tail: String) {
        ("\(wireVersion)|{\"chatChange\":{\"change\":", ",\"room\":\"\(room.text(uppercase: true))\"}}")
    }

    /// Reads a change in the wire form; `nil` for one of another version or kind
    /// (from a newer instance, say), which the receiver answers with a resync.
    public init?(wire: Substring) {
        guard let bar = wire.firstIndex(of: "|"), Int(wire[..<bar]) == Self.wireVersion,
            let change = try? Self.decoder.decode(Change.self, from: Data(wire[wire.index(after: bar)...].utf8))
        else { return nil }
        self = change
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static let decoder = JSONDecoder()
}

/// The changes one write recorded, in order, each once, with the rows the write
/// left where it had them at hand (an event, a profile, a stored message): handlers
/// on the writing instance use those instead of reading them back, and handlers on
/// other instances are handed the same rows read from the database.
struct ChangeSet: Sendable {
    private(set) var changes: [Change] = []
    private(set) var rows = ChangeRows()
    private var seen: Set<Change> = []
    /// Changes a statement of the write already put on the bus itself.
    private var announced: Set<Change> = []

    init() {}

    /// The changes still to put on the bus, in order.
    var unannounced: [Change] { announced.isEmpty ? changes : changes.filter { !announced.contains($0) } }

    init(_ changes: [Change], rows: ChangeRows = ChangeRows()) {
        for change in changes { record(change) }
        self.rows = rows
    }

    var isEmpty: Bool { changes.isEmpty }

    /// Records a change (once: a second record of the same change keeps the first's place);
    /// `announced` when a statement of the write put it on the bus itself.
    mutating func record(_ change: Change, announced: Bool = false) {
        if seen.insert(change).inserted { changes.append(change) }
        if announced { self.announced.insert(change) }
    }

    /// Records changes in order.
    mutating func record<S: Sequence<Change>>(contentsOf changes: S) {
        for change in changes { record(change) }
    }

    /// Each of these users' attendances changed.
    mutating func attendance<S: Sequence<UUID>>(of users: S) {
        for user in users { record(.attendance(user: user)) }
    }

    /// These sessions ended.
    mutating func sessionsEnded<S: Sequence<UUID>>(_ sessions: S) {
        for session in sessions { record(.session(id: session)) }
    }

    /// An event as the write left it.
    mutating func event(_ event: Event) {
        record(.event(id: event.id))
        rows.events[event.id] = event
    }

    /// A profile as the write left it.
    mutating func profile(_ user: User) {
        record(.user(id: user.id))
        rows.profiles[user.id] = user
    }

    /// A group as the write left it.
    mutating func group(_ group: Group) {
        record(.group(id: group.id))
        rows.groups[group.id] = group
    }

    /// A chat message as it was stored; `announced` when the statement that stored
    /// it also put it on the bus.
    mutating func stored(_ message: ChatMessage, announced: Bool = false) {
        record(.chat(room: message.roomID, seq: message.seq), announced: announced)
        rows.messages[ChangeRows.MessageKey(room: message.roomID, seq: message.seq)] = message
    }
}

/// Rows a change names, as a write left them (or as another instance read them).
struct ChangeRows: Sendable {
    struct MessageKey: Sendable, Hashable {
        var room: UUID
        var seq: Int64
    }

    var events: [UUID: Event] = [:]
    var profiles: [UUID: User] = [:]
    var groups: [UUID: Group] = [:]
    var messages: [MessageKey: ChatMessage] = [:]

    init() {}

    /// The stored message a `.chat` change names, when it is at hand.
    func message(room: UUID, seq: Int64) -> ChatMessage? { messages[MessageKey(room: room, seq: seq)] }

    /// Adds what `other` holds (its rows win).
    mutating func merge(_ other: ChangeRows) {
        events.merge(other.events) { $1 }
        profiles.merge(other.profiles) { $1 }
        groups.merge(other.groups) { $1 }
        messages.merge(other.messages) { $1 }
    }
}
