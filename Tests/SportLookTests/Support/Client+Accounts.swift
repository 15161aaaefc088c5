import Foundation
import HTTPTypes
import SportLookAPI
import Testing

/// Accounts and sessions. Each helper fails, with the status and the body, unless
/// the server answers as it should; tests that expect a refusal use the raw ``Reply``.
extension API {
    /// Registers a user; returns their token and id.
    @discardableResult
    func register(_ name: String = "Alex", email: String? = nil, password: String = "correct horse battery") async throws -> (
        token: String, id: String
    ) {
        let reply = try await post(
            "/v1/auth/register",
            json: ["name": name, "email": email ?? "\(name.lowercased())-\(UUID().uuidString.prefix(8))@example.com", "password": password])
        let result = try reply.decode(AuthResult.self, expecting: .created)
        return (result.accessToken, result.user.id)
    }

    /// Logs in.
    /// Asks for a password reset code; returns the request's id, which the finish names.
    func startReset(_ email: String, headers: HTTPFields = [:]) async throws -> String {
        struct Started: Decodable {
            var resetId: String
            enum CodingKeys: String, CodingKey { case resetId = "reset_id" }
        }
        return try await request(.post, "/v1/auth/password/reset/start", json: ["email": email], headers: headers).decode(
            Started.self, expecting: .accepted
        ).resetId
    }

    func login(_ email: String, password: String) async throws -> AuthResult {
        try await post("/v1/auth/login", json: ["email": email, "password": password]).decode(expecting: .ok)
    }

    /// The caller's own profile.
    func me(_ token: String) async throws -> PrivateProfile {
        try await get("/v1/me", token: token).decode(expecting: .ok)
    }

    /// The caller's live sessions, newest first.
    func sessions(_ token: String) async throws -> [Session] {
        try await page(Session.self, "/v1/me/sessions", token: token).items
    }
}

extension API {
    /// The email of the account a token belongs to.
    func email(_ token: String) async throws -> String {
        try #require(await me(token).email)
    }
}
