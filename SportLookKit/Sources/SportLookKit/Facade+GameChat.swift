import Foundation
import OpenAPIRuntime
internal import SportLookAPI

/// A game's chat by the game, and a closed time poll made into a game or a series.
extension SportLookClient.Chat {
    /// A game's chat, oldest first, page by page: the messages after `afterSeq`, or (with
    /// `beforeSeq`) the older ones before it, for scrolling back.
    public func history(ofGame id: Event.ID, after afterSeq: Int? = nil, before beforeSeq: Int? = nil) -> Pages<Message> {
        Pages { cursor in
            let page = try await client.call {
                try await $0.listMessages(
                    path: .init(id: id.description), query: .init(afterSeq: afterSeq, beforeSeq: beforeSeq, limit: 100, cursor: cursor)
                ).ok.body.json
            }
            return (try page.items.map(Message.init), page.nextCursor)
        }
    }

    /// Sends a message to a game's chat (stored once per `clientID`).
    @discardableResult
    public func send(_ body: String, toGame id: Event.ID, clientID: String = UUID().uuidString.lowercased()) async throws -> Message {
        let draft = Components.Schemas.NewMessage(body: body, clientId: clientID)
        switch try await client.call({ try await $0.sendMessage(path: .init(id: id.description), body: .json(draft)) }) {
        case .ok(let ok): return try Message(try ok.body.json)
        case .created(let created): return try Message(try created.body.json)
        case let other: throw SportLookError.unexpected(other)
        }
    }

    /// Moves the read marker of a game's chat.
    public func markRead(game id: Event.ID, upTo seq: Int) async throws {
        _ = try await client.call { try await $0.markChatRead(path: .init(id: id.description), body: .json(.init(seq: seq))).noContent }
    }

    /// Asks which time suits: 2–10 slots, several may be chosen unless `multiple` is
    /// false. Once closed, a slot can become a game or a weekly series
    /// (``schedule(poll:in:option:asGame:)``).
    @discardableResult
    public func sendTimePoll(
        _ question: String, slots: [DateInterval], in room: String, multiple: Bool = true, closesAt: Date? = nil,
        clientID: String = UUID().uuidString.lowercased()
    ) async throws -> Message {
        let poll = Components.Schemas.NewPoll(
            kind: .time, options: slots.map { .init(startsAt: $0.start, endsAt: $0.end) }, multiple: multiple, closesAt: closesAt)
        return try await post(Components.Schemas.NewMessage(body: question, clientId: clientID, poll: poll), to: room)
    }

    /// What a closed time poll became: the poll's message, the game or series, and who was invited.
    public struct Scheduled: Hashable, Sendable, Codable {
        /// The poll's message, now naming what it became.
        public var message: Message
        /// The game made, when a game was.
        public var event: Event.ID?
        /// The series made, when a series was.
        public var series: Series.ID?
        /// The game the voters were invited to (a series' first).
        public var invitedTo: Event.ID?
        /// Who was invited: those who chose the slot, but its author and anyone blocked either way.
        public var invited: [Person.ID]
    }

    /// Makes a closed time poll's slot (its `option` position) into a game: the slot gives
    /// its start (and its end, when the slot has one and the draft none); the draft's
    /// `startsAt` is not used. Made once, however often it is asked.
    @discardableResult
    public func schedule(poll seq: Int, in room: String, option: Int, asGame draft: SportLookClient.Events.Draft) async throws -> Scheduled
    {
        var fields: [String: (any Sendable)?] = [
            "title": draft.title, "sport": try SportLookClient.Events.slug(draft.sport).rawValue,
            "location": ["lat": draft.place.latitude, "lon": draft.place.longitude] as [String: (any Sendable)?],
        ]
        if let endsAt = draft.endsAt { fields["ends_at"] = Timestamps.fractional.format(endsAt) }
        if let address = draft.address { fields["address"] = address }
        if let description = draft.description { fields["description"] = description }
        if let capacity = draft.capacity { fields["capacity"] = capacity }
        if let level = draft.level { fields["level"] = ["min": level.min, "max": level.max] as [String: (any Sendable)?] }
        if let audience = draft.audience { fields["audience"] = audience.rawValue }
        if let competitive = draft.competitive { fields["competitive"] = competitive }
        if let price = draft.price {
            fields["price"] =
                ["amount": price.minorUnits, "currency": price.currency, "split": draft.splitPrice] as [String: (any Sendable)?]
        }
        let event = try OpenAPIObjectContainer(unvalidatedValue: fields)
        return try await schedule(poll: seq, in: room, .init(option: option, event: .init(additionalProperties: event)))
    }

    /// Makes a closed time poll's slot into a weekly series: the slot gives its first date,
    /// its start time in `timeZone` and its length.
    @discardableResult
    public func schedule(
        poll seq: Int, in room: String, option: Int, asSeriesTitled title: String, sport: String, place: Place, timeZone: String,
        rule: String = "FREQ=WEEKLY", capacity: Int? = nil
    ) async throws -> Scheduled {
        var fields: [String: (any Sendable)?] = [
            "title": title, "sport": try SportLookClient.Events.slug(sport).rawValue, "time_zone": timeZone, "rule": rule,
            "location": ["lat": place.latitude, "lon": place.longitude] as [String: (any Sendable)?],
        ]
        if let capacity { fields["capacity"] = capacity }
        let series = try OpenAPIObjectContainer(unvalidatedValue: fields)
        return try await schedule(poll: seq, in: room, .init(option: option, series: .init(additionalProperties: series)))
    }

    private func schedule(
        poll seq: Int, in room: String, _ body: Operations.SchedulePoll.Input.Body.JsonPayload
    ) async throws -> Scheduled {
        let made = try await client.call { try await $0.schedulePoll(path: .init(id: room, seq: seq), body: .json(body)).created.body.json }
        return Scheduled(
            message: try Message(made.message), event: try made.eventId.map(Event.ID.parse), series: try made.seriesId.map(Series.ID.parse),
            invitedTo: try made.gameId.map(Event.ID.parse), invited: try made.invited.map(Person.ID.parse))
    }
}
