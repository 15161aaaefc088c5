import Foundation

/// Putting uploads to use and letting go of them, inside the transactions of the
/// services that show them (profiles, events, chat messages).
struct MediaAttachments: Sendable {
    let store: MediaStore
    let blobs: any BlobStore

    /// The upload `id` (from the request field `field`), which must be `owner`'s and
    /// made for `use`; marked in use. Inside the caller's transaction.
    func attach(_ id: UUID, use: MediaUse, owner: UUID, field: String, at now: Date, on sql: DatabaseSession) async throws -> MediaRef {
        try await attachUpload(id, use: use, owner: owner, field: field, at: now, on: sql).reference
    }

    /// ``attach(_:use:owner:field:at:on:)``, answering the whole upload (its variants' sizes).
    func attachUpload(_ id: UUID, use: MediaUse, owner: UUID, field: String, at now: Date, on sql: DatabaseSession) async throws -> Media {
        guard let found = try await store.media(id, on: sql), found.ownerID == owner else {
            throw DomainError.invalidParameter(field, Sentence("no upload of yours has this id"))
        }
        guard found.use == use else {
            throw DomainError.invalidParameter(
                field, Sentence("this upload is a \(found.use.rawValue) image; upload one with use=\(use.rawValue)"))
        }
        // One upload shows in one place: replacing it there deletes it.
        guard try await store.markAttached(id, at: now, on: sql) else {
            throw DomainError.invalidParameter(field, Sentence("this upload is already in use; upload the image again"))
        }
        return found
    }

    /// Deletes the uploads' rows (a replaced photo or cover, an account's uploads)
    /// inside the caller's transaction; returns the blob keys to remove once it committed.
    func release(_ ids: [UUID], on sql: DatabaseSession) async throws -> [String] {
        try await store.delete(ids, on: sql)
    }

    /// Removes blobs after the deletion of their rows committed: each under its key's
    /// lock, and only when no upload of the same bytes has named it since. One that
    /// fails stays queued for the collector (``MediaService/collectUnattached(limit:)``).
    /// Returns how many went.
    @discardableResult
    func removeBlobs(_ keys: [String]) async -> Int {
        var removed = 0
        for key in keys {
            // Checked and deleted under the key's lock, in one transaction (see MediaStore.lockBlobs).
            let gone = try? await store.database.transaction { [store, blobs] sql in
                try await store.lockBlobs([key], on: sql)
                let used = try await store.isReferenced(key, on: sql)
                if !used { try await blobs.delete(key) }
                try await store.forgetGarbage([key], on: sql)
                return !used
            }
            if gone == true { removed += 1 }
        }
        return removed
    }

    /// A request's upload id field: a UUID, or a 422 naming the field.
    static func parseID(_ text: String, field: String, into v: inout Validator) -> UUID? {
        guard let id = UUID(text: text) else {
            v.fail(field, Sentence("must be the id of an upload (POST /v1/media)"))
            return nil
        }
        return id
    }
}
