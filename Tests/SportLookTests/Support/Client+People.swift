import HTTPTypes

/// People, profiles and blocks. Each helper fails, with the status and the body,
/// unless the server answers as it should; tests that expect a refusal use the raw ``Reply``.
extension API {
    /// Someone's public profile.
    func user(_ id: String, token: String) async throws -> PublicProfile {
        try await get("/v1/users/\(id)", token: token).decode(expecting: .ok)
    }

    /// The first page of the people the caller blocked, newest first.
    func blocks(_ token: String) async throws -> [Blocked] {
        try await page(Blocked.self, "/v1/me/blocks", token: token).items
    }
}
