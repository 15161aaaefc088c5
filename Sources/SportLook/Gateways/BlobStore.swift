import Crypto
import Foundation

/// Where uploaded media bytes live: a folder on disk or an S3-compatible bucket.
///
/// Keys are content-addressed (the SHA-256 of the bytes, in hex, and an extension), so
/// a stored object never changes: instances share a store without coordination, any
/// cache may keep an object for ever, and writing the same bytes twice is harmless.
protocol BlobStore: Sendable {
    /// Stores `bytes` under `key` (replacing nothing: the same key means the same bytes).
    func put(_ key: String, bytes: [UInt8], contentType: String) async throws
    /// The bytes under `key` within `range` (all of them when nil), and the object's
    /// whole size; nil when there is no such object.
    func get(_ key: String, range: ClosedRange<Int>?) async throws -> BlobRead?
    /// The object's size, or nil when there is no such object.
    func size(_ key: String) async throws -> Int?
    /// Removes the object; removing a missing one is not an error.
    func delete(_ key: String) async throws
    /// Every key stored, in key order (for audits and tests: it reads the whole store).
    func keys() async throws -> [String]
}

/// Bytes read from a blob store.
struct BlobRead: Sendable {
    var bytes: [UInt8]
    /// The whole object's size (more than `bytes.count` for a range).
    var totalSize: Int
}

/// Whether `key` is one the service makes: 64 lowercase hex digits, then `.jpg` (public
/// images) or `.chat.jpg` (chat images, served only through signed links).
/// Anything else never reaches a store (no path can be named through it).
func isBlobKey(_ key: some StringProtocol) -> Bool {
    let parts = key.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2 || (parts.count == 3 && parts[1] == "chat"), parts[0].utf8.count == 64, parts.last == "jpg" else { return false }
    return parts[0].utf8.allSatisfy {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
    }
}

/// Whether the blob is a chat image: served to the chat's members only, through links
/// signed with an expiry (see `MediaLinks`). Its key's form differs from public images',
/// so knowing a chat image's key never opens it without a signature.
func isPrivateBlobKey(_ key: some StringProtocol) -> Bool {
    key.hasSuffix(".chat.jpg")
}

/// The key of a variant's bytes: their SHA-256, and the extension of the use's kind.
func blobKey(for jpeg: [UInt8], use: MediaUse) -> String {
    SHA256.hash(data: jpeg).hexString + (use == .chat ? ".chat.jpg" : ".jpg")
}
