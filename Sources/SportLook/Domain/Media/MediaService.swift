import Crypto
import Foundation
import Imaging
import Logging
import Metrics
import NIOPosix
import Synchronization

/// Uploads: checked, processed off the event loops on a bounded pool, stored as
/// content-addressed JPEGs, recorded; and their life cycle (attaching, replacing,
/// clearing up what nothing uses).
struct MediaService: Sendable {
    struct Settings: Sendable {
        /// The largest body accepted, in bytes.
        var maxBytes = 10_000_000
        /// The largest width × height accepted (checked before decoding).
        var maxPixels = 40_000_000
        /// Uploads per user per hour (0: not limited).
        var uploadsPerHour = 60
        /// JPEG quality of the variants.
        var quality = 88
        /// How long an upload may wait to be put to use before it is deleted.
        var unattachedLifetime: TimeInterval = 86_400
        /// Uploads this instance holds at once (bodies being read, waiting or being
        /// processed); beyond, 503 with `Retry-After`, before the body is read.
        var inFlightLimit = 16
        /// Uploads one user may have in flight at once; beyond, 429.
        var inFlightPerUser = 2
        /// Bytes of stored images one person may keep, every variant counted (0: no cap); beyond, 413.
        var maxBytesPerUser = 500_000_000
        /// The slowest a body may arrive once ``uploadGrace`` has passed, in bytes a second on average.
        var minUploadRate = 16_384
        /// Seconds a body may take before ``minUploadRate`` applies.
        var uploadGrace: TimeInterval = 10
        /// Seconds a whole body may take, however fast it arrives.
        var uploadTimeout: TimeInterval = 120

        /// Uploads one client network may have in flight at once: a fair share, a
        /// quarter of the places (at least 2), so that one address — however many
        /// accounts it signs in — leaves three quarters to everyone else. An IPv6
        /// client counts by its /48 here (``ClientAddress/networkKey(_:)``): a cheap
        /// server comes with a /56 or more, that is many /64s.
        var inFlightPerAddress: Int { max(2, inFlightLimit / 4) }

        /// The pace an upload's body starting at `start` must keep.
        func pace(from start: Date) -> UploadPace {
            UploadPace(start: start, grace: uploadGrace, minRate: minUploadRate, limit: max(uploadGrace, uploadTimeout))
        }
    }

    /// Uploads admitted and not finished: in all, per user and per client address.
    final class UploadPlaces: Sendable {
        struct Held {
            var total = 0
            var perUser: [UUID: Int] = [:]
            var perAddress: [String: Int] = [:]
        }
        let state = Mutex(Held())

        /// Places held now (for tests and metrics).
        var total: Int { state.withLock { $0.total } }
    }

    /// A place for one upload, held from before its body is read until it is stored.
    struct Ticket: Sendable {
        let admission: UploadPlaces
        let owner: UUID
        let address: String

        func release() {
            admission.state.withLock { state in
                state.total -= 1
                state.perUser[owner] = Self.less(state.perUser[owner])
                state.perAddress[address] = Self.less(state.perAddress[address])
            }
        }

        private static func less(_ count: Int?) -> Int? {
            let left = (count ?? 1) - 1
            return left > 0 ? left : nil
        }
    }

    let media: MediaStore
    let blobs: any BlobStore
    let write: Writer
    let clock: any AppClock
    let settings: Settings
    /// Decoding and encoding threads: as many as the machine has cores, so uploads
    /// queue rather than take the event loops' or the cooperative pool's threads.
    let workers: NIOThreadPool
    let logger: Logger
    let admission = UploadPlaces()

    /// The variants made for each use, largest first.
    static func variants(for use: MediaUse) -> [VariantSpec] {
        switch use {
        case .profile: [VariantSpec("512", .square(512)), VariantSpec("128", .square(128))]
        case .cover: [VariantSpec("1280", .width(1280)), VariantSpec("480", .width(480))]
        case .chat: [VariantSpec("2048", .longSide(2048)), VariantSpec("320", .longSide(320))]
        }
    }

