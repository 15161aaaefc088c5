import Foundation

/// What staff decisions tell people: the person acted on learns what was done and why,
/// each reporter learns the outcome of their report.
extension Notifier {
    /// What staff did, as the person acted on is told it.
    enum ModerationNotice: Sendable {
        case warned
        case messageRemoved
        case eventRemoved(title: String)
        case groupRemoved(name: String)
        case photoRemoved
        case limited
        case suspended(until: Date?)
        case lifted

        var action: ModerationAction {
            switch self {
            case .warned: .warn
            case .messageRemoved, .eventRemoved, .groupRemoved, .photoRemoved: .remove
            case .limited: .limit
            case .suspended: .suspend
            case .lifted: .lift
            }
        }

        func body(reason: String, in language: Language) -> String {
            let why: [String: MessageArgument] = ["reason": .text(reason)]
            return switch self {
            case .warned: Catalogue.text(.moderationWarned, why, in: language)
            case .messageRemoved: Catalogue.text(.moderationMessageRemoved, why, in: language)
            case .eventRemoved(let title):
                Catalogue.text(.moderationEventRemoved, why.merging(["event": .text(title)]) { a, _ in a }, in: language)
            case .groupRemoved(let name):
                Catalogue.text(.moderationGroupRemoved, why.merging(["group": .text(name)]) { a, _ in a }, in: language)
            case .photoRemoved: Catalogue.text(.moderationPhotoRemoved, why, in: language)
            case .limited: Catalogue.text(.moderationLimited, why, in: language)
            case .suspended(let until?):
                Catalogue.text(.moderationSuspended, why.merging(["until": .text(Self.utc(until))]) { a, _ in a }, in: language)
            case .suspended(nil): Catalogue.text(.moderationSuspendedForGood, why, in: language)
            case .lifted: Catalogue.text(.moderationLifted, in: language)
            }
        }

        /// An instant as people read it the world over: `2026-11-30 18:00`.
        static func utc(_ date: Date) -> String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
            func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
            return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute))"
        }
    }

    /// Tells `person` what staff did (entry `actionID` of the audit log) and why.
    func moderation(
        _ notice: ModerationNotice, to person: UUID, reason: String, actionID: UUID, target: (type: String, id: UUID)?, at now: Date,
        on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        let language = try await accounts.languages(of: [person], on: sql)[person] ?? .en
        var data: [String: JSONValue] = [
            "action": .string(notice.action.rawValue), "reason": .string(reason), "action_id": .id(actionID),
        ]
        if case .suspended(let until) = notice { data["until"] = until.map { .string(RFC3339.format($0)) } ?? .null }
        if let target {
            data["target_type"] = .string(target.type)
            data["target_id"] = .id(target.id)
        }
        let message = NotificationMessage(
            to: person, .moderation, title: Catalogue.text(.moderationTitle, in: language),
            body: notice.body(reason: reason, in: language), data: data)
        try await jobs.enqueue(message, dedupeKey: "moderation:\(actionID.lowercased)", on: sql)
        changes.record(.jobs)
    }

    /// Tells each reporter that their report on a target was decided.
    func reportOutcome(
        _ reports: [FiledReport], acted: Bool, actionID: UUID, at now: Date, on sql: DatabaseSession, changes: inout ChangeSet
    ) async throws {
        guard !reports.isEmpty else { return }
        let languages = try await accounts.languages(of: reports.map(\.reporter.id), on: sql)
        let messages = reports.map { filed in
            let language = languages[filed.reporter.id] ?? .en
            return (
                NotificationMessage(
                    to: filed.reporter.id, .reportOutcome, title: Catalogue.text(.reportOutcomeTitle, in: language),
                    body: Catalogue.text(acted ? .reportActedOn : .reportDismissed, in: language),
                    data: [
                        "report_id": .id(filed.report.id), "target_type": .string(filed.report.targetType),
                        "target_id": .id(filed.report.targetID), "outcome": .string(acted ? "acted" : "dismissed"),
                    ]
                ), "report_outcome:\(filed.report.id.lowercased)"
            )
        }
        try await jobs.enqueue(messages, on: sql)
        changes.record(.jobs)
    }

    /// Tells the person who appealed what staff decided, and why.
    func appealDecided(
        _ appeal: Appeal, reversed: Bool, reason: String, decisionID: UUID, at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        let person = appeal.userID
        let language = try await accounts.languages(of: [person], on: sql)[person] ?? .en
        let message = NotificationMessage(
            to: person, .appealDecided, title: Catalogue.text(.appealDecidedTitle, in: language),
            body: Catalogue.text(reversed ? .appealReversed : .appealUpheld, ["reason": .text(reason)], in: language),
            data: [
                "appeal_id": .id(appeal.id), "action_id": .id(appeal.actionID), "decision": .string(reversed ? "reversed" : "upheld"),
                "reason": .string(reason),
            ])
        try await jobs.enqueue(message, dedupeKey: "appeal_decided:\(decisionID.lowercased)", on: sql)
        changes.record(.jobs)
    }

    /// Tells the person their data export is ready, and where to download it.
    func dataExportReady(
        _ export: UUID, to person: UUID, path: String, expiresAt: Date, size: Int, at now: Date, on sql: DatabaseSession,
        changes: inout ChangeSet
    ) async throws {
        let language = try await accounts.languages(of: [person], on: sql)[person] ?? .en
        let days = Int((expiresAt.timeIntervalSince(now) / 86_400).rounded())
        let message = NotificationMessage(
            to: person, .dataExportReady, title: Catalogue.text(.exportReadyTitle, in: language),
            body: Catalogue.text(.exportReadyBody, ["days": .number(Double(days))], in: language),
            data: [
                "export_id": .id(export), "path": .string(path), "expires_at": .string(RFC3339.format(expiresAt)),
                "size": .number(Double(size)),
            ])
        try await jobs.enqueue(message, dedupeKey: "data_export_ready:\(export.lowercased)", on: sql)
        changes.record(.jobs)
    }

    /// Queues the mail with a ready archive's link (composed when sent, from the export
    /// and the account as they are then).
    func mailExportLink(_ export: UUID, on sql: DatabaseSession, changes: inout ChangeSet) async throws {
        try await jobs.enqueue(MailRequest.export(export), dedupeKey: "data_export_mail:\(export.lowercased)", on: sql)
        changes.record(.jobs)
    }
}
