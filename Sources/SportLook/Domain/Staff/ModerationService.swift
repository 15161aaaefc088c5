import Foundation
import Synchronization

/// Acting on reports and on people, decided here once: the queue staff work from, what
/// each action does, who is told, and the audit row every action leaves — all in the
/// action's one transaction.
struct ModerationService: Sendable {
    let store: ModerationStore
    let staff: StaffStore
    let sessions: SessionStore
    let accounts: AccountStore
    let events: EventService
    let eventStore: EventStore
    let groups: GroupService
    let chat: ChatService
    let media: MediaAttachments
    /// The records of showing up and the sign-in networks an account shows.
    let records: RecordStore
    let known: KnownSignInStore
    let notifier: Notifier
    let scheduler: Scheduler
    let write: Writer
    let clock: any AppClock
    /// Erasing an account as its owner would, when staff do it on their request.
    let deletion: AccountService

    /// How soon a report should be decided (app stores ask for a day).
    static let target: TimeInterval = 86_400
    /// Messages shown on each side of a reported one.
    static let contextSpan: Int64 = 5
    /// The longest suspension with an end (longer: for good).
    static let maxDays = 3_650

    // MARK: The queue

    /// Open reports grouped by what they report, the group with the oldest report first,
    /// each with its context and the person an action would reach.
    func queue(limit: Int) async throws -> [ReportGroup] {
        try await write.database.read { [store] sql in
            var order: [String] = []
            var grouped: [String: [FiledReport]] = [:]
            for filed in try await store.openReports(limit: 2_000, on: sql) {
                let key = filed.report.targetType + ":" + filed.report.targetID.lowercased
                if grouped[key] == nil {
                    guard order.count < limit else { continue }
                    order.append(key)
                }
                grouped[key, default: []].append(filed)
            }
            var out: [ReportGroup] = []
            for key in order {
                guard let reports = grouped[key], let first = reports.first?.report else { continue }
                let (subject, context) = try await Self.context(first.targetType, first.targetID, store: store, media: media.store, on: sql)
                out.append(
                    ReportGroup(
                        targetType: first.targetType, targetID: first.targetID, subject: subject, reports: reports, context: context))
            }
            return out
        }
    }

    /// The reported thing as a moderator sees it, and whom an action on a person reaches.
    private static func context(_ type: String, _ id: UUID, store: ModerationStore, media: MediaStore, on sql: DatabaseSession)
        async throws -> (UserSummary?, ReportContext)
    {
        switch type {
        case "message":
            guard let message = try await store.message(id, on: sql) else { return (nil, .gone) }
            let around = try await store.messages(room: message.roomID, around: message.seq, span: contextSpan, on: sql)
            let reported = try await store.reportedContent(of: id, on: sql)
            return (message.sender, .message(message, around: around.filter { $0.seq != message.seq }, reported: reported))
        case "event":
            guard let event = try await store.event(id, on: sql) else { return (nil, .gone) }
            if case .event(_, _, _, _, let organiser) = event { return (organiser, event) }
            return (nil, event)
        case "group":
            guard let group = try await store.group(id, on: sql) else { return (nil, .gone) }
            if case .group(_, _, _, let owner) = group { return (owner, group) }
            return (nil, group)
        case "photo":
            guard let photo = try await store.photo(id, media: media, on: sql) else { return (nil, .gone) }
            if case .photo(_, _, _, let owner) = photo { return (owner, photo) }
            return (nil, photo)
        default:
            guard let person = try await store.person(id, on: sql) else { return (nil, .gone) }
            return (person.summary, .user(person))
        }
    }

