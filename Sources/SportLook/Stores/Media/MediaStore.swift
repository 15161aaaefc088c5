import Foundation
import SQLKit

/// Uploads and their variants.
struct MediaStore: Store {
    let database: Database

    func insert(_ media: Media, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO media (id, owner_id, use, width, height, bytes, created_at)
            VALUES (\(bind: media.id), \(bind: media.ownerID), \(bind: media.use.rawValue), \(bind: media.width), \(bind: media.height), \(bind: media.bytes), \(bind: media.createdAt))
            """
        ).run()
        for (position, variant) in media.variants.enumerated() {
            try await sql.raw(
                """
                INSERT INTO media_variants (media_id, name, key, width, height, bytes, position)
                VALUES (\(bind: media.id), \(bind: variant.name), \(bind: variant.key), \(bind: variant.width), \(bind: variant.height), \(bind: variant.bytes), \(bind: position))
                """
            ).run()
        }
    }

    func media(_ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> Media? {
        try await reading(on: sql) { sql in try await Self.read(id, on: sql) }
    }

    private static func read(_ id: UUID, on sql: any SQLDatabase) async throws -> Media? {
        guard
            let row = try await sql.raw(
                "SELECT id, owner_id, use, width, height, bytes, created_at, attached_at FROM media WHERE id = \(bind: id)"
            ).first()
        else { return nil }
        let variants = try await sql.raw(
            "SELECT name, key, width, height, bytes FROM media_variants WHERE media_id = \(bind: id) ORDER BY position"
        ).all().map {
            MediaVariant(
                name: try $0.value("name"), key: try $0.value("key"), width: try $0.value("width"), height: try $0.value("height"),
                bytes: try $0.value("bytes"))
        }
        return Media(
            id: try row.value("id"), ownerID: try row.value("owner_id"), use: MediaUse(rawValue: try row.value("use")) ?? .chat,
            width: try row.value("width"), height: try row.value("height"), bytes: try row.value("bytes"),
            createdAt: try row.value("created_at"), attachedAt: try row.optional("attached_at"), variants: variants)
    }

    /// Counts an upload admitted (whatever becomes of it) towards `owner`'s hourly quota.
    func logUpload(by owner: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw("INSERT INTO media_upload_log (owner_id, created_at) VALUES (\(bind: owner), \(bind: now))").run()
    }

    /// Uploads by `owner` since `since`, for the hourly quota.
    func uploads(by owner: UUID, since: Date) async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM media_upload_log WHERE owner_id = \(bind: owner) AND created_at > \(bind: since)")
                .first()?.value("n") ?? 0
        }
    }

    /// Bytes of every variant of the owner's uploads.
    func storedBytes(of owner: UUID, on sql: (any SQLDatabase)? = nil) async throws -> Int {
        try await reading(on: sql) { sql in try await Self.storedBytes(of: owner, on: sql) }
    }

    /// ``storedBytes(of:on:)`` with the owner's row locked until the transaction ends
    /// (SQLite's writer is the lock there), so uploads of one person pass the cap one at a time.
    func lockStoredBytes(of owner: UUID, on sql: any SQLDatabase) async throws -> Int {
        if sql.isPostgres { try await sql.raw("SELECT id FROM users WHERE id = \(bind: owner) FOR UPDATE").run() }
        return try await Self.storedBytes(of: owner, on: sql)
    }

    private static func storedBytes(of owner: UUID, on sql: any SQLDatabase) async throws -> Int {
        try await sql.raw("SELECT CAST(COALESCE(SUM(bytes), 0) AS BIGINT) AS n FROM media WHERE owner_id = \(bind: owner)").first()?.value(
            "n") ?? 0
    }

    /// Marks an unused upload in use; false when it is gone or already in use (a
    /// concurrent attach or clean-up got there first: the row is locked by the update).
    func markAttached(_ id: UUID, at now: Date, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("UPDATE media SET attached_at = \(bind: now) WHERE id = \(bind: id) AND attached_at IS NULL RETURNING id").first()
            != nil
    }

    /// Forgets quota entries older than `before`.
    func pruneUploadLog(before: Date) async throws {
        try await database.write { sql in try await sql.raw("DELETE FROM media_upload_log WHERE created_at < \(bind: before)").run() }
    }

    /// Uploads never put to use, created before `before`, oldest first.
    func unattached(before: Date, limit: Int) async throws -> [UUID] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT id FROM media WHERE attached_at IS NULL AND created_at < \(bind: before) ORDER BY created_at LIMIT \(bind: limit)"
            ).all().map { try $0.value("id") }
        }
    }

    /// Of `ids`, those still not put to use, their rows locked until the caller's
    /// transaction ends (the clean-up's choice, checked again).
    func lockUnattached(_ ids: [UUID], on sql: any SQLDatabase) async throws -> [UUID] {
        guard !ids.isEmpty else { return [] }
        return try await sql.raw("UPDATE media SET bytes = bytes WHERE id IN (\(binds: ids)) AND attached_at IS NULL RETURNING id").all()
            .map { try $0.value("id") }
    }

    /// Every upload of `owner`.
    func owned(by owner: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        try await sql.raw("SELECT id FROM media WHERE owner_id = \(bind: owner)").all().map { try $0.value("id") }
    }

    /// Deletes the uploads' rows and returns the keys no remaining upload uses: the
    /// blobs the caller may now remove (``removeBlob(_:using:)``), queued in
    /// `media_garbage` in the same transaction so that a failure after the commit leaves
    /// them for the collector. (Keys are content-addressed, so two uploads of the same
    /// bytes share one.)
    func delete(_ ids: [UUID], on sql: any SQLDatabase) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        let keys = Set(
            try await sql.raw("SELECT key FROM media_variants WHERE media_id IN (\(binds: ids))").all().map {
                try $0.value("key", as: String.self)
            })
        try await sql.raw("UPDATE users SET photo_id = NULL, photo_variants = NULL WHERE photo_id IN (\(binds: ids))").run()
        try await sql.raw("UPDATE events SET cover_id = NULL, cover_variants = NULL WHERE cover_id IN (\(binds: ids))").run()
        try await sql.raw("UPDATE sport_groups SET cover_id = NULL, cover_variants = NULL WHERE cover_id IN (\(binds: ids))").run()
        try await sql.raw(
            """
            UPDATE chat_messages SET attachment_id = NULL, attachment_variants = NULL, attachment_width = NULL, attachment_height = NULL
            WHERE attachment_id IN (\(binds: ids))
            """
        ).run()
        try await sql.raw("DELETE FROM media_variants WHERE media_id IN (\(binds: ids))").run()
        try await sql.raw("DELETE FROM media WHERE id IN (\(binds: ids))").run()
        guard !keys.isEmpty else { return [] }
        let kept = Set(
            try await sql.raw("SELECT DISTINCT key FROM media_variants WHERE key IN (\(binds: Array(keys)))").all().map {
                try $0.value("key", as: String.self)
            })
        let orphans = keys.subtracting(kept).sorted()
        let now = Date()
        for key in orphans {
            try await sql.raw("INSERT INTO media_garbage (key, queued_at) VALUES (\(bind: key), \(bind: now)) ON CONFLICT (key) DO NOTHING")
                .run()
        }
        return orphans
    }

    /// Where the upload `id` shows, or — given the id of a person, event or group — the
    /// upload that shows as its photo or cover, and where: a chat message's image (not a
    /// deleted message's), a live person's photo, an event's cover, an open group's cover.
    func shown(_ id: UUID, on sql: any SQLDatabase) async throws -> (media: UUID, place: PhotoPlace)? {
        if let row = try await sql.raw(
            "SELECT room_id, seq FROM chat_messages WHERE attachment_id = \(bind: id) AND deleted_at IS NULL LIMIT 1"
        ).first() {
            return (id, .message(room: try row.value("room_id"), seq: try row.value("seq")))
        }
        let owners: [(table: String, column: String, live: String, place: (UUID) -> PhotoPlace)] = [
            ("users", "photo_id", "deleted_at IS NULL", { .profile(person: $0) }),
            ("events", "cover_id", "1 = 1", { .event($0) }),
            ("sport_groups", "cover_id", "status = 'active'", { .group($0) }),
        ]
        for owner in owners {
            for match in [owner.column, "id"] {
                if let row = try await sql.raw(
                    """
                    SELECT id, \(unsafeRaw: owner.column) AS media FROM \(unsafeRaw: owner.table)
                    WHERE \(unsafeRaw: match) = \(bind: id) AND \(unsafeRaw: owner.column) IS NOT NULL AND \(unsafeRaw: owner.live) LIMIT 1
                    """
                ).first() {
                    return (try row.value("media"), owner.place(try row.value("id")))
                }
            }
        }
        return nil
    }

    // MARK: Blobs and their rows

    /// Takes the keys' locks for the rest of the caller's transaction. An upload takes
    /// them in the transaction that inserts its rows, and writes its bytes after that
    /// commits, outside any transaction; a removal takes them to check that no row
    /// names a key and delete its bytes. So a removal either finishes before an
    /// upload's rows are in (and the upload writes the bytes afterwards) or sees
    /// those rows and keeps the bytes; and a slow blob store's PUT holds no lock, no
    /// transaction and no SQLite writer. On PostgreSQL, transaction-scoped advisory
    /// locks (instances share the store); on SQLite, the single writer the
    /// transaction holds (which every process shares).
    func lockBlobs(_ keys: [String], on sql: any SQLDatabase) async throws {
        guard database.engine == .postgres else { return }
        for key in Set(keys).sorted() { try await sql.raw("SELECT pg_advisory_xact_lock(hashtextextended(\(bind: key), 0))").run() }
    }

    /// Whether any upload's variant is stored under `key`.
    func isReferenced(_ key: String, on sql: (any SQLDatabase)? = nil) async throws -> Bool {
        try await reading(on: sql) { sql in
            try await sql.raw("SELECT 1 AS n FROM media_variants WHERE key = \(bind: key) LIMIT 1").first() != nil
        }
    }

    /// Takes keys off the removal queue (removed, or in use again).
    func forgetGarbage(_ keys: [String], on sql: any SQLDatabase) async throws {
        guard !keys.isEmpty else { return }
        try await sql.raw("DELETE FROM media_garbage WHERE key IN (\(binds: keys))").run()
    }

    /// Keys still queued for removal (a removal that failed or never ran), oldest first.
    func garbage(limit: Int) async throws -> [String] {
        try await database.read { sql in
            try await sql.raw("SELECT key FROM media_garbage ORDER BY queued_at LIMIT \(bind: limit)").all().map { try $0.value("key") }
        }
    }
}
