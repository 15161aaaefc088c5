import Foundation

/// Free places and the waitlist: more than `WAITLIST_OFFER_HOURS` before the start the
/// first in line move up at once; closer to it, each free place is offered to the next
/// in line for `WAITLIST_OFFER_MINUTES` — held for them (`offered_count`) until they take
/// it, decline it, or the offer expires, when it passes to the next. Declining or letting
/// an offer expire takes the person off the waitlist. Everything here runs under the
/// event's row lock, so a place is taken once whoever races for it.
extension EventService {
    /// Fills the event's free places from the waitlist (at once, or by offers in the
    /// window), inside the caller's transaction; returns the event as it is after.
    @discardableResult
    func fillPlaces(_ id: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws -> Event? {
        guard var event = try await store.event(id, on: sql) else { return nil }
        guard event.isOpen(at: now), event.waitlistCount > 0 else { return event }
        guard let capacity = event.capacity else {
            // No limit any more: everyone waiting is in, offers taken as given.
            var moved: [UUID] = []
            for user in try await store.offeredIDs(event: id, on: sql)
            where try await store.acceptOffer(event: id, user: user, at: now, on: sql) { moved.append(user) }
            moved += try await store.promote(event: id, count: event.waitlistCount, at: now, on: sql)
            return try await moveUp(id, moved, at: now, on: sql, changes: &changes)
        }
        let inWindow = offerWindow > 0 && now >= event.startsAt.addingTimeInterval(-offerWindow) && now < event.startsAt
        // Out of the window (the start moved later, or the game began): offers still out
        // are withdrawn, their people back in line, and places are given in order.
        if !inWindow, event.offeredCount > 0 {
            try await store.withdrawOffers(event: id, at: now, on: sql)
            try await scheduler.unschedule(.offerExpiry, of: .event(id), on: sql)
            event = try await store.event(id, on: sql) ?? event
        }
        let free = capacity - event.goingCount - event.offeredCount
        guard free > 0, event.waitlistCount > event.offeredCount else { return event }
        if inWindow {
            let expires = now.addingTimeInterval(offerTime).wholeMilliseconds
            let offered = try await store.offer(event: id, count: free, until: expires, at: now, on: sql)
            guard !offered.isEmpty, let updated = try await store.event(id, on: sql) else { return event }
            for user in offered {
                try await scheduler.schedule(
                    .offerExpiry(event: id, user: user, expiresAt: expires),
                    dedupeKey: "offer_expiry:\(id.lowercased):\(user.lowercased):\(expires.millisecondsSince1970)", after: offerTime,
                    on: sql)
            }
            try await notifier.waitlistOffer(updated, users: offered, expiresAt: expires, at: now, on: sql, changes: &changes)
            changes.attendance(of: offered)
            changes.event(updated)
            return updated
        }
        return try await moveUp(id, try await store.promote(event: id, count: free, at: now, on: sql), at: now, on: sql, changes: &changes)
    }

    /// After people moved up: they are told, and the game may be on.
    private func moveUp(_ id: UUID, _ moved: [UUID], at now: Date, on sql: DatabaseSession, changes: inout ChangeSet) async throws -> Event?
    {
        guard var event = try await store.event(id, on: sql) else { return nil }
        guard !moved.isEmpty else { return event }
        try await notifier.waitlistPromoted(event, users: moved, at: now, on: sql, changes: &changes)
        try await followGoing(event, at: now, on: sql, changes: &changes)
        changes.attendance(of: moved)
        event = try await gameOnIfReached(id, at: now, on: sql, changes: &changes) ?? event
        changes.event(event)
        return event
    }

    /// Takes the place offered to the caller (idempotent once taken): going. 409
    /// `no_offer` without one, `offer_expired` after its time.
    func acceptOffer(_ id: UUID, user: UUID) async throws -> Joined {
        let now = clock.now()
        return try await write { [self] sql, changes in
            guard let event = try await store.lock(id, on: sql) else { throw DomainError.notFound(.event) }
            let mine = try await store.attendance(event: id, user: user, on: sql)
            if mine?.status == .going { return Joined(status: .going, position: nil) }
            guard let expires = mine?.offerExpiresAt else {
                throw DomainError.conflict("no_offer", Sentence("No place is offered to you at this event."))
            }
            guard now <= expires else {
                throw DomainError.conflict("offer_expired", Sentence("The offer ran out at \(RFC3339.format(expires))."))
            }
            guard event.isOpen(at: now) else {
                throw DomainError.conflict(
                    event.status == .active ? "event_finished" : "event_cancelled", Sentence("The event is not open any more."))
            }
            // The place is held for them; checked again all the same.
            guard event.capacity.map({ event.goingCount < $0 }) ?? true else {
                throw DomainError.conflict("no_offer", Sentence("No place is free at this event."))
            }
            guard try await store.acceptOffer(event: id, user: user, at: now, on: sql) else {
                throw DomainError.conflict("no_offer", Sentence("No place is offered to you at this event."))
            }
            _ = try await moveUp(id, [user], at: now, on: sql, changes: &changes)
            return Joined(status: .going, position: nil)
        }
    }

    /// Declines the place offered to the caller: off the waitlist, and the place passes on.
    func declineOffer(_ id: UUID, user: UUID) async throws {
        let now = clock.now()
        try await write { [self] sql, changes in
            guard try await store.lock(id, on: sql) != nil else { throw DomainError.notFound(.event) }
            guard let mine = try await store.attendance(event: id, user: user, on: sql), mine.status == .waitlisted,
                mine.offerExpiresAt != nil
            else {
                throw DomainError.conflict("no_offer", Sentence("No place is offered to you at this event."))
            }
            try await store.remove(event: id, user: user, status: .waitlisted, at: now, on: sql)
            changes.record(.attendance(user: user))
            if let event = try await fillPlaces(id, at: now, on: sql, changes: &changes) { changes.event(event) }
        }
    }

    /// Runs a due expiry (`<event> <user> <expiry in ms>`): an offer still open at its
    /// time is gone — the person off the waitlist, told — and the place passes on.
    func expireOffer(at id: UUID, of user: UUID, expiringAt expiresAt: Date) async throws {
        let ms = expiresAt.millisecondsSince1970
        let now = clock.now()
        try await write { [self] sql, changes in
            guard let event = try await store.lock(id, on: sql), event.status == .active,
                let mine = try await store.attendance(event: id, user: user, on: sql), mine.status == .waitlisted,
                mine.offerExpiresAt?.millisecondsSince1970 == ms
            else { return }
            try await store.remove(event: id, user: user, status: .waitlisted, at: now, on: sql)
            try await notifier.offerExpired(
                event, user: user, expiredAt: Date(timeIntervalSince1970: Double(ms) / 1_000), at: now, on: sql, changes: &changes)
            changes.record(.attendance(user: user))
            if let updated = try await fillPlaces(id, at: now, on: sql, changes: &changes) { changes.event(updated) }
        }
    }
}
