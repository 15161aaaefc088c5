import Foundation
import Synchronization

/// What each recent caller's requests keep asking of the database, kept per user
/// until it changes: their statuses at the events they attend (``AttendanceCache``,
/// so lists show `my_status` without a query per page) and the groups they belong
/// to (``MembershipCache``, so search and every event route know what the caller
/// may see). Dropped for a user whenever the change feed says it changed (here or
/// on another instance). Memory only: the values come from the loader it is given
/// (a store's query, through the wiring).
final class PerUserCache<Value: Sendable>: Sendable {
    private struct State {
        var byUser: [UUID: Value] = [:]
        /// Bumped on every invalidation, so a load that raced one is not kept.
        var generation: [UUID: Int] = [:]
        /// Bumped when everything is dropped (``invalidateAll()``), for the same reason.
        var everyone = 0
    }

    private let state = Mutex(State())
    private let load: @Sendable (_ user: UUID, _ now: Date) async throws -> Value
    private static var maxUsers: Int { 100_000 }

    init(load: @escaping @Sendable (_ user: UUID, _ now: Date) async throws -> Value) { self.load = load }

    /// The user's value, loaded when not cached.
    func value(of user: UUID, now: Date) async throws -> Value {
        let (cached, generation, everyone) = state.withLock { s in (s.byUser[user], s.generation[user, default: 0], s.everyone) }
        if let cached { return cached }
        let loaded = try await load(user, now)
        state.withLock { s in
            guard s.generation[user, default: 0] == generation, s.everyone == everyone else { return }
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
            s.everyone += 1
            s.byUser.removeAll()
        }
    }
}

/// Each recent caller's statuses at their unfinished events (`EventStore.statuses(of:now:)`).
typealias AttendanceCache = PerUserCache<[UUID: MyAttendance]>

/// Each recent caller's groups (`GroupStore.memberships(of:)`).
typealias MembershipCache = PerUserCache<Memberships>
