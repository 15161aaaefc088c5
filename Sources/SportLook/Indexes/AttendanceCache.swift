import Foundation
import Synchronization

/// Each recent caller's statuses at the events they attend, so lists can show
/// `my_status` without a query per page. Dropped for a user whenever their
/// attendances change (the change feed's `.attendance`, here or on another
/// instance). Memory only: the statuses are read by the loader it is given
/// (`EventStore.statuses(of:now:)`, through the wiring).
final class AttendanceCache: Sendable {
    private struct State {
        var byUser: [UUID: [UUID: MyAttendance]] = [:]
        /// Bumped on every invalidation, so a load that raced one is not kept.
        var generation: [UUID: Int] = [:]
    }

    private let state = Mutex(State())
    private let load: @Sendable (_ user: UUID, _ now: Date) async throws -> [UUID: MyAttendance]
    private static let maxUsers = 100_000

    init(load: @escaping @Sendable (_ user: UUID, _ now: Date) async throws -> [UUID: MyAttendance]) { self.load = load }

    /// The user's statuses at their unfinished events.
    func statuses(of user: UUID, now: Date) async throws -> [UUID: MyAttendance] {
        let (cached, generation) = state.withLock { s in (s.byUser[user], s.generation[user, default: 0]) }
        if let cached { return cached }
        let loaded = try await load(user, now)
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
