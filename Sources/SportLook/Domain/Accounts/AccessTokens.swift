import Crypto
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Access tokens: 256 random bits, base64url, of which only the SHA-256 is stored.
enum AccessToken {
    /// A new token.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return bytes.base64URLEncodedString()
    }

    /// What the database stores for a token: its SHA-256, in hex.
    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hexString
    }

    /// A token's SHA-256 as it is, 32 bytes: what the authenticator's cache is keyed by,
    /// hashed and compared without the 64 characters of hex every request built.
    struct Digest: Hashable, Sendable {
        private let a, b, c, d: UInt64

        init(_ token: String) {
            var token = token
            let digest = token.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
            (a, b, c, d) = digest.withUnsafeBytes { raw in
                (
                    raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                )
            }
        }

        /// What the database stores (``AccessToken/digest(_:)``).
        var hex: String { withUnsafeBytes(of: (a, b, c, d)) { $0.hexString } }
    }

    /// Whether a string can be a token at all (43 base64url characters).
    static func isWellFormed(_ token: String) -> Bool {
        // Through its contiguous bytes: the UTF-8 view's iterator cost 40 instructions a character.
        var token = token
        return token.utf8.count == 43 && token.withUTF8 { $0.allSatisfy(\.isBase64URL) }
    }
}

/// Resolves bearer tokens to identities with an in-memory cache, so an
/// authenticated request costs no database read, and records `last_used_at`
/// in batches, so it costs no write either.
///
/// A revoked token is dropped from this instance's cache at once, and from every
/// other instance's as soon as the bus tells them; a cached entry is re-checked
/// against the database after ``recheckInterval`` in any case.
public final class TokenAuthenticator: Sendable {
    private struct Entry {
        var identity: Identity
        var expiresAt: Date
        var checkedAt: Date
    }

    private struct State {
        var cache: [AccessToken.Digest: Entry] = [:]
        /// Each cached session's digest, so that forgetting one costs no scan.
        var digests: [UUID: AccessToken.Digest] = [:]
        var pendingUse: [UUID: Date] = [:]

        mutating func keep(_ digest: AccessToken.Digest, _ entry: Entry) {
            if cache.count >= TokenAuthenticator.maxEntries {
                cache.removeAll(keepingCapacity: true)
                digests.removeAll(keepingCapacity: true)
            }
            cache[digest] = entry
            digests[entry.identity.tokenID] = digest
        }
    }

    /// How long a cached token is trusted before the database is asked again.
    static let recheckInterval: TimeInterval = 60
    fileprivate static let maxEntries = 200_000

    private let sessions: SessionStore
    private let clock: any AppClock
    private let state = Mutex(State())
    /// One flush at a time: a flush returns once what was gathered before it is
    /// written, also when another (the half-minute one) had taken it.
    private let flushing = AsyncSerialLock()

    init(sessions: SessionStore, clock: any AppClock) {
        self.sessions = sessions
        self.clock = clock
    }

    /// The identity a token stands for, or `nil` if it is unknown, expired or revoked;
    /// 403 `account_suspended` for a session its account's suspension ended.
    public func identity(for token: String) async throws -> Identity? {
        guard AccessToken.isWellFormed(token) else { return nil }
        let digest = AccessToken.Digest(token)
        let now = clock.now()
        if let cached = cached(digest, at: now) { return cached }
        guard let record = try await sessions.token(hash: digest.hex), record.expiresAt > now else { return nil }
        guard record.revokedAt == nil else {
            // A session a suspension ended says so, rather than looking unknown.
            if record.suspended(at: now) { throw DomainError.accountSuspended(until: record.suspendedUntil) }
            return nil
        }
        let identity = Identity(userID: record.userID, tokenID: record.id, expiresAt: record.expiresAt)
        state.withLock { s in
            s.keep(digest, Entry(identity: identity, expiresAt: record.expiresAt, checkedAt: now))
            s.pendingUse[record.id] = now
        }
        return identity
    }

    /// Keeps a token this instance has just issued, so that its first use costs no
    /// database read and is rate-limited as its user's (``cachedIdentity(for:)``).
    func remember(_ token: String, as identity: Identity) {
        let digest = AccessToken.Digest(token)
        let now = clock.now()
        state.withLock { s in s.keep(digest, Entry(identity: identity, expiresAt: identity.expiresAt, checkedAt: now)) }
    }

    /// The identity of a token this instance has checked recently, without asking
    /// the database (`nil` when it would have to): for rate limiting before lookup.
    func cachedIdentity(for token: String) -> Identity? {
        guard AccessToken.isWellFormed(token) else { return nil }
        return cached(AccessToken.Digest(token), at: clock.now())
    }

    /// The cached identity of a digest still trusted at `now` (its use noted), or nil
    /// (an expired or stale entry is dropped).
    private func cached(_ digest: AccessToken.Digest, at now: Date) -> Identity? {
        state.withLock { s in
            guard let entry = s.cache[digest] else { return nil }
            guard entry.expiresAt > now, now.timeIntervalSince(entry.checkedAt) < Self.recheckInterval else {
                s.cache[digest] = nil
                s.digests[entry.identity.tokenID] = nil
                return nil
            }
            s.pendingUse[entry.identity.tokenID] = now
            return entry.identity
        }
    }

    /// Forgets a token at once (after logout or a revoked session).
    public func forget(tokenID: UUID) {
        state.withLock { s in
            if let digest = s.digests.removeValue(forKey: tokenID) { s.cache[digest] = nil }
            s.pendingUse[tokenID] = nil
        }
    }

    /// When each token was last used, as far as this instance has seen and not yet written.
    func unwrittenUse() -> [UUID: Date] {
        state.withLock { $0.pendingUse }
    }

    /// Writes the last-use times gathered since the previous flush.
    func flush() async {
        try? await flushing.withLock {
            let uses = state.withLock { s -> [UUID: Date] in
                defer { s.pendingUse = [:] }
                return s.pendingUse
            }
            do {
                try await sessions.recordTokenUse(uses)
            } catch {
                // Put them back for the next round; last-use times are advisory.
                state.withLock { s in s.pendingUse.merge(uses) { max($0, $1) } }
            }
        }
    }
}

/// Flushes token last-use times every half minute, and once more on shutdown.
struct TokenUseFlusher: Service {
    let tokens: TokenAuthenticator

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .seconds(30))
                await tokens.flush()
            }
        }
        await tokens.flush()
    }
}
