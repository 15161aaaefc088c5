import Foundation
import SQLKit

/// What a committed write changed, for this instance's in-memory state and,
/// through the bus, for every other instance.
struct Effects: Sendable {
    /// Event rows as the transaction left them.
    var events: [Event] = []
    /// Profiles as the transaction left them (location, visibility, sports).
    var profiles: [User] = []
    /// Users whose attendances changed.
    var attendance: Set<UUID> = []
    /// Whether jobs were queued.
    var jobs = false
    /// Anything else to announce.
    var messages: [BusMessage] = []
    /// Chat messages stored, as stored: this instance's sockets get them without
    /// reading them back (other instances read them, told by `.chat` in `messages`).
    var sentMessages: [ChatMessage] = []

    var busMessages: [BusMessage] {
        events.map { .event($0.id) } + profiles.map { .user($0.id) } + attendance.map { .attendance($0) } + (jobs ? [.jobs] : []) + messages
    }
}

/// Runs a write transaction, announces its effects to other instances inside
/// it (PostgreSQL delivers the notification only if it commits), and applies
/// them to this instance right after commit.
struct Writer: Sendable {
    let database: Database
    let bus: Bus
    let apply: @Sendable (Effects) -> Void

    /// Runs `body` in a transaction. Its effects are applied to this instance
    /// right after COMMIT, in the transaction's own task: also when the caller
    /// was answered 503 at the deadline and the commit came later, and never
    /// when it did not commit. So memory follows the database.
    func callAsFunction<R: Sendable>(file: String = #fileID, line: Int = #line, _ body: @escaping @Sendable (any SQLDatabase, inout Effects) async throws -> R) async throws -> R {
        let apply = self.apply
        let (result, _) = try await database.transaction(file: file, line: line, afterCommit: { apply($0.1) }) { [bus] sql in
            var effects = Effects()
            let result = try await body(sql, &effects)
            try await bus.notify(effects.busMessages, on: sql)
            return (result, effects)
        }
        return result
    }
}
