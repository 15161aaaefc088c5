import Foundation

/// A closed time poll becomes a game, or a weekly series, at one of its slots: its
/// author makes it, once, and the people who chose that slot are invited.
extension Polls {
    /// What the poll's author asks for: a game (`event`, as `POST /v1/events` takes it)
    /// or a weekly series (`series`, as `POST /v1/series`), at the slot `option`. The
    /// slot gives the start (and the end, or the series' duration, when it has one).
    struct Making: Decodable, Sendable {
        var option: Int?
        var event: EventService.Input?
        var series: SeriesService.Input?
    }

    struct Made: Sendable {
        var message: ChatMessage
        var event: Event?
        var series: SeriesService.View?
        /// Those invited (the slot's voters but its author and anyone blocked either way).
        var invited: [UUID]
    }

    /// Makes the game or series. The poll is claimed first, so two calls at once make
    /// one; a creation refused (its fields) gives the claim back.
    func make(_ roomID: UUID, seq: Int64, by user: UUID, _ making: Making) async throws -> Made {
        guard (making.event == nil) != (making.series == nil) else {
            throw DomainError.validation(["event": Sentence("give either event or series")])
        }
        guard let position = making.option else {
            throw DomainError.validation(["option": Sentence("is required: the position of a slot")])
        }
        let now = clock.now()
        // Claimed under the room's lock, with the checks.
        let claimed = try await chat.change(roomID, seq: seq, by: user, writing: false) { [store] room, message, sql in
            guard let poll = message.poll, poll.kind == .time else {
                throw DomainError.conflict("not_a_time_poll", Sentence("Only a poll of times becomes a game."))
            }
            guard message.sender.id == user else {
                throw DomainError.forbidden("not_yours", Sentence("Only its author can make the poll a game."))
            }
            guard !poll.isOpen(at: now) else { throw DomainError.conflict("poll_open", Sentence("Close the poll first.")) }
            guard position >= 0, position < poll.options.count else {
                throw DomainError.validation([
                    "option": Sentence("must be the position of one of the poll's slots (0–\(poll.options.count - 1))")
                ])
            }
            guard try await store.claimPoll(room: room.id, seq: seq, at: now, on: sql) else {
                throw DomainError.conflict("poll_made", Sentence("The poll was already made a game or a series."))
            }
            return nil
        }
        guard let poll = claimed.poll else { throw DomainError.notFound(.message) }
        let slot = poll.options[position]
        var event: Event?
        var view: SeriesService.View?
        do {
            if var input = making.event {
                input.startsAt = .value(RFC3339.format(slot.startsAt ?? now))
                if let end = slot.endsAt, input.endsAt.isAbsent { input.endsAt = .value(RFC3339.format(end)) }
                event = try await events.create(by: user, input)
            } else if var input = making.series {
                guard let zone = input.timeZone.flatMap(TimeZone.init(identifier:)) else {
                    throw DomainError.validation(["series.time_zone": Sentence("is required: the place's IANA time zone")])
                }
                let local = Self.local(slot.startsAt ?? now, in: zone)
                (input.firstDate, input.startTime) = (local.date, local.time)
                if let start = slot.startsAt, let end = slot.endsAt, input.durationMinutes == nil {
                    input.durationMinutes = Int(end.timeIntervalSince(start) / 60)
                }
                view = try await series.create(by: user, input)
            }
        } catch {
            try await write { [store] sql, _ in try await store.releasePoll(room: roomID, seq: seq, on: sql) }
            throw error
        }
        let madeEvent = event?.id
        let madeSeries = view?.series.id
        let message = try await chat.change(roomID, seq: seq, by: user, writing: false) { [store] room, _, sql in
            try await store.pollMade(room: room.id, seq: seq, event: madeEvent, series: madeSeries, on: sql)
            return try await store.nextChange(room: room.id, seq: seq, on: sql)
        }
        let game = event ?? view?.upcoming.first
        // An anonymous poll's voters are nobody's to know: its game invites nobody.
        let invited = poll.anonymous ? [] : try await game.asyncMap { try await invite(slot.voters, to: $0.id, by: user) } ?? []
        return Made(message: message, event: event, series: view, invited: invited)
    }

    /// Invites the slot's voters to the game: not its author, nobody blocked either way.
    /// Someone the game cannot take (left the group of a members-only game, already
    /// going, past the daily limit of invitations) is left out, and the rest are invited.
    private func invite(_ voters: [UUID], to game: UUID, by user: UUID) async throws -> [UUID] {
        let blocked = try await safety.blockedEitherWay(user)
        let people = voters.filter { $0 != user && !blocked.contains($0) }
        var invited: [UUID] = []
        for chunk in people.chunks(of: 50) {
            do {
                invited += try await invitations.invite(to: game, by: user, userIDs: chunk.map(\.lowercased)).map(\.invitee.id)
            } catch is DomainError where chunk.count > 1 {
                for person in chunk {
                    // The game is made: a refusal (the daily limit included) leaves that person out, not the rest.
                    do {
                        invited += try await invitations.invite(to: game, by: user, userIDs: [person.lowercased]).map(\.invitee.id)
                    } catch is DomainError {
                        continue
                    }
                }
            } catch is DomainError {
                continue
            }
        }
        return invited
    }

    /// The date (`2026-05-12`) and time (`19:30`) of an instant in a zone.
    static func local(_ instant: Date, in zone: TimeZone) -> (date: String, time: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant)
        func two(_ n: Int?) -> String { String(format: "%02d", n ?? 0) }
        return ("\(c.year ?? 1970)-\(two(c.month))-\(two(c.day))", "\(two(c.hour)):\(two(c.minute))")
    }
}
