import Foundation
import Hummingbird

/// Invitations, the notification inbox and push devices.
struct NotificationsController {
    let invitations: InvitationService
    let inbox: NotificationService
    let links: MediaLinks

    struct InviteInput: Decodable { var userIds: [String] }
    /// `{ids}` or `{all: true}` and nothing else.
    struct ReadInput: Decodable {
        var ids: [String]?
        var all: Bool?
        var unknown: [String] = []

        private struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            ids = try c.decodeIfPresent([String].self, forKey: AnyKey(stringValue: "ids"))
            all = try c.decodeIfPresent(Bool.self, forKey: AnyKey(stringValue: "all"))
            unknown = c.allKeys.map(\.stringValue).filter { $0 != "ids" && $0 != "all" }
        }
    }
    /// `{platform, token, environment}` or `{platform: "web", subscription}` (the
    /// browser's `PushSubscription.toJSON()`; its `expirationTime` is ignored).
    struct DeviceInput: Decodable {
        struct Subscription: Decodable {
            struct Keys: Decodable {
                var p256dh: String?
                var auth: String?
            }
            var endpoint: String?
            var keys: Keys?
        }
        var platform: String?
        var token: String?
        var environment: String?
        var subscription: Subscription?

        var request: NotificationService.DeviceRequest {
            .init(
                platform: platform, token: token, environment: environment, endpoint: subscription?.endpoint,
                p256dh: subscription?.keys?.p256dh, auth: subscription?.keys?.auth)
        }
    }

    /// Public: what a browser needs to subscribe (`applicationServerKey`).
    func addPublicRoutes(to routes: RouteRegistrar<AppRequestContext>) {
        routes.get("/v1/push/vapid-public-key", use: vapidPublicKey)
    }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.post("/v1/events/:id/invitations", use: invite)
        routes.get("/v1/me/invitations", use: myInvitations)
        routes.post("/v1/invitations/:id/accept", use: acceptInvitation)
        routes.post("/v1/invitations/:id/decline", use: declineInvitation)
        routes.get("/v1/me/notifications", use: myNotifications)
        routes.post("/v1/me/notifications/read", use: markNotificationsRead)
        routes.post("/v1/me/devices", use: registerDevice)
        routes.get("/v1/me/devices", use: listDevices)
        routes.delete("/v1/me/devices/:device", use: removeDevice)
    }
}

/// `{"public_key"}`: the VAPID key, base64url (an uncompressed P-256 point).
struct VapidKeyRepresentation: JSONEncodable {
    var key: String

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("public_key", key)
        json.objectEnd()
    }
}

/// One push registration: its id, platform, and the token or endpoint (never a browser's keys).
struct DeviceRepresentation: JSONEncodable {
    var device: PushDevice

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", device.id)
        json.field("platform", device.platform.rawValue)
        if device.platform == .web {
            json.field("endpoint", device.token)
        } else {
            json.field("token", device.token)
        }
        if let environment = device.environment { json.field("environment", environment) }
        json.field("created_at", device.createdAt)
        json.objectEnd()
    }
}

/// One inbox entry.
struct NotificationRepresentation: JSONEncodable {
    var item: InboxItem

    init(_ item: InboxItem) { self.item = item }

    func encode(to json: inout JSONWriter) {
        json.objectStart()
        json.field("id", item.id)
        json.field("kind", item.kind)
        json.field("title", item.title)
        json.field("body", item.body)
        json.field("created_at", item.createdAt)
        json.field("read_at", item.readAt)
        json.key("data")
        json.raw(Array(item.data.utf8))
        json.objectEnd()
    }
}

// MARK: Handlers

extension NotificationsController {
    /// `GET /v1/push/vapid-public-key`
    @Sendable func vapidPublicKey(_: Request, _: AppRequestContext) async throws -> some ResponseGenerator {
        guard let key = inbox.webPushKey else {
            throw DomainError(
                .notFound, code: "web_push_not_enabled", message: Sentence("Web Push is not configured on this server (VAPID_SUBJECT)."))
        }
        return JSONResponse(VapidKeyRepresentation(key: key), headers: [.cacheControl: "public, max-age=300"])
    }

