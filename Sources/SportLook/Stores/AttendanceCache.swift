import Foundation
import SQLKit
import Synchronization

/// Each recent caller's statuses at the events they attend, so lists can show
/// `my_status` without a query per page. Dropped for a user whenever their
/// attendances change (here after commit, elsewhere through the bus).
final class AttendanceCache: Sendable {
    private struct State {
        var byUser: [UUID: [UUID: MyAttendance]] = [:]
        /// Bumped on every invalidation, so a load that raced one is not kept.
        var generation: [UUID: Int] = [:]
    }

    private let state = Mutex(State())
    private let database: Database
    private static let maxUsers = 100_000

    init(database: Database) { self.database = database }

    /// The user's statuses at their unfinished events.
    func statuses(of user: UUID, now: Date) async throws -> [UUID: MyAttendance] {
        let (cached, generation) = state.withLock { s in (s.byUser[user], s.generation[user, default: 0]) }
        if let cached { return cached }
        let loaded: [UUID: MyAttendance] = try await database.read { sql in
            var out: [UUID: MyAttendance] = [:]
            let rows = try await sql.raw("""
                SELECT a.event_id, a.status, e.organiser_id FROM attendances a JOIN events e ON e.id = a.event_id
                WHERE a.user_id = \(bind: user) AND e.ends_at > \(bind: now)
                """).all()
            for row in rows {
                let status = AttendanceStatus(rawValue: try row.value("status")) ?? .waitlisted
                // Positions change with every leave; lists show the status, the event page the position.
                out[try row.value("event_id")] = MyAttendance(status: status, position: nil, isOrganiser: try row.value("organiser_id", as: UUID.self) == user)
            }
            return out
        }
        state.withLock { s in
            guard s.generation[user, default: 0] == generation else { return }
            if s.byUser.count >= Self.maxUsers { s.byUser.removeAll(keepingCapacity: true) }
            s.byUser[user] = loaded
        }
        return loaded
    }

    func invalidate(_ users: some Sequence<UUID>) {
        state.withLock { s in
            for user in users {
                s.byUser[user] = nil
                s.generation[user, default: 0] += 1
            }
        }
    }

    func invalidateAll() {
        state.withLock { s in
            for user in s.byUser.keys { s.generation[user, default: 0] += 1 }
            s.byUser.removeAll()
        }
    }
}
