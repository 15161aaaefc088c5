import Foundation
import HummingbirdBcrypt
import NIOPosix
import Synchronization

/// bcrypt hashing on threads of its own, never on an event loop or the threads
/// that run SQLite queries: a burst of logins slows logins, not other requests.
/// The hashing threads run under Linux's idle scheduling class (`SCHED_IDLE`):
/// a thread that answers requests takes the CPU from a hash the moment it wakes,
/// so on a busy machine a read waits for no hash.
public final class PasswordHasher: Sendable {
    /// The bcrypt cost.
    public let cost: Int
    private let pool: NIOThreadPool
    /// A hash of a random password, checked when the email is unknown so that an
    /// unknown email costs the same work as a wrong password.
    private let decoy: String

    /// Hashes waiting or running at most; beyond, ``HashingQueueFull`` at once.
    public let queueLimit: Int
    private let pending = Atomic<Int>(0)
    /// Whether the hashing threads give way to every other thread.
    private let yielding: Bool

    /// Creates a hasher with its own threads.
    /// - Parameters:
    ///   - cost: bcrypt cost (4…31).
    ///   - threads: Threads for hashing.
    ///   - queueLimit: Hashes waiting or running at most (a flood of logins or
    ///     registrations is refused rather than queued without bound).
    ///   - yielding: Whether the hashing threads move to the idle scheduling class.
    public init(cost: Int, threads: Int = 2, queueLimit: Int = 64, yielding: Bool = true) {
        self.cost = cost
        self.queueLimit = max(1, queueLimit)
        self.yielding = yielding
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        self.pool = pool
        self.decoy = Bcrypt.hash(UUID().uuidString, cost: UInt8(cost))
    }

    /// The bcrypt hash of `password`.
    public func hash(_ password: String) async throws -> String {
        let cost = UInt8(self.cost)
        return try await onHashingThread { Bcrypt.hash(password, cost: cost) }
    }

    /// Hashes waiting or running now.
    var inFlight: Int { pending.load(ordering: .relaxed) }

    /// Runs `work` holding a place in the queue as a hash would (tests take the places
    /// without hashing, so how long they are held does not depend on the machine).
    func holdingPlace<R>(_ work: () async throws -> R) async throws -> R { try await bounded(work) }

    /// Runs `work` on a hashing thread (given way to every other thread, unless told not
    /// to) if the queue has room; throws ``HashingQueueFull`` otherwise.
    private func onHashingThread<R: Sendable>(_ work: @escaping @Sendable () -> R) async throws -> R {
        let yielding = self.yielding
        return try await bounded {
            try await pool.runIfActive {
                if yielding { Self.yieldingToRequests() }
                return work()
            }
        }
    }

    /// Runs `work` if the queue has room; throws ``HashingQueueFull`` otherwise.
    private func bounded<R>(_ work: () async throws -> R) async throws -> R {
        guard pending.add(1, ordering: .relaxed).newValue <= queueLimit else {
            pending.subtract(1, ordering: .relaxed)
            throw HashingQueueFull()
        }
        defer { pending.subtract(1, ordering: .relaxed) }
        return try await work()
    }

    /// Whether `password` matches `hash`; with no hash, the same work against a decoy and `false`.
    /// A password bcrypt cannot take (over 72 bytes, or with NUL) matches nothing and costs no work.
    public func verify(_ password: String, against hash: String?) async throws -> Bool {
        guard password.utf8.count <= 72, !password.utf8.contains(0) else { return false }
        let target = hash ?? decoy
        let matches = try await onHashingThread { Bcrypt.verify(password, hash: target) }
        return hash != nil && matches
    }

    /// Puts the calling hashing thread in the idle scheduling class (on Linux each
    /// thread has its own policy, and pid 0 names the calling thread, so only it
    /// changes). Nice 19 was not enough: a woken request thread still waited up to
    /// a scheduler slice behind a hash on its CPU, while a `SCHED_IDLE` thread is
    /// preempted by any other at once. Nice 19 where the idle class is refused.
    /// Costs a system call against a hash's hundreds of milliseconds.
    static func yieldingToRequests() {
        #if os(Linux)
            var parameters = sched_param(sched_priority: 0)
            if sched_setscheduler(0, Self.idleSchedulingClass, &parameters) != 0 {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            }
        #endif
    }

    /// `SCHED_IDLE` of `<linux/sched.h>` (Glibc declares it only under `_GNU_SOURCE`).
    private static let idleSchedulingClass: Int32 = 5

    /// Stops the threads.
    public func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}

/// Every hashing place is taken: the caller answers 503 with `Retry-After`.
public struct HashingQueueFull: Error {}

/// The rules a new password must meet.
public struct PasswordPolicy: Sendable {
    private let common: Set<String>

    /// Loads the list of passwords too common to accept.
    /// - Parameter list: Lines of a file; `#` starts a comment.
    public init(commonPasswords list: String) {
        common = Set(
            list.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter {
                !$0.isEmpty && !$0.hasPrefix("#")
            })
    }

    /// Why `password` is not acceptable, or `nil` if it is.
    /// - Parameters:
    ///   - password: The candidate.
    ///   - email: The account's email (a password equal to it is refused).
    public func problem(with password: String, email: String?) -> Sentence? {
        let bytes = password.utf8.count
        if password.utf8.contains(0) { return Sentence("must not contain NUL characters") }
        if bytes < 8 { return Sentence("must be at least 8 bytes long") }
        if bytes > 72 { return Sentence("must be at most 72 bytes long (bcrypt ignores the rest)") }
        let lowered = password.lowercased()
        if common.contains(lowered) { return Sentence("is too common; choose another") }
        if let email, lowered == email.lowercased() { return Sentence("must not be your email") }
        if Set(password).count == 1 { return Sentence("must not repeat one character") }
        return nil
    }
}
