import Foundation

/// One group of the reports queue (`ReportGroup` in the contract).
struct ReportGroupRepresentation: JSONEncodable {
    var group: ReportGroup
    /// A reported photo's links (a chat image's signed as for the room's members).
    var links: MediaLinks

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("target_type", group.targetType)
        json.field("target_id", group.targetID)
        json.key("subject")
        if let subject = group.subject { Self.person(subject, to: &json) } else { json.null() }
        json.field("oldest_at", group.oldest)
        json.field("due_at", group.oldest.addingTimeInterval(ModerationService.target))
        json.key("reports")
        json.arrayStart()
        for filed in group.reports {
            json.objectStart()
            json.field("id", filed.report.id)
            json.key("reporter")
            Self.person(filed.reporter, to: &json)
            json.field("reason", filed.report.reason)
            json.field("details", filed.report.details)
            json.field("created_at", filed.report.createdAt)
            json.objectEnd()
        }
        json.arrayEnd()
        json.key("context")
        encode(group.context, to: &json)
        json.objectEnd()
    }

    private func encode(_ context: ReportContext, to json: inout JSONWriter) {
        json.objectStart()
        switch context {
        case .message(let message, let around, let reported):
            json.field("kind", "message")
            json.key("message")
            Self.message(message, to: &json)
            json.key("around")
            json.arrayStart()
            for other in around { Self.message(other, to: &json) }
            json.arrayEnd()
            // As it read when first reported (our own JSON, kept with the report).
            json.key("as_reported")
            if let reported { json.raw(Array(reported.utf8)) } else { json.null() }
        case .event(let id, let title, let startsAt, let status, let organiser):
            json.field("kind", "event")
            json.key("event")
            json.objectStart()
            json.field("id", id)
            json.field("title", title)
            json.field("starts_at", startsAt)
            json.field("status", status)
            json.key("organiser")
            Self.person(organiser, to: &json)
            json.objectEnd()
        case .group(let id, let name, let memberCount, let owner):
            json.field("kind", "group")
            json.key("group")
            json.objectStart()
            json.field("id", id)
            json.field("name", name)
            json.field("member_count", memberCount)
            json.key("owner")
            Self.person(owner, to: &json)
            json.objectEnd()
        case .photo(let id, let place, let image, let owner):
            json.field("kind", "photo")
            json.key("photo")
            json.objectStart()
            json.field("id", id)
            json.field("shown_on", place.kind)
            switch place {
            case .profile(let person): json.field("person_id", person)
            case .event(let event): json.field("event_id", event)
            case .group(let group): json.field("group_id", group)
            case .message(let room, let seq):
                json.field("room_id", room)
                json.field("seq", Int(seq))
            }
            json.key("urls")
            links.writeURLs(image, to: &json)
            json.key("owner")
            Self.person(owner, to: &json)
            json.objectEnd()
        case .user(let person):
            json.field("kind", "user")
            json.key("user")
            ModeratedPersonRepresentation(person: person).encode(to: &json)
        case .gone:
            json.field("kind", "gone")
        }
        json.objectEnd()
    }

    static func person(_ person: UserSummary, to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", person.id)
        json.field("name", person.name)
        json.objectEnd()
    }

    static func message(_ message: ModeratedMessage, to json: inout JSONWriter) {
        json.objectStart()
        json.field("room_id", message.roomID)
        json.field("seq", Int(message.seq))
        json.key("sender")
        person(message.sender, to: &json)
        json.field("body", message.body)
        json.field("created_at", message.createdAt)
        json.field("deleted_at", message.deletedAt)
        json.objectEnd()
    }
}

