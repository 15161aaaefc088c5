import Foundation
import HummingbirdBcrypt
import NIOPosix

/// bcrypt hashing on threads of its own, never on an event loop or the threads
/// that run SQLite queries: a burst of logins slows logins, not other requests.
public final class PasswordHasher: Sendable {
    /// The bcrypt cost.
    public let cost: Int
    private let pool: NIOThreadPool
    /// A hash of a random password, checked when the email is unknown so that an
    /// unknown email costs the same work as a wrong password.
    private let decoy: String

    /// Creates a hasher with its own threads.
    /// - Parameters:
    ///   - cost: bcrypt cost (4…31).
    ///   - threads: Threads for hashing.
    public init(cost: Int, threads: Int = 2) {
        self.cost = cost
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        self.pool = pool
        self.decoy = Bcrypt.hash(UUID().uuidString, cost: UInt8(cost))
    }

    /// The bcrypt hash of `password`.
    public func hash(_ password: String) async throws -> String {
        let cost = UInt8(self.cost)
        return try await pool.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`; with no hash, the same work against a decoy and `false`.
    public func verify(_ password: String, against hash: String?) async throws -> Bool {
        let target = hash ?? decoy
        let matches = try await pool.runIfActive { Bcrypt.verify(password, hash: target) }
        return hash != nil && matches
    }

    /// Stops the threads.
    public func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}

/// The rules a new password must meet.
public struct PasswordPolicy: Sendable {
    private let common: Set<String>

    /// Loads the list of passwords too common to accept.
    /// - Parameter list: Lines of a file; `#` starts a comment.
    public init(commonPasswords list: String) {
        common = Set(list.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty && !$0.hasPrefix("#") })
    }

    /// Why `password` is not acceptable, or `nil` if it is.
    /// - Parameters:
    ///   - password: The candidate.
    ///   - email: The account's email (a password equal to it is refused).
    public func problem(with password: String, email: String?) -> String? {
        let bytes = password.utf8.count
        if password.utf8.contains(0) { return "must not contain NUL characters" }
        if bytes < 8 { return "must be at least 8 bytes long" }
        if bytes > 72 { return "must be at most 72 bytes long (bcrypt ignores the rest)" }
        let lowered = password.lowercased()
        if common.contains(lowered) { return "is too common; choose another" }
        if let email, lowered == email.lowercased() { return "must not be your email" }
        if Set(password).count == 1 { return "must not repeat one character" }
        return nil
    }
}
