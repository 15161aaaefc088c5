import Foundation

/// Every kind of timed work the service does, one case each with its own fields. A job
/// is kept in the queue as its kind (the `jobs.kind` column, by which a subject's
/// waiting jobs are dropped) and its JSON encoding; ``Scheduler`` schedules, moves and
/// drops them, and one dispatch (`ScheduledWork.run(_:)`) runs them when due.
enum ScheduledJob: Sendable, Hashable {
    /// A reminder `minutes` before the start it was queued for (0: the organiser's
    /// "remind now"); a start that moved since makes it a no-op.
    case reminder(event: UUID, minutes: Int, startsAt: Date)
    /// The minimum-players decision of a game that starts at `startsAt`.
    case gameDecision(event: UUID, startsAt: Date)
    /// The end of the waitlist offer made to `user`, which runs out at `expiresAt`.
    case offerExpiry(event: UUID, user: UUID, expiresAt: Date)
    /// A weekly series making its games up to its horizon.
    case seriesExtension(series: UUID)
    /// The end of a suspension staff set to run out at `until`.
    case suspensionEnd(user: UUID, until: Date)
    /// Building a person's data export.
    case dataExport(export: UUID, user: UUID)
    /// Dropping an export's archive once its link has expired.
    case exportExpiry(export: UUID, user: UUID)
    /// Publishing the teams of a game that starts at `startsAt`, as its plan asks.
    case teamsDue(event: UUID, startsAt: Date)
    /// A score entered at `enteredAt` that no other team answered stands.
    case resultStands(event: UUID, enteredAt: Date)
    /// The end of a request for a substitute that nobody took by `expiresAt`.
    case substituteExpiry(event: UUID, request: UUID, expiresAt: Date)
    /// The close of a chat poll set to close at `closesAt`.
    case pollClose(room: UUID, seq: Int64, closesAt: Date)
    /// The reminder of a poll's non-voters before it closes at `closesAt`.
    case pollReminder(room: UUID, seq: Int64, closesAt: Date)
    /// Reminder `round` (1 to 3) of what is still owed at a priced game.
    case paymentReminder(event: UUID, round: Int)
    /// The start of a period of a group's dues, at `startsAt`: its dues are charged.
    case duesDue(group: UUID, startsAt: Date)
    /// Reminder `round` (1 to 3) of a group's dues still owed in `period` (its first day).
    case duesReminder(group: UUID, period: String, round: Int)

    enum Kind: String, CaseIterable, Sendable {
        case reminder = "reminder_due"
        case gameDecision = "game_decision"
        case offerExpiry = "waitlist_offer_expiry"
        case seriesExtension = "series_extend"
        case suspensionEnd = "suspension_end"
        case dataExport = "data_export"
        case exportExpiry = "export_expiry"
        case teamsDue = "teams_due"
        case resultStands = "result_stands"
        case substituteExpiry = "substitute_expiry"
        case pollClose = "poll_close"
        case pollReminder = "poll_reminder_due"
        case paymentReminder = "payment_reminder_due"
        case duesDue = "dues_due"
        case duesReminder = "dues_reminder_due"
    }

    /// What a job belongs to: when it changes or goes, its waiting jobs are dropped.
    enum Subject: Hashable, Sendable {
        case event(UUID)
        case series(UUID)
        case user(UUID)
        case room(UUID)
        case group(UUID)

        /// As kept in `jobs.subject`.
        var key: String {
            switch self {
            case .event(let id): "event:" + id.lowercased
            case .series(let id): "series:" + id.lowercased
            case .user(let id): "user:" + id.lowercased
            case .room(let id): "room:" + id.lowercased
            case .group(let id): "group:" + id.lowercased
            }
        }
    }

    var kind: Kind {
        switch self {
        case .reminder: .reminder
        case .gameDecision: .gameDecision
        case .offerExpiry: .offerExpiry
        case .seriesExtension: .seriesExtension
        case .suspensionEnd: .suspensionEnd
        case .dataExport: .dataExport
        case .exportExpiry: .exportExpiry
        case .teamsDue: .teamsDue
        case .resultStands: .resultStands
        case .substituteExpiry: .substituteExpiry
        case .pollClose: .pollClose
        case .pollReminder: .pollReminder
        case .paymentReminder: .paymentReminder
        case .duesDue: .duesDue
        case .duesReminder: .duesReminder
        }
    }

    var subject: Subject {
        switch self {
        case .reminder(let event, _, _), .gameDecision(let event, _), .offerExpiry(let event, _, _), .teamsDue(let event, _),
            .resultStands(let event, _), .substituteExpiry(let event, _, _), .paymentReminder(let event, _):
            .event(event)
        case .seriesExtension(let series): .series(series)
        case .suspensionEnd(let user, _), .dataExport(_, let user), .exportExpiry(_, let user): .user(user)
        case .pollClose(let room, _, _), .pollReminder(let room, _, _): .room(room)
        case .duesDue(let group, _), .duesReminder(let group, _, _): .group(group)
        }
    }
}