    /// Accounts found by id, email (any case) or a part of the name (at least two
    /// characters), by name.
    func search(_ query: String?, limit: Int) async throws -> [ModeratedPerson] {
        let text = (query ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count >= 2, text.utf8.count <= 320 else {
            throw DomainError.invalidParameter("q", Sentence("must be an id, an email or at least two characters of a name"))
        }
        let id = UUID(text: text)
        let email = text.contains("@") ? AccountService.normalize(email: text) : nil
        return try await write.database.read { [store] sql in
            try await store.search(id: id, email: email, name: id == nil && email == nil ? text : nil, limit: limit, on: sql)
        }
    }

    /// Erases an account on its owner's written request, as they would themselves
    /// (``AccountService/deleteAccount(_:first:)``); an admin only, in the audit log.
    func erase(_ person: UUID, by actor: AuditActor, reason: String?) async throws -> AuditEntry {
        let reason = try StaffService.reason(reason)
        if person == actor.id { throw DomainError.conflict("own_account", Sentence("Staff do not erase their own account here.")) }
        let now = clock.now().wholeMilliseconds
        let entry = Mutex<AuditEntry?>(nil)
        try await deletion.deleteAccount(person) { [staff] sql in
            let name = try await StaffService.requireAdmin(actor, staff: staff, on: sql)
            let row = try await staff.record(
                "account_erased", by: actor, name: name, target: ("user", person.lowercased), reason: reason, at: now, on: sql)
            entry.withLock { $0 = row }
        }
        guard let row = entry.withLock({ $0 }) else { throw DomainError.notFound(.account) }
        return row
    }

    /// A person as staff see them (404 for no such account).
    func person(_ id: UUID) async throws -> ModeratedPerson {
        let now = clock.now()
        guard
            let person = try await write.database.read({ [store, records, known] sql -> ModeratedPerson? in
                guard var person = try await store.person(id, on: sql) else { return nil }
                person.detail = ModeratedPerson.Detail(
                    record: try await records.records(of: [id], at: now, on: sql)[id], networks: try await known.networks(of: id, on: sql))
                return person
            })
        else { throw DomainError.notFound(.account) }
        return person
    }

    // MARK: Deciding

    /// What a decision did: its audit row and how many reports it closed.
    struct Decision: Sendable {
        var entry: AuditEntry
        var resolved: Int
    }

    /// Decides the open reports on one target: `dismiss`, `remove` the content, or
    /// `warn`, `limit` or `suspend` (for `days`, or for good) the person behind it. Every
    /// reporter is told the outcome, the person what was done and why.
    func decide(
        targetType: String, targetID: UUID, action: ModerationAction, reason: String?, days: Int?, by actor: AuditActor
    ) async throws -> Decision {
        let reason = try StaffService.reason(reason)
        try Self.check(action, days: days, onContent: targetType)
        // Whole milliseconds: a standing set now reads back equal to its audit row's time.
        let now = clock.now().wholeMilliseconds
        let (decision, released) = try await write { [self] sql, changes in
            // The reports first, under their locks: two staff deciding the same thing go
            // one after the other, and the second finds nothing left open.
            guard try await store.lockOpenReports(targetType, targetID, on: sql) else { throw DomainError.notFound(.openReport) }
            let (subject, context) = try await Self.context(targetType, targetID, store: store, media: media.store, on: sql)
            // Nobody decides on their own content or account.
            if let subject, subject.id == actor.id {
                throw DomainError.conflict("own_account", Sentence("Staff do not decide reports about themselves."))
            }
            let actorName = try await requireStaff(actor, alsoLocking: subject?.id, on: sql)
            var notice: Notifier.ModerationNotice?
            var released: [String] = []
            switch action {
            case .dismiss:
                break
            case .remove:
                (notice, released) = try await remove(targetType, context, at: now, on: sql, changes: &changes)
            case .warn, .limit, .suspend, .lift:
                guard let subject else {
                    throw DomainError.conflict("target_gone", Sentence("The reported thing is gone; dismiss its reports."))
                }
                notice = try await standing(of: subject.id, action, days: days, by: actor, at: now, on: sql, changes: &changes)
            }
            let reports = try await store.resolve(targetType, targetID, outcome: action, by: actor.id, at: now, on: sql)
            var details: [String: String] = ["reports": "\(reports.count)"]
            if let subject { details["subject"] = subject.id.lowercased }
            if case .suspended(let until?)? = notice { details["until"] = RFC3339.format(until) }
            let entry = try await audit(
                Self.auditAction(action, targetType), actor: actor, name: actorName, target: (targetType, targetID), reason: reason,
                details: details, at: now, on: sql)
            try await notifier.reportOutcome(reports, acted: action != .dismiss, actionID: entry.id, at: now, on: sql, changes: &changes)
            if let notice, let subject {
                try await notifier.moderation(
                    notice, to: subject.id, reason: reason, actionID: entry.id, target: (targetType, targetID), at: now, on: sql,
                    changes: &changes)
            }
            return (Decision(entry: entry, resolved: reports.count), released)
        }
        // A photo taken down: its stored variants go once the removal committed.
        await media.removeBlobs(released)
        return decision
    }

    /// Warns, limits, suspends or lifts a person directly (from their account page).
    func act(on person: UUID, _ action: ModerationAction, reason: String?, days: Int?, by actor: AuditActor) async throws -> AuditEntry {
        let reason = try StaffService.reason(reason)
        guard action.onPerson else {
            throw DomainError.invalidParameter("action", Sentence("must be warn, limit, suspend or lift"))
        }
        try Self.check(action, days: days, onContent: "user")
        let now = clock.now().wholeMilliseconds
        return try await write { [self] sql, changes in
            if person == actor.id { throw DomainError.conflict("own_account", Sentence("Staff do not act on their own account.")) }
            let actorName = try await requireStaff(actor, alsoLocking: person, on: sql)
            let notice = try await standing(of: person, action, days: days, by: actor, at: now, on: sql, changes: &changes)
            var details: [String: String] = [:]
            if case .suspended(let until?) = notice { details["until"] = RFC3339.format(until) }
            let entry = try await audit(
                Self.auditAction(action, "user"), actor: actor, name: actorName, target: ("user", person), reason: reason, details: details,
                at: now, on: sql)
            try await notifier.moderation(
                notice, to: person, reason: reason, actionID: entry.id, target: nil, at: now, on: sql, changes: &changes)
            return entry
        }
    }

    /// Ends a suspension that ran out (the scheduled job): the person is findable again.
    /// A lift or a newer suspension since makes it a no-op.
    func endSuspension(of person: UUID, until: Date) async throws {
        let now = clock.now()
        try await write { [store, accounts] sql, changes in
            guard try await store.endSuspension(of: person, until: until, at: now, on: sql) else { return }
            if let user = try await accounts.user(person, on: sql) { changes.profile(user) }
        }
    }

    // MARK: Steps

    private static func check(_ action: ModerationAction, days: Int?, onContent type: String) throws {
        if let days {
            guard action == .suspend else { throw DomainError.invalidParameter("days", Sentence("is for a suspension only")) }
            guard (1...maxDays).contains(days) else {
                throw DomainError.invalidParameter("days", Sentence("must be 1 to \(maxDays); leave it out to suspend for good"))
            }
        }
        if action == .remove, type == "user" {
            throw DomainError.invalidParameter("action", Sentence("a person is not removed: warn, limit or suspend them"))
        }
        if action == .lift, type != "user" {
            throw DomainError.invalidParameter("action", Sentence("lift is for a person's limit or suspension, from their account"))
        }
    }

    /// The actor's name, if they are staff now (read in the transaction); the command
    /// line always may. `person`, the account acted on, is locked with the actor, in id
    /// order: two staff acting on each other at once go one after the other.
    func requireStaff(_ actor: AuditActor, alsoLocking person: UUID? = nil, on sql: DatabaseSession) async throws -> String {
        guard let id = actor.id else { return actor.label }
        guard let account = try await staff.lock(Set([id] + [person].compactMap { $0 }), on: sql)[id], account.role != nil else {
            throw DomainError.forbidden("staff_only", Sentence("Only staff act on reports and people."))
        }
        return account.name
    }

    /// Takes the reported content down as its owner would: a message becomes a tombstone,
    /// an event is cancelled and its people told, a group is closed, a photo is deleted
    /// from every place it shows (the blob keys to remove after the commit come back).
    private func remove(_ type: String, _ context: ReportContext, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws -> (Notifier.ModerationNotice, [String])
    {
        switch context {
        case .message(let message, _, _):
            // Deleted before, or while this was decided.
            guard message.deletedAt == nil,
                try await chat.takeDown(room: message.roomID, seq: message.seq, at: now, on: sql, changes: &changes)
            else { throw DomainError.conflict("already_removed", Sentence("The message was deleted already.")) }
            return (.messageRemoved, [])
        case .event(let id, let title, _, _, _):
            guard let event = try await eventStore.lock(id, on: sql), event.status == .active else {
                throw DomainError.conflict("already_removed", Sentence("The event was cancelled already."))
            }
            try await events.cancel(event, at: now, on: sql, changes: &changes)
            return (.eventRemoved(title: title), [])
        case .group(let id, let name, _, _):
            // Closed as its owner would: its games are cancelled with a notice, its members go.
            guard let group = try await groups.store.lock(id, at: now, on: sql) else {
                throw DomainError.conflict("already_removed", Sentence("The group was closed already."))
            }
            try await groups.end(group, at: now, on: sql, &changes)
            return (.groupRemoved(name: name), [])
        case .photo(let id, let place, _, _):
            return (.photoRemoved, try await takeDown(photo: id, shownOn: place, at: now, on: sql, changes: &changes))
        case .user, .gone:
            throw DomainError.conflict("target_gone", Sentence("There is nothing left to remove; dismiss its reports."))
        }
    }

    /// Deletes a photo's upload and every link to it, as its owner's removal would, and
    /// tells the caches of the place that showed it: the profile, the event or the group
    /// has no picture from now on; a chat message keeps its text and loses its image.
    private func takeDown(photo id: UUID, shownOn place: PhotoPlace, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws -> [String]
    {
        // Each place is locked and read again: a photo its owner replaced meanwhile is
        // shown there no more, and the one that took its place stays.
        switch place {
        case .message(let room, let seq):
            return try await chat.takeDownImage(id, room: room, seq: seq, on: sql, changes: &changes)
        case .profile(let person):
            if try await accounts.lockLive(person, on: sql), try await accounts.user(person, on: sql)?.photo?.id == id {
                var edits = AccountStore.ProfileChanges()
                edits.photo = .null
                try await accounts.update(person, edits, at: now, on: sql)
                if let user = try await accounts.user(person, on: sql) { changes.profile(user) }
            }
        case .event(let eventID):
            if let event = try await eventStore.lock(eventID, on: sql), event.cover?.id == id {
                var edits = EventStore.Changes()
                edits.cover = .null
                _ = try await events.apply(edits, to: event, by: event.organiserID, at: now, on: sql, changes: &changes)
            }
        case .group(let groupID):
            if let group = try await groups.store.lock(groupID, at: now, on: sql), group.cover?.id == id {
                var edits = GroupStore.Changes()
                edits.cover = .null
                try await groups.store.update(groupID, edits, at: now, on: sql)
                if let group = try await groups.store.group(groupID, on: sql) { changes.group(group) }
            }
        }
        return try await media.release([id], on: sql)
    }

    /// Changes a person's standing: a warning changes nothing, a limit hides them, a
    /// suspension ends their sessions and sockets, stops their pushes and hands on their
    /// games and groups as a deletion does; a lift ends both.
    func standing(
        of person: UUID, _ action: ModerationAction, days: Int?, by actor: AuditActor, at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws -> Notifier.ModerationNotice {
        if person == actor.id { throw DomainError.conflict("own_account", Sentence("Staff do not act on their own account.")) }
        guard let current = try await store.lockPerson(person, on: sql) else { throw DomainError.notFound(.account) }
        if action != .warn, let actorID = actor.id, let role = try await staff.role(of: person, on: sql) {
            let mine = try await staff.role(of: actorID, on: sql)
            if role == .admin || mine != .admin {
                throw DomainError.forbidden(
                    "staff_account", Sentence("Only an admin acts on a moderator, and no one on an admin; take the role first."))
            }
        }
        let notice: Notifier.ModerationNotice
        switch action {
        case .warn:
            return .warned
        case .limit:
            guard !current.limited else { throw DomainError.conflict("already_limited", Sentence("The account is limited already.")) }
            try await store.setStanding(
                person, limitedAt: now, suspendedAt: current.suspendedAt, suspendedUntil: current.suspendedUntil, at: now, on: sql)
            notice = .limited
        case .suspend:
            // Whole seconds: the end is kept exactly as the job that ends it carries it.
            let until = days.map { Date(timeIntervalSince1970: (now.timeIntervalSince1970 + Double($0) * 86_400).rounded(.up)) }
            try await store.setStanding(
                person, limitedAt: current.limited ? now : nil, suspendedAt: now, suspendedUntil: until, at: now, on: sql)
            changes.sessionsEnded(try await sessions.revokeTokens(of: person, except: nil, at: now, on: sql))
            try await events.withdraw(person, at: now, on: sql, changes: &changes)
            try await groups.handOn(ownedBy: person, at: now, on: sql, changes: &changes)
            try await scheduler.unschedule(.suspensionEnd, of: .user(person), on: sql)
            if let until {
                _ = try await scheduler.schedule(
                    .suspensionEnd(user: person, until: until),
                    dedupeKey: "suspension_end:\(person.lowercased):\(until.millisecondsSince1970)",
                    after: until.timeIntervalSince(now), on: sql)
            }
            notice = .suspended(until: until)
        case .lift:
            guard current.limited || current.suspendedAt != nil else {
                throw DomainError.conflict("not_restricted", Sentence("The account is neither limited nor suspended."))
            }
            try await store.setStanding(person, limitedAt: nil, suspendedAt: nil, suspendedUntil: nil, at: now, on: sql)
            try await scheduler.unschedule(.suspensionEnd, of: .user(person), on: sql)
            notice = .lifted
        case .dismiss, .remove:
            throw DomainError.invalidParameter("action", Sentence("must be warn, limit, suspend or lift"))
        }
        if let user = try await accounts.user(person, on: sql) { changes.profile(user) }
        return notice
    }

    func audit(
        _ action: String, actor: AuditActor, name: String, target: (type: String, id: UUID), reason: String, details: [String: String],
        at now: Date, on sql: DatabaseSession
    ) async throws -> AuditEntry {
        try await staff.record(
            action, by: actor, name: name, target: (target.type, target.id.lowercased), reason: reason, details: details, at: now, on: sql)
    }

    /// The audit log's name for an action: `report_dismissed`, `message_removed`,
    /// `event_removed`, `user_warned`, `user_limited`, `user_suspended`, `user_lifted`.
    static func auditAction(_ action: ModerationAction, _ targetType: String) -> String {
        switch action {
        case .dismiss: "report_dismissed"
        case .remove: "\(targetType)_removed"
        case .warn: "user_warned"
        case .limit: "user_limited"
        case .suspend: "user_suspended"
        case .lift: "user_lifted"
        }
    }
}