/// A person as staff see them (`ModeratedAccount`).
struct ModeratedPersonRepresentation: JSONEncodable {
    var person: ModeratedPerson

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", person.summary.id)
        json.field("name", person.summary.name)
        json.field("created_at", person.createdAt)
        json.field("deleted", person.deleted)
        json.field("limited", person.limited)
        json.field("suspended_at", person.suspendedAt)
        json.field("suspended_until", person.suspendedUntil)
        json.field("reports_received", person.reportsReceived)
        json.field("reports_made", person.reportsMade)
        json.field("email", person.email)
        json.field("look_alike_scripts", person.lookAlike)
        json.field("devices", person.devices)
        json.field("live_sessions", person.liveSessions)
        json.field("groups", person.groups)
        json.field("games_organised", person.gamesOrganised)
        json.field("games_joined", person.gamesJoined)
        if let detail = person.detail {
            RecordSummaryRepresentation.write(detail.record, to: &json)
            json.key("sign_in_networks")
            json.arrayStart()
            for (network, lastUsedAt) in detail.networks {
                json.objectStart()
                json.field("network", network)
                json.field("last_used_at", lastUsedAt)
                json.objectEnd()
            }
            json.arrayEnd()
        }
        json.objectEnd()
    }
}

/// A row of the audit log (`AuditEntry`).
struct AuditEntryRepresentation: JSONEncodable {
    var entry: AuditEntry

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", entry.id)
        json.field("at", entry.at)
        json.field("actor_id", entry.actorID)
        json.field("actor", entry.actor)
        json.field("action", entry.action)
        json.field("target_type", entry.targetType)
        json.field("target_id", entry.targetID)
        json.field("reason", entry.reason)
        // An object of strings, written by the server (never by a client).
        json.key("details")
        json.raw(Array(entry.details.utf8))
        json.objectEnd()
    }
}

/// What a decision on reports did (`ReportDecision`).
struct DecisionRepresentation: JSONEncodable {
    var decision: ModerationService.Decision

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("resolved", decision.resolved)
        json.key("action")
        AuditEntryRepresentation(entry: decision.entry).encode(to: &json)
        json.objectEnd()
    }
}

/// A member of staff (`StaffMember`).
struct StaffMemberRepresentation: JSONEncodable {
    var id: UUID
    var name: String
    var email: String
    var role: StaffRole

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", id)
        json.field("name", name)
        json.field("email", email)
        json.field("role", role.rawValue)
        json.objectEnd()
    }
}

/// An appeal (`Appeal`).
struct AppealRepresentation: JSONEncodable {
    var appeal: Appeal

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        fields(to: &json)
        json.objectEnd()
    }

    func fields(to json: inout JSONWriter) {
        json.field("id", appeal.id)
        json.field("action_id", appeal.actionID)
        json.field("statement", appeal.statement)
        json.field("status", appeal.status.rawValue)
        json.field("created_at", appeal.createdAt)
        json.field("decided_at", appeal.decidedAt)
    }
}

/// An open appeal with the action and the person (`AppealCase`).
struct AppealCaseRepresentation: JSONEncodable {
    var appealCase: AppealCase

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        AppealRepresentation(appeal: appealCase.appeal).fields(to: &json)
        json.key("action")
        AuditEntryRepresentation(entry: appealCase.action).encode(to: &json)
        json.key("person")
        ModeratedPersonRepresentation(person: appealCase.person).encode(to: &json)
        json.objectEnd()
    }
}

/// The job queue for admins (`JobOverview`).
struct JobOverviewRepresentation: JSONEncodable {
    var overview: JobOverview

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.key("counts")
        json.arrayStart()
        for count in overview.counts {
            json.objectStart()
            json.field("state", count.state)
            json.field("kind", count.kind)
            json.field("count", count.count)
            json.objectEnd()
        }
        json.arrayEnd()
        json.field("oldest_queued_at", overview.oldestQueued)
        json.key("dead")
        json.arrayStart()
        for job in overview.dead {
            json.objectStart()
            json.field("id", job.id)
            json.field("kind", job.kind)
            json.field("attempts", job.attempts)
            json.field("last_error", job.lastError)
            json.field("finished_at", job.finishedAt)
            json.objectEnd()
        }
        json.arrayEnd()
        json.objectEnd()
    }
}

/// Dead jobs retried or dropped (`JobsSettled`).
struct SettledRepresentation: JSONEncodable {
    var count: Int
    var entry: AuditEntry

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("count", count)
        json.key("action")
        AuditEntryRepresentation(entry: entry).encode(to: &json)
        json.objectEnd()
    }
}
