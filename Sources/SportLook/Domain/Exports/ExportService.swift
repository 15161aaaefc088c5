import Crypto
import Foundation

/// Each person's data on request: an export is asked for (by the person, once a day, or
/// by an admin on their written request, in the audit log), built by a job into one ZIP
/// archive — readable JSON, one file per kind of thing, and the photos they uploaded —
/// and handed out through a link signed until it expires, when a job drops the archive.
struct ExportService: Sendable {
    let store: ExportStore
    let staff: StaffStore
    let accounts: AccountStore
    let blobs: any BlobStore
    let scheduler: Scheduler
    let notifier: Notifier
    let write: Writer
    let clock: any AppClock
    /// The HMAC key download links are signed with.
    let secret: [UInt8]
    /// The server's public address (`PUBLIC_URL`) when mail can be sent: a ready archive's
    /// link is mailed too. Nil: the notification alone tells the person.
    var mailLinks: String? = nil

    /// How long an archive stays downloadable.
    static let lifetime: TimeInterval = 7 * 86_400
    /// A person asks for one export in this long.
    static let interval: TimeInterval = 86_400
    /// The most an archive holds: photos past it are named in its README, not included.
    static let maxBytes = 1 << 30
    static let maxPhotos = 50_000

    /// The person asks for their data: at most once a day (429 `export_limit`).
    func request(for user: UUID) async throws -> DataExport {
        let now = clock.now()
        return try await write { [store, scheduler] sql, changes in
            guard try await accounts.lockLive(user, on: sql) else { throw DomainError.unauthorized }
            if let last = try await store.requested(by: user, since: now.addingTimeInterval(-Self.interval), on: sql).first {
                throw DomainError.tooManyRequests(
                    retryAfter: max(1, Int(last.requestedAt.addingTimeInterval(Self.interval).timeIntervalSince(now).rounded(.up))),
                    code: "export_limit", message: Sentence("You can ask for your data once a day."))
            }
            let export = DataExport(id: UUID(), userID: user, requestedBy: nil, status: .pending, requestedAt: now)
            try await store.insert(export, on: sql)
            _ = try await scheduler.schedule(
                .dataExport(export: export.id, user: user), dedupeKey: "data_export:\(export.id.lowercased)", after: 0, on: sql)
            changes.record(.jobs)
            return export
        }
    }

    /// An admin runs the export on a person's written request: no daily bound, an audit row.
    func request(for person: UUID, by actor: AuditActor, reason: String?) async throws -> (DataExport, AuditEntry) {
        let reason = try StaffService.reason(reason)
        let now = clock.now()
        return try await write { [store, staff, scheduler] sql, changes in
            let actorName = try await StaffService.requireAdmin(actor, staff: staff, on: sql)
            guard try await accounts.lockLive(person, on: sql) else { throw DomainError.notFound(.account) }
            let export = DataExport(id: UUID(), userID: person, requestedBy: actor.id, status: .pending, requestedAt: now)
            try await store.insert(export, on: sql)
            _ = try await scheduler.schedule(
                .dataExport(export: export.id, user: person), dedupeKey: "data_export:\(export.id.lowercased)", after: 0, on: sql)
            let entry = try await staff.record(
                "data_exported", by: actor, name: actorName, target: ("user", person.lowercased), reason: reason,
                details: ["export": export.id.lowercased], at: now, on: sql)
            changes.record(.jobs)
            return (export, entry)
        }
    }

    /// The person's exports, newest first.
    func exports(of user: UUID) async throws -> [DataExport] { try await store.exports(of: user) }