    /// Admits an upload of `owner`, sent from `address` (its throttle key), before its
    /// body is read: within the hourly quota and the stored bytes' cap, the user's,
    /// the address's and this instance's uploads in flight. Release the ticket when done.
    func admit(_ owner: UUID, from address: String) async throws -> Ticket {
        try await checkQuota(of: owner)
        try checkStorage(used: try await media.storedBytes(of: owner), adding: 0)
        let refusal: DomainError? = admission.state.withLock { state in
            if state.perUser[owner, default: 0] >= settings.inFlightPerUser {
                return DomainError.tooManyRequests(
                    retryAfter: 2, code: "uploads_in_progress", message: Sentence("Wait for your other uploads to finish."))
            }
            if state.perAddress[address, default: 0] >= settings.inFlightPerAddress {
                return DomainError.tooManyRequests(
                    retryAfter: 2, code: "uploads_in_progress",
                    message: Sentence("\(settings.inFlightPerAddress) uploads from your network are in progress; wait for one to finish."))
            }
            if state.total >= settings.inFlightLimit {
                return DomainError(
                    .unavailable, code: "busy", message: Sentence("Too many uploads are being processed; try again in a moment."),
                    retryAfter: 2)
            }
            state.total += 1
            state.perUser[owner, default: 0] += 1
            state.perAddress[address, default: 0] += 1
            return nil
        }
        if let refusal {
            Counter(label: "sportlook_media_refused_total", dimensions: [("reason", "busy")]).increment()
            throw refusal
        }
        let ticket = Ticket(admission: admission, owner: owner, address: address)
        // Every upload admitted counts towards the hour's, stored, abandoned or refused alike:
        // a place held costs its holder whatever the body turns out to be.
        if settings.uploadsPerHour > 0 {
            let now = clock.now()
            do {
                try await write { [media] sql, _ in try await media.logUpload(by: owner, at: now, on: sql) }
            } catch {
                ticket.release()
                throw error
            }
        }
        return ticket
    }

