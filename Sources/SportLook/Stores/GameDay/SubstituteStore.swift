import Foundation
import SQLKit

/// Substitutes, in SQL: `substitute_requests` (a player's request and where it stands)
/// and `substitute_offers` (who the place was offered to).
struct SubstituteStore: Store {
    let database: Database

    private static let columns = """
        r.id, r.event_id, r.requester_id, q.name AS requester_name, r.status, r.created_at, r.expires_at, r.filled_by,
        f.name AS filled_name, r.offered_count AS offered
        """
    private static let from = """
        substitute_requests r JOIN users q ON q.id = r.requester_id LEFT JOIN users f ON f.id = r.filled_by
        """

    private static func decode(_ row: any SQLRow) throws -> SubstituteRequest {
        SubstituteRequest(
            id: try row.value("id"), eventID: try row.value("event_id"),
            requester: UserSummary(id: try row.value("requester_id"), name: try row.value("requester_name")),
            status: SubstituteStatus(rawValue: try row.value("status")) ?? .expired, createdAt: try row.value("created_at"),
            expiresAt: try row.value("expires_at"),
            filledBy: try row.optional("filled_by", as: UUID.self).map { UserSummary(id: $0, name: try row.optional("filled_name") ?? "") },
            offered: try row.value("offered"))
    }

    func request(_ id: UUID, on sql: (any SQLDatabase)? = nil) async throws -> SubstituteRequest? {
        try await reading(on: sql) { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from) WHERE r.id = \(bind: id)").first().map(
                Self.decode)
        }
    }

    /// The requester's open request at the event that has not run out, if any.
    func open(event: UUID, requester: UUID, at now: Date, on sql: any SQLDatabase) async throws -> SubstituteRequest? {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.columns) FROM \(unsafeRaw: Self.from)
            WHERE r.event_id = \(bind: event) AND r.requester_id = \(bind: requester) AND r.status = 'open' AND r.expires_at > \(bind: now)
            """
        ).first().map(Self.decode)
    }

    func insert(_ request: SubstituteRequest, offeredTo people: [UUID], on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO substitute_requests (id, event_id, requester_id, status, created_at, offered_count, expires_at)
            VALUES (\(bind: request.id), \(bind: request.eventID), \(bind: request.requester.id), 'open', \(bind: request.createdAt),
                    \(bind: request.offered), \(bind: request.expiresAt))
            """
        ).run()
        for chunk in people.chunks(of: Self.idsPerRead / 3) where !chunk.isEmpty {
            let values = SQLList(
                chunk.map { SQLQueryString("(\(bind: request.id), \(bind: $0), \(bind: request.createdAt))") }, separator: SQLRaw(", "))
            try await sql.raw("INSERT INTO substitute_offers (request_id, user_id, created_at) VALUES \(values)").run()
        }
    }

    /// Withdraws the person's open requests at the event (they are no longer going).
    func withdrawOpen(event: UUID, requester: UUID, at now: Date, on sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE substitute_requests SET status = 'withdrawn', closed_at = \(bind: now)
            WHERE event_id = \(bind: event) AND requester_id = \(bind: requester) AND status = 'open'
            """
        ).run()
    }

    /// Closes an open request; false when it was not open any more.
    func close(_ id: UUID, as status: SubstituteStatus, filledBy person: UUID? = nil, at now: Date, on sql: any SQLDatabase) async throws
        -> Bool
    {
        try await sql.raw(
            """
            UPDATE substitute_requests SET status = \(bind: status.rawValue), filled_by = \(bind: person), closed_at = \(bind: now)
            WHERE id = \(bind: id) AND status = 'open' RETURNING id
            """
        ).first() != nil
    }

    func isOffered(_ request: UUID, to user: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS one FROM substitute_offers WHERE request_id = \(bind: request) AND user_id = \(bind: user)").first()
            != nil
    }

    /// Who the request's place was offered to.
    func offered(_ request: UUID, on sql: (any SQLDatabase)? = nil) async throws -> [UUID] {
        try await reading(on: sql) { sql in
            try await sql.raw("SELECT user_id FROM substitute_offers WHERE request_id = \(bind: request)").all().map {
                try $0.value("user_id")
            }
        }
    }

    /// Requests the person made since `since`, and those they made for the event ever.
    func counts(requester: UUID, since: Date, event: UUID, on sql: any SQLDatabase) async throws -> (byPerson: Int, forEvent: Int) {
        let row = try await sql.raw(
            """
            SELECT (SELECT COUNT(*) FROM substitute_requests WHERE requester_id = \(bind: requester) AND created_at > \(bind: since)) AS mine,
                   (SELECT COUNT(*) FROM substitute_requests WHERE event_id = \(bind: event) AND requester_id = \(bind: requester)) AS theirs
            """
        ).first()
        return (try row?.value("mine") ?? 0, try row?.value("theirs") ?? 0)
    }

    /// The open places offered to `user` that have not run out, soonest game first.
    func offers(to user: UUID, at now: Date) async throws -> [SubstituteOffer] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns), e.title AS event_title, e.starts_at AS event_starts_at
                FROM \(unsafeRaw: Self.from) JOIN substitute_offers o2 ON o2.request_id = r.id JOIN events e ON e.id = r.event_id
                WHERE o2.user_id = \(bind: user) AND r.status = 'open' AND r.expires_at > \(bind: now) AND e.status = 'active'
                ORDER BY e.starts_at, r.id LIMIT 50
                """
            ).all().map { row in
                SubstituteOffer(
                    request: try Self.decode(row), eventTitle: try row.value("event_title"), startsAt: try row.value("event_starts_at"))
            }
        }
    }
}
