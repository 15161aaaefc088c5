import Foundation
import Logging
import Synchronization

/// Keeps this instance's in-memory state (the event and people indexes and the
/// caches beside them) in step with the database: warms the indexes at start and
/// caches the event cards, re-reads what may have changed while the bus was down
/// (the change feed's handler of ``Change/resync``), and takes finished events out.
/// Changes as they come are applied by the feed's handlers (`App/ChangeHandlers.swift`). One type for every index, with its dependencies named.
struct CacheSync: Sendable {
    let database: Database
    let events: EventStore
    let accounts: AccountStore
    let groups: GroupStore
    let eventIndex: EventIndex
    let userIndex: UserIndex
    let groupIndex: GroupIndex
    let attendance: AttendanceCache
    let memberships: MembershipCache
    let people: PeopleCache
    let bus: Bus
    let clock: any AppClock
    let logger: Logger
    /// Whether the first resync after the warm-up began is still to come.
    let firstResync = Once()

    /// Whether every index is warm.
    var isWarm: Bool { eventIndex.isWarm && userIndex.isWarm && groupIndex.isWarm }

    // MARK: Warm-up

    /// Loads where every live event is into `index`, from the database.
    func warm(_ index: EventIndex) async throws {
        let database = self.database
        try await index.warm(now: clock.now(), logger: logger) { now in try await EventStore.livePositions(of: database, now: now) }
    }

    /// Loads every discoverable person into `index`, from the database.
    func warm(_ index: UserIndex) async throws {
        let database = self.database
        try await index.warm(logger: logger) { each in try await AccountStore.discoverablePeople(of: database, each: each) }
    }

    /// Loads every listed group into `index`, from the database.
    func warm(_ index: GroupIndex) async throws {
        let database = self.database
        try await index.warm(logger: logger) { each in try await GroupStore.listedGroups(of: database, each: each) }
    }

    /// Encodes every live event's card into `index`, from the database.
    func fillCards(_ index: EventIndex) async throws {
        let database = self.database
        let now = clock.now()
        try await index.fillCards(now: now, logger: logger) { each in try await EventStore.liveEvents(of: database, now: now, each: each) }
    }

    /// Warms both indexes (at once: each leaves a core idle while it waits for the
    /// database), retrying with a growing pause until both are warm.
    func warmUntilDone() async throws {
        var delay = Duration.milliseconds(200)
        while !isWarm {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    if !eventIndex.isWarm { group.addTask { try await warm(eventIndex) } }
                    if !userIndex.isWarm { group.addTask { try await warm(userIndex) } }
                    if !groupIndex.isWarm { group.addTask { try await warm(groupIndex) } }
                    try await group.waitForAll()
                }
            } catch {
                logger.error("cannot warm the indexes; retrying", metadata: ["error": "\(error)"])
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(10))
            }
        }
    }

    // MARK: Changes that may have been missed

    /// Re-reads a person who may have changed and applies them here.
    private func refresh(user id: UUID) async {
        people.forgetProfile(id)
        do {
            if let user = try await accounts.user(id) { userIndex.apply(user, now: clock.now()) }
        } catch {
            logger.warning("could not refresh user", metadata: ["user": "\(id)", "error": "\(error)"])
        }
    }

    /// Re-reads everything that may have changed while the bus was down.
    ///
    /// Events are re-read from when the listener was last known to hear everything
    /// (less 5 s for other instances' clocks); after the first connection, from when
    /// the index began warming (changes made while it warmed, before the listener
    /// was up); before the warm-up began, not at all (it reads everything after this).
    /// Later, without a gap (another instance sent a change this one cannot read),
    /// the last minute's changes.
    func resync() async {
        attendance.invalidateAll()
        memberships.invalidateAll()
        people.forgetAll()
        let recentUsers = (try? await accounts.updated(since: Date().addingTimeInterval(-300))) ?? []
        for id in recentUsers { await refresh(user: id) }
        do {
            let now = clock.now()
            for group in try await groups.updated(since: now.addingTimeInterval(-300)) { groupIndex.apply(group, now: now) }
        } catch {
            logger.warning("could not refresh groups", metadata: ["error": "\(error)"])
        }
        let since: Date
        if let gap = bus.takeGap() {
            since = clock.now().addingTimeInterval(-(gap / .seconds(1) + 5))
        } else if let warming = eventIndex.warmStartedAt {
            since = firstResync.take() ? warming.addingTimeInterval(-5) : clock.now().addingTimeInterval(-60)
        } else {
            return
        }
        do {
            let changed = try await events.updated(since: since)
            let now = clock.now()
            for event in changed { eventIndex.apply(event, now: now) }
        } catch {
            logger.warning("resync failed", metadata: ["error": "\(error)"])
        }
    }
}

/// `true` the first time it is taken, `false` after.
final class Once: Sendable {
    private let taken = Atomic<Bool>(false)

    func take() -> Bool { !taken.exchange(true, ordering: .relaxed) }
}