    /// `POST /v1/events/{id}/invitations`
    @Sendable func invite(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .event)
        let input = try await RequestBody.decode(InviteInput.self, from: request, context: context)
        let sent = try await invitations.invite(to: id, by: context.userID, userIDs: input.userIds)
        return JSONResponse(status: .created, ItemList(items: sent.map { InvitationRepresentation(invitation: $0) }))
    }

    /// `GET /v1/me/invitations`
    @Sendable func myInvitations(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let status = q.oneOf("status", Invitation.Status.allCases.map(\.rawValue)).flatMap(Invitation.Status.init)
        let limit = q.limit(default: 20, max: 100)
        let cursor = q.cursor(TimeCursor.self)
        try q.throwIfInvalid()
        let sports = invitations.sports
        return JSONResponse(
            try await invitations.received(by: context.userID, status: status, cursor: cursor, limit: limit).map {
                InvitationRepresentation(
                    invitation: $0.invitation, event: $0.event.map { EventRepresentation(event: $0, sport: sports[$0.sport], links: links) }
                )
            })
    }

    /// `POST /v1/invitations/{id}/accept`
    @Sendable func acceptInvitation(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let answer = try await invitations.answer(try context.uuid("id", .invitation), by: context.userID, accept: true)
        return JSONResponse(InvitationRepresentation(invitation: answer.invitation, attendance: answer.attendance))
    }

    /// `POST /v1/invitations/{id}/decline`
    @Sendable func declineInvitation(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let answer = try await invitations.answer(try context.uuid("id", .invitation), by: context.userID, accept: false)
        return JSONResponse(InvitationRepresentation(invitation: answer.invitation))
    }

    /// `GET /v1/me/notifications`
    @Sendable func myNotifications(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let unread = q.bool("unread") ?? false
        let limit = q.limit(default: 20, max: 100)
        let cursor = q.cursor(TimeCursor.self)
        try q.throwIfInvalid()
        let (items, more) = try await inbox.list(user: context.userID, unreadOnly: unread, cursor: cursor, limit: limit)
        let next = more ? items.last.map { TimeCursor(time: $0.createdAt, id: $0.id).cursor } : nil
        return JSONResponse(Page(items: items.map(NotificationRepresentation.init), nextCursor: next))
    }

    /// `POST /v1/me/notifications/read`
    @Sendable func markNotificationsRead(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(ReadInput.self, from: request, context: context)
        var v = Validator()
        var ids: [UUID]?
        for key in input.unknown.prefix(5) { v.fail(RequestBody.snakeCase(key), Sentence("is not a field of this request")) }
        switch (input.ids, input.all) {
        case (let list?, nil), (let list?, false?):
            if list.isEmpty || list.count > 500 { v.fail("ids", Sentence("must list 1 to 500 notification ids")) }
            ids = list.compactMap(UUID.init(text:))
            if ids?.count != list.count { v.fail("ids", Sentence("must be notification ids")) }
        case (nil, true?): ids = nil
        case (_?, true?): v.fail("all", Sentence("send either ids or all, not both"))
        default: v.fail("ids", Sentence("send ids, or all: true"))
        }
        try v.throwIfInvalid()
        try await inbox.markRead(user: context.userID, ids: ids)
        return Response(status: .noContent)
    }

    /// `POST /v1/me/devices`
    @Sendable func registerDevice(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(DeviceInput.self, from: request, context: context)
        let device = try await inbox.registerDevice(user: context.userID, session: context.identity.tokenID, input.request)
        return JSONResponse(status: .created, DeviceRepresentation(device: device))
    }

    /// `GET /v1/me/devices`
    @Sendable func listDevices(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        JSONResponse(ItemList(items: try await inbox.devices(user: context.userID).map { DeviceRepresentation(device: $0) }))
    }

    /// `DELETE /v1/me/devices/{device}`
    @Sendable func removeDevice(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await inbox.removeDevice(user: context.userID, name: context.parameters.get("device") ?? "")
        return Response(status: .noContent)
    }
}