/// The encoding: the kind and the case's fields, instants as milliseconds since 1970
/// (`{"kind":"game_decision","event_id":"…","starts_at":1767225600000}`).
extension ScheduledJob: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind
        case eventID = "event_id", userID = "user_id", seriesID = "series_id", minutes, startsAt = "starts_at", expiresAt = "expires_at",
            until, exportID = "export_id", enteredAt = "entered_at", requestID = "request_id", roomID = "room_id", seq, closesAt =
            "closes_at", round, groupID = "group_id", period
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .kind)
        guard let kind = Kind(rawValue: text) else {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "no scheduled job of kind \(text)")
        }
        func instant(_ key: CodingKeys) throws -> Date {
            Date(timeIntervalSince1970: Double(try c.decode(Int64.self, forKey: key)) / 1_000)
        }
        switch kind {
        case .reminder:
            self = .reminder(
                event: try c.decode(UUID.self, forKey: .eventID), minutes: try c.decode(Int.self, forKey: .minutes),
                startsAt: try instant(.startsAt))
        case .gameDecision:
            self = .gameDecision(event: try c.decode(UUID.self, forKey: .eventID), startsAt: try instant(.startsAt))
        case .teamsDue:
            self = .teamsDue(event: try c.decode(UUID.self, forKey: .eventID), startsAt: try instant(.startsAt))
        case .resultStands:
            self = .resultStands(event: try c.decode(UUID.self, forKey: .eventID), enteredAt: try instant(.enteredAt))
        case .substituteExpiry:
            self = .substituteExpiry(
                event: try c.decode(UUID.self, forKey: .eventID), request: try c.decode(UUID.self, forKey: .requestID),
                expiresAt: try instant(.expiresAt))
        case .pollClose, .pollReminder:
            let (room, seq) = (try c.decode(UUID.self, forKey: .roomID), try c.decode(Int64.self, forKey: .seq))
            let closesAt = try instant(.closesAt)
            self =
                kind == .pollClose
                ? .pollClose(room: room, seq: seq, closesAt: closesAt) : .pollReminder(room: room, seq: seq, closesAt: closesAt)
        case .paymentReminder:
            self = .paymentReminder(event: try c.decode(UUID.self, forKey: .eventID), round: try c.decode(Int.self, forKey: .round))
        case .duesDue:
            self = .duesDue(group: try c.decode(UUID.self, forKey: .groupID), startsAt: try instant(.startsAt))
        case .duesReminder:
            self = .duesReminder(
                group: try c.decode(UUID.self, forKey: .groupID), period: try c.decode(String.self, forKey: .period),
                round: try c.decode(Int.self, forKey: .round))
        case .offerExpiry:
            self = .offerExpiry(
                event: try c.decode(UUID.self, forKey: .eventID), user: try c.decode(UUID.self, forKey: .userID),
                expiresAt: try instant(.expiresAt))
        case .seriesExtension:
            self = .seriesExtension(series: try c.decode(UUID.self, forKey: .seriesID))
        case .suspensionEnd:
            self = .suspensionEnd(user: try c.decode(UUID.self, forKey: .userID), until: try instant(.until))
        case .dataExport:
            self = .dataExport(export: try c.decode(UUID.self, forKey: .exportID), user: try c.decode(UUID.self, forKey: .userID))
        case .exportExpiry:
            self = .exportExpiry(export: try c.decode(UUID.self, forKey: .exportID), user: try c.decode(UUID.self, forKey: .userID))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind.rawValue, forKey: .kind)
        switch self {
        case .reminder(let event, let minutes, let startsAt):
            try c.encode(event.lowercased, forKey: .eventID)
            try c.encode(minutes, forKey: .minutes)
            try c.encode(startsAt.millisecondsSince1970, forKey: .startsAt)
        case .gameDecision(let event, let startsAt), .teamsDue(let event, let startsAt):
            try c.encode(event.lowercased, forKey: .eventID)
            try c.encode(startsAt.millisecondsSince1970, forKey: .startsAt)
        case .offerExpiry(let event, let user, let expiresAt):
            try c.encode(event.lowercased, forKey: .eventID)
            try c.encode(user.lowercased, forKey: .userID)
            try c.encode(expiresAt.millisecondsSince1970, forKey: .expiresAt)
        case .seriesExtension(let series):
            try c.encode(series.lowercased, forKey: .seriesID)
        case .substituteExpiry(let event, let request, let expiresAt):
            try c.encode(event.lowercased, forKey: .eventID)
            try c.encode(request.lowercased, forKey: .requestID)
            try c.encode(expiresAt.millisecondsSince1970, forKey: .expiresAt)
        case .pollClose(let room, let seq, let closesAt), .pollReminder(let room, let seq, let closesAt):
            try c.encode(room.lowercased, forKey: .roomID)
            try c.encode(seq, forKey: .seq)
            try c.encode(closesAt.millisecondsSince1970, forKey: .closesAt)
        case .resultStands(let event, let enteredAt):
            try c.encode(event.lowercased, forKey: .eventID)
            try c.encode(enteredAt.millisecondsSince1970, forKey: .enteredAt)
        case .paymentReminder(let event, let round):
            try c.encode(event.lowercased, forKey: .eventID)
            try c.encode(round, forKey: .round)
        case .duesDue(let group, let startsAt):
            try c.encode(group.lowercased, forKey: .groupID)
            try c.encode(startsAt.millisecondsSince1970, forKey: .startsAt)
        case .duesReminder(let group, let period, let round):
            try c.encode(group.lowercased, forKey: .groupID)
            try c.encode(period, forKey: .period)
            try c.encode(round, forKey: .round)
        case .suspensionEnd(let user, let until):
            try c.encode(user.lowercased, forKey: .userID)
            try c.encode(until.millisecondsSince1970, forKey: .until)
        case .dataExport(let export, let user), .exportExpiry(let export, let user):
            try c.encode(export.lowercased, forKey: .exportID)
            try c.encode(user.lowercased, forKey: .userID)
        }
    }

    /// The JSON kept in `jobs.payload`.
    func encoded() throws -> String {
        String(decoding: try JSONEncoder.sorted.encode(self), as: UTF8.self)
    }

    /// A queued job's payload read back; throws for one that is no scheduled job of `kind`.
    init(kind: String, payload: String) throws {
        self = try JSONDecoder().decode(ScheduledJob.self, from: Data(payload.utf8))
        guard self.kind.rawValue == kind else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a \(self.kind.rawValue) job queued as \(kind)"))
        }
    }
}
