import Foundation
import Synchronization

/// What the last sends of this instance found: each room's kind, event and heading
/// name, each sender's name. Only what the next send expects, which its statement
/// checks (``ChatStatements/quickText(_:)``): a stale entry costs that send the
/// transaction, which then remembers what it found.
final class RecentSends: Sendable {
    struct Room: Sendable {
        var kind: RoomKind
        var eventID: UUID?
        /// The event's title or the group's name.
        var name: String
    }

    /// Entries kept at most, of each kind: past it, all are forgotten.
    static let capacity = 100_000
    private let entries = Mutex<(rooms: [UUID: Room], names: [UUID: String])>(([:], [:]))
    private let oneStatement = Atomic<Int>(0)

    /// Messages this instance stored in one statement (the others went through the transaction).
    var storedInOneStatementCount: Int { oneStatement.load(ordering: .relaxed) }

    func storedInOneStatement() { oneStatement.add(1, ordering: .relaxed) }

    func remember(room id: UUID, _ room: Room, sender: UserSummary) {
        entries.withLock { entries in
            if entries.rooms.count >= Self.capacity { entries.rooms.removeAll() }
            if entries.names.count >= Self.capacity { entries.names.removeAll() }
            entries.rooms[id] = room
            entries.names[sender.id] = sender.name
        }
    }

    func expected(room id: UUID, sender: UUID) -> (room: Room, senderName: String)? {
        entries.withLock { entries in
            guard let room = entries.rooms[id], let name = entries.names[sender] else { return nil }
            return (room, name)
        }
    }
}
