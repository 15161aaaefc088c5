import Foundation

/// Which work the database may refuse past capacity, decided once for every door
/// a client comes in by (an HTTP request, a socket frame).
///
/// A client's work may be refused before its first write (``DomainError/overloaded``:
/// 503 over HTTP, an `overloaded` frame on a socket, and the client sends it again);
/// once one of its writes got in, the rest wait their turn, so a refusal never leaves
/// half of it written. Work the service owes whatever the load (a socket's presence,
/// which decides who is sent a push) is never refused.
enum Admission {
    /// Runs a client's request or frame under the rule above; `caller`: whose it is, when
    /// known already (a socket's user), for read-your-writes on replicas.
    @discardableResult
    static func clientWork<R>(
        isolation: isolated (any Actor)? = #isolation, of caller: UUID? = nil, _ body: () async throws -> R
    ) async throws -> R {
        do {
            return try await Database.$admission.withValue(WriteAdmission(caller: caller.map(key))) { try await body() }
        } catch is DatabaseBusy {
            throw DomainError.overloaded
        } catch is DatabaseReadOnly {
            throw DomainError.readOnly
        }
    }

    /// Runs work that is never refused for capacity.
    static func owedWork<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async throws -> R {
        try await Database.$admission.withValue(nil) { try await body() }
    }

    /// Whose work this is, once known (a credential read, a session made, a calendar
    /// feed's owner): what it wrote and writes, they read back from replicas.
    static func identify(_ user: UUID) {
        Database.admission?.identify(key(user))
    }

    /// The caller's key in read-your-writes (told to the other instances): the id as
    /// Foundation's `uuidString` writes it, without its `sprintf` (6,500 instructions, 2%
    /// of a nearby page, on every request with a credential).
    static func key(_ user: UUID) -> String { user.text(uppercase: true) }
}