    /// Builds the archive (the job): what the person's rows say, as JSON files, and the
    /// photos they uploaded; keeps it until it expires, and tells them where it is.
    func build(_ id: UUID) async throws {
        guard let export = try await store.export(id), export.status == .pending else { return }
        let (sections, photos) = try await store.rows(of: export.userID)
        let now = clock.now()
        var zip = ZipArchive()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var size = 0
        for section in sections {
            let json = Array(try encoder.encode(section.rows))
            size += json.count
            zip.add("\(section.file).json", json, modified: now)
        }
        var included = 0
        var left: [UUID] = []
        for photo in photos {
            guard included < Self.maxPhotos, let read = try await blobs.get(photo.key, range: nil) else {
                left.append(photo.id)
                continue
            }
            guard size + read.bytes.count <= Self.maxBytes else {
                left.append(photo.id)
                continue
            }
            size += read.bytes.count
            included += 1
            zip.add("photos/\(photo.id.lowercased).jpg", read.bytes, modified: now)
        }
        zip.add("README.txt", Array(Self.readme(sections.map(\.file), photos: included, left: left, at: now).utf8), modified: now)
        let archive = zip.bytes
        let expiresAt = now.addingTimeInterval(Self.lifetime).wholeMilliseconds
        try await write { [store, scheduler, notifier] sql, changes in
            guard try await store.finish(id, archive: archive, at: now, expiresAt: expiresAt, on: sql) else { return }
            _ = try await scheduler.schedule(
                .exportExpiry(export: id, user: export.userID), dedupeKey: "export_expiry:\(id.lowercased)",
                after: expiresAt.timeIntervalSince(now), on: sql)
            try await notifier.dataExportReady(
                id, to: export.userID, path: path(id, expiresAt: expiresAt), expiresAt: expiresAt, size: archive.count, at: now, on: sql,
                changes: &changes)
            if mailLinks != nil { try await notifier.mailExportLink(id, on: sql, changes: &changes) }
        }
    }

    /// The mail carrying a ready archive's link (the mail job composes it when it sends):
    /// nil once the archive expired, or for an account erased or without a verified email
    /// (the link opens the archive to whoever holds it: never to an address nobody confirmed).
    func mail(for id: UUID) async throws -> MailMessage? {
        let now = clock.now()
        guard let base = mailLinks, let export = try await store.export(id), export.status == .ready,
            let expiresAt = export.expiresAt, expiresAt > now, let person = try await accounts.user(export.userID),
            !person.isDeleted, !person.email.isEmpty, person.emailVerified
        else { return nil }
        let arguments: [String: MessageArgument] = [
            "link": .text(base + path(id, expiresAt: expiresAt)),
            "days": .number(max(1, (expiresAt.timeIntervalSince(now) / 86_400).rounded(.down))),
            "date": .text(RFC3339.format(expiresAt)),
        ]
        return MailMessage(
            to: person.email, subject: Catalogue.text(.exportMailSubject, in: person.language),
            text: Catalogue.text(.exportMailText, arguments, in: person.language))
    }

    /// Drops an archive whose time is up (the job).
    func expire(_ id: UUID) async throws {
        try await write { [store] sql, _ in try await store.expire(id, on: sql) }
    }

    /// Where a ready export is downloaded: a link signed until it expires.
    func path(_ id: UUID, expiresAt: Date) -> String {
        let expires = Int(expiresAt.timeIntervalSince1970)
        return "/v1/exports/\(id.lowercased)?expires=\(expires)&signature=\(signature(id, expires: expires))"
    }

    private func signature(_ id: UUID, expires: Int) -> String {
        HMAC<SHA256>.authenticationCode(for: Self.signed(id, expires: expires), using: SymmetricKey(data: secret)).hexString
    }

    /// What a link's signature covers: the export and the end of its validity.
    private static func signed(_ id: UUID, expires: Int) -> [UInt8] { Array("export\n\(id.lowercased)\n\(expires)".utf8) }

    /// The archive behind a signed link: 404 for a wrong signature, an expired link or an
    /// archive dropped already.
    func download(_ id: UUID, expires: String?, signature given: String?) async throws -> [UInt8] {
        guard let expires = expires.flatMap(Int.init), let given, given.utf8.count == 64,
            Double(expires) > clock.now().timeIntervalSince1970,
            HMAC<SHA256>.isValidAuthenticationCode(
                Hex.bytes(given) ?? [], authenticating: Self.signed(id, expires: expires),
                using: SymmetricKey(data: secret)),
            let archive = try await store.archive(id)
        else { throw DomainError.notFound(.export) }
        return archive
    }

    static func readme(_ files: [String], photos: Int, left: [UUID], at now: Date) -> String {
        """
        Your SportLook data, as the service held it on \(RFC3339.format(now)).

        Each .json file is one kind of thing, as a list of records (times in UTC, RFC 3339):
        \(files.map { "  \($0).json" }.joined(separator: "\n"))
        photos/ holds the \(photos) photo\(photos == 1 ? "" : "s") you uploaded, as the service keeps them.
        \(left.isEmpty ? "" : "Left out (past the archive's 1 GiB, or no longer stored): \(left.map(\.lowercased).joined(separator: ", "))\n")
        Messages of other people in your chats are theirs and are not here.
        """
    }
}
