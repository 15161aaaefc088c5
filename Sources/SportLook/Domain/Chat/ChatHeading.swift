import Foundation

/// What a chat notification is titled after: the event, or (in a conversation) the sender.
enum ChatHeading: Sendable {
    case event(id: UUID, title: String)
    case conversation(UUID)
    case group(id: UUID, name: String)
}

/// Where a history page continues: older (`before`) or newer (`after`) messages.
struct ChatCursor: CursorCodable, Sendable {
    var after: Int64?
    var before: Int64?

    init(after: Int64) { self.after = after }
    init(before: Int64) { self.before = before }

    init?(cursor: String) {
        guard let f = OpaqueCursor.decode(cursor, count: 2), let seq = Int64(f[1]), seq >= 0 else { return nil }
        switch f[0] {
        case "a": after = seq
        case "b": before = seq
        default: return nil
        }
    }

    var cursor: String { after.map { OpaqueCursor.encode(["a", String($0)]) } ?? OpaqueCursor.encode(["b", String(before ?? 0)]) }
}
