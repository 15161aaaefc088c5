import Foundation

/// Appeals: the person a staff action reached may appeal it once (a suspended person
/// too, signing the appeal with their email and password); another member of staff
/// upholds it or reverses it, which lifts a limit or a suspension.
extension ModerationService {
    /// The actions a person may appeal.
    static let appealable = [
        "message_removed", "event_removed", "group_removed", "photo_removed", "user_warned", "user_limited", "user_suspended",
    ]

    /// Files `user`'s appeal of `actionID` (nil: the latest action that reached them and
    /// is not appealed yet).
    func appeal(by user: UUID, action actionID: UUID?, statement: String?) async throws -> Appeal {
        var v = Validator()
        let text = v.text(statement, "statement", 1...2_000, multiline: true)
        try v.throwIfInvalid()
        guard let text else { throw DomainError.validation(v.fields) }
        let now = clock.now()
        return try await write { [self] sql, _ in
            let reaching = try await staff.entries(reaching: user, actions: Self.appealable, on: sql)
            let appealed = try await store.appealed(reaching.map(\.id), on: sql)
            // The action named, or else the latest that reached them (never an older one
            // in its place: a second appeal of the same is refused).
            let candidates = actionID.map { id in reaching.filter { $0.id == id } } ?? Array(reaching.prefix(1))
            guard !candidates.isEmpty else { throw DomainError.notFound(.actionToAppeal) }
            guard let action = candidates.first(where: { !appealed.contains($0.id) }),
                let filed = try await store.insertAppeal(by: user, of: action.id, statement: text, at: now, on: sql)
            else {
                throw DomainError.conflict("already_appealed", Sentence("An action is appealed once; this one was."))
            }
            let name = try await accounts.names(of: [user], on: sql)[user] ?? ""
            _ = try await audit(
                "appeal_filed", actor: .person(user, name: name), name: name, target: ("appeal", filed.id), reason: text,
                details: ["action": action.id.lowercased, "appealed": action.action], at: now, on: sql)
            return filed
        }
    }

    /// Open appeals, oldest first, each with the action and the person.
    func appeals(limit: Int) async throws -> [AppealCase] {
        try await write.database.read { [store, staff] sql in
            var out: [AppealCase] = []
            for appeal in try await store.openAppeals(limit: limit, on: sql) {
                guard let action = try await staff.entry(appeal.actionID, on: sql),
                    let person = try await store.person(appeal.userID, on: sql)
                else { continue }
                out.append(AppealCase(appeal: appeal, action: action, person: person))
            }
            return out
        }
    }

    /// Upholds or reverses an open appeal: never by the member of staff whose action it
    /// is. Reversing a limit or a suspension lifts it. The person is told either way.
    func decideAppeal(_ id: UUID, reverse: Bool, reason: String?, by actor: AuditActor) async throws -> AuditEntry {
        let reason = try StaffService.reason(reason)
        let now = clock.now().wholeMilliseconds
        return try await write { [self] sql, changes in
            guard let appeal = try await store.lockOpenAppeal(id, on: sql), let action = try await staff.entry(appeal.actionID, on: sql)
            else {
                throw DomainError.notFound(.openAppeal)
            }
            if appeal.userID == actor.id { throw DomainError.conflict("own_account", Sentence("Staff do not decide their own appeal.")) }
            let name = try await requireStaff(actor, alsoLocking: appeal.userID, on: sql)
            if let me = actor.id, action.actorID == me {
                throw DomainError.conflict("same_staff", Sentence("Another member of staff decides the appeal of your own action."))
            }
            if reverse, let person = try await store.lockPerson(appeal.userID, on: sql) {
                try await undo(action, of: person, at: now, on: sql, changes: &changes)
            }
            try await store.decideAppeal(id, reverse ? .reversed : .upheld, by: actor.id, at: now, on: sql)
            let entry = try await audit(
                reverse ? "appeal_reversed" : "appeal_upheld", actor: actor, name: name, target: ("appeal", id), reason: reason,
                details: ["action": action.id.lowercased, "appealed": action.action, "subject": appeal.userID.lowercased], at: now,
                on: sql)
            try await notifier.appealDecided(
                appeal, reversed: reverse, reason: reason, decisionID: entry.id, at: now, on: sql, changes: &changes)
            return entry
        }
    }

    /// Reverses what the appealed action set, if it still holds: a limit is ended; a
    /// suspension is ended only if it is that one (a later one stays).
    private func undo(_ action: AuditEntry, of person: ModeratedPerson, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet)
        async throws
    {
        switch action.action {
        case "user_limited" where person.limited:
            try await store.setStanding(
                person.summary.id, limitedAt: nil, suspendedAt: person.suspendedAt, suspendedUntil: person.suspendedUntil, at: now, on: sql)
        case "user_suspended" where person.suspendedAt == action.at:
            try await store.setStanding(
                person.summary.id, limitedAt: person.limited ? now : nil, suspendedAt: nil, suspendedUntil: nil, at: now, on: sql)
            try await scheduler.unschedule(.suspensionEnd, of: .user(person.summary.id), on: sql)
        default:
            return
        }
        if let user = try await accounts.user(person.summary.id, on: sql) { changes.profile(user) }
    }
}