    /// Refuses an upload that would take the person's stored images past their cap
    /// (413, with the figures).
    private func checkStorage(used: Int, adding: Int) throws {
        let cap = settings.maxBytesPerUser
        guard cap > 0, used + adding > cap || (adding == 0 && used >= cap) else { return }
        Counter(label: "sportlook_media_refused_total", dimensions: [("reason", "storage")]).increment()
        throw DomainError(
            .tooLarge, code: "storage_full",
            message: adding > 0
                ? Sentence(
                    "Your photos take \(Self.megabytes(used)) of the \(Self.megabytes(cap)) you may keep; this one needs \(Self.megabytes(adding)). Delete photos (or the messages that carry them) to make room."
                )
                : Sentence(
                    "Your photos take \(Self.megabytes(used)) of the \(Self.megabytes(cap)) you may keep. Delete photos (or the messages that carry them) to make room."
                ))
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    /// Processes and stores an upload of `owner` (admitted with ``admit(_:)``).
    func upload(_ bytes: [UInt8], use: MediaUse, by owner: UUID) async throws -> Media {
        let started = ContinuousClock.now
        let settings = self.settings
        let processed: ProcessedImage
        let keys: [String]
        do {
            (processed, keys) = try await workers.runIfActive {
                let processed = try ImagePipeline.process(
                    bytes, variants: Self.variants(for: use), maxPixels: settings.maxPixels, quality: settings.quality)
                // The variants' keys are their SHA-256: hashed here too, not on the request's event loop.
                return (processed, processed.variants.map { blobKey(for: $0.jpeg, use: use) })
            }
        } catch let error as ImageError {
            Counter(label: "sportlook_media_refused_total", dimensions: [("reason", Self.reason(error))]).increment()
            throw Self.refusal(error, maxPixels: settings.maxPixels)
        }
        let variants = zip(processed.variants, keys).map { variant, key in
            MediaVariant(name: variant.name, key: key, width: variant.width, height: variant.height, bytes: variant.jpeg.count)
        }
        let upload = Media(
            id: UUID(), ownerID: owner, use: use, width: processed.width, height: processed.height,
            bytes: variants.reduce(0) { $0 + $1.bytes }, createdAt: clock.now(), attachedAt: nil, variants: variants)
        // The rows first, under the keys' locks, then the bytes, outside any transaction:
        // a removal of the same bytes (another upload's, deleted meanwhile) either ran
        // before and the bytes are written again, or sees these rows and keeps them.
        // Should storing fail, the rows go.
        try await write { [media] sql, _ in
            // Under the owner's lock, so two uploads at once cannot both pass the cap.
            try checkStorage(used: try await media.lockStoredBytes(of: owner, on: sql), adding: upload.bytes)
            try await media.lockBlobs(variants.map(\.key), on: sql)
            try await media.insert(upload, on: sql)
            try await media.forgetGarbage(variants.map(\.key), on: sql)
        }
        do {
            for (variant, encoded) in zip(variants, processed.variants) {
                try await blobs.put(variant.key, bytes: encoded.jpeg, contentType: "image/jpeg")
            }
        } catch {
            let attachments = MediaAttachments(store: media, blobs: blobs)
            let keys = try? await write { sql, _ in try await attachments.release([upload.id], on: sql) }
            await attachments.removeBlobs(keys ?? [])
            throw error
        }
        Counter(label: "sportlook_media_uploads_total", dimensions: [("use", use.rawValue), ("format", processed.format.rawValue)])
            .increment()
        Counter(label: "sportlook_media_upload_bytes_total").increment(by: bytes.count)
        let elapsed = ContinuousClock.now - started
        Timer(label: "sportlook_media_processing_seconds").recordNanoseconds(
            elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        return upload
    }

    /// A stored variant's size, or nil when there is none (`GET /media/{key}`).
    func storedSize(_ key: String) async throws -> Int? {
        guard isBlobKey(key) else { return nil }
        return try await blobs.size(key)
    }

    /// Whether a chat image's key still belongs to an upload (a deleted message's
    /// image is served no more, whatever links to it are still unexpired).
    func isServed(_ key: String) async throws -> Bool {
        try await media.isReferenced(key)
    }

    /// A stored variant's bytes within `range` (all of them when nil).
    func read(_ key: String, range: ClosedRange<Int>?) async throws -> BlobRead? {
        guard isBlobKey(key) else { return nil }
        return try await blobs.get(key, range: range)
    }

    /// The caller's upload, for `GET /v1/media/{id}`.
    func upload(_ id: UUID, of owner: UUID) async throws -> Media {
        guard let found = try await media.media(id), found.ownerID == owner else { throw DomainError.notFound(.media) }
        return found
    }

    func checkQuota(of owner: UUID) async throws {
        guard settings.uploadsPerHour > 0 else { return }
        let recent = try await media.uploads(by: owner, since: clock.now().addingTimeInterval(-3_600))
        if recent >= settings.uploadsPerHour {
            Counter(label: "sportlook_media_refused_total", dimensions: [("reason", "quota")]).increment()
            throw DomainError.tooManyRequests(
                retryAfter: 600, code: "upload_quota",
                message: Sentence("At most \(settings.uploadsPerHour) uploads an hour; try again later."))
        }
    }

    /// Deletes uploads nobody put to use within their lifetime, `limit` at a time;
    /// returns how many uploads and blobs went.
    func collectUnattached(limit: Int = 500) async throws -> (media: Int, blobs: Int) {
        let removed = try await Self.collectUnattached(
            store: media, blobs: blobs, before: clock.now().addingTimeInterval(-settings.unattachedLifetime), limit: limit)
        try await media.pruneUploadLog(before: clock.now().addingTimeInterval(-3_600))
        if removed.media > 0 {
            logger.info("unattached uploads removed", metadata: ["media": "\(removed.media)", "blobs": "\(removed.blobs)"])
        }
        return removed
    }

    /// Deletes uploads never put to use and created before `before` (the server's
    /// collector and `sportlook media gc`). Nothing shows such an upload, so no cache
    /// needs telling.
    /// Then removes the blobs still queued by a removal that failed or never ran (a
    /// deletion answered 503 that committed later, a crash after a commit).
    static func collectUnattached(store: MediaStore, blobs: any BlobStore, before: Date, limit: Int) async throws -> (
        media: Int, blobs: Int
    ) {
        let ids = try await store.unattached(before: before, limit: limit)
        let attachments = MediaAttachments(store: store, blobs: blobs)
        var released: [UUID] = []
        var removed = 0
        if !ids.isEmpty {
            // One transaction: the re-check locks the rows until the deletion commits, so
            // an upload attached meanwhile is either seen attached or waits and fails.
            let (gone, keys) = try await store.database.transaction { sql in
                let unused = try await store.lockUnattached(ids, on: sql)
                return (unused, try await attachments.release(unused, on: sql))
            }
            released = gone
            removed += await attachments.removeBlobs(keys)
        }
        removed += await attachments.removeBlobs(try await store.garbage(limit: limit))
        return (released.count, removed)
    }

    static func reason(_ error: ImageError) -> String {
        switch error {
        case .unsupported: "type"
        case .malformed: "damaged"
        case .tooManyPixels: "pixels"
        }
    }

    static func refusal(_ error: ImageError, maxPixels: Int) -> DomainError {
        switch error {
        case .unsupported(let name?):
            DomainError(.invalid, code: "unsupported_image", message: Sentence("\(name) images are not accepted; send a JPEG or a PNG."))
        case .unsupported(nil):
            DomainError(.invalid, code: "unsupported_image", message: Sentence("The body is not a JPEG or PNG image."))
        case .malformed(let detail):
            DomainError(.invalid, code: "invalid_image", message: Sentence("The image cannot be read (\(detail.prefix(120)))."))
        case .tooManyPixels(let width, let height):
            DomainError(
                .invalid, code: "image_too_large",
                message: Sentence("The image has \(width) × \(height) pixels; at most \(maxPixels / 1_000_000) million are accepted."))
        }
    }
}
