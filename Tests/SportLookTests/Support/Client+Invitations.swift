import HTTPTypes
import SportLookAPI

/// Invitations and the notification inbox. Each helper fails, with the status and
/// the body, unless the server answers as it should; tests that expect a refusal
/// use the raw ``Reply``.
extension API {
    /// Invites people to an event; returns the invitations (201).
    @discardableResult
    func invite(_ userIDs: [String], to event: String, token: String) async throws -> [Invitation] {
        try await post("/v1/events/\(event)/invitations", token: token, json: ["user_ids": userIDs]).decode(
            Page<Invitation>.self, expecting: .created
        ).items
    }

    /// The first page of the invitations the caller received, newest first.
    func invitations(_ token: String, status: String? = nil) async throws -> [Invitation] {
        try await page(Invitation.self, "/v1/me/invitations" + (status.map { "?status=\($0)" } ?? ""), token: token).items
    }

    /// Accepts an invitation; returns it with the caller's place.
    func accept(_ invitation: String, token: String) async throws -> Invitation {
        try await post("/v1/invitations/\(invitation)/accept", token: token).decode(expecting: .ok)
    }

    /// Declines an invitation.
    func decline(_ invitation: String, token: String) async throws -> Invitation {
        try await post("/v1/invitations/\(invitation)/decline", token: token).decode(expecting: .ok)
    }

    /// The first page of the caller's inbox, newest first.
    func notifications(_ token: String, unread: Bool = false) async throws -> [Notification] {
        try await page(Notification.self, "/v1/me/notifications" + (unread ? "?unread=true" : ""), token: token).items
    }

    /// The caller's notifications of one kind about one event.
    func told(_ token: String, _ kind: Notification.KindPayload, about event: String) async throws -> [Notification] {
        try await notifications(token).filter { $0.kind == kind && $0.data.eventId == event }
    }
}
