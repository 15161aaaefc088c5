import Foundation
import Hummingbird

/// Rooms over HTTP: history, send, read marker, edits, deletions, reactions and
/// mute. A room is addressed as `/v1/rooms/{id}` (a conversation's id, or an
/// event's: an event's room has the event's id); `/v1/events/{id}/messages` and
/// `/v1/events/{id}/read` name an event's room too.
struct ChatController {
    let chat: ChatService
    let rooms: RoomService
    let links: MediaLinks
    let clock: any AppClock

    struct SendInput: Decodable {
        var body: String?
        var clientId: String?
        var attachmentId: String?
        var replyTo: Int64?
        var mentions: [String]?
        var poll: Polls.Draft?
    }
    struct ReadInput: Decodable { var seq: Int64 }
    struct EditInput: Decodable { var body: String? }
    struct ReactionInput: Decodable { var emoji: String? }
    struct MuteInput: Decodable { var until: String? }
    struct ConversationInput: Decodable { var userId: String? }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        // An event's room is named by the event's id too.
        routes.get("/v1/events/:id/messages", use: listMessages)
        routes.get("/v1/rooms/:id/messages", use: listMessages)
        routes.post("/v1/events/:id/messages", use: sendMessage)
        routes.post("/v1/rooms/:id/messages", use: sendMessage)
        routes.post("/v1/events/:id/read", use: markRead)
        routes.post("/v1/rooms/:id/read", use: markRead)
        routes.patch("/v1/rooms/:id/messages/:seq", use: editMessage)
        routes.delete("/v1/rooms/:id/messages/:seq", use: deleteMessage)
        routes.post("/v1/rooms/:id/messages/:seq/reactions", use: addReaction)
        routes.delete("/v1/rooms/:id/messages/:seq/reactions", use: removeReaction)
        routes.put("/v1/rooms/:id/mute", use: muteRoom)
        routes.delete("/v1/rooms/:id/mute", use: unmuteRoom)
        routes.get("/v1/me/rooms", use: listMyRooms)
        routes.post("/v1/conversations", use: startConversation)
        routes.get("/v1/conversations/:id", use: getConversation)
        routes.post("/v1/conversations/:id/accept", use: acceptConversation)
        routes.post("/v1/conversations/:id/decline", use: declineConversation)
    }
}

// MARK: Handlers

extension ChatController {
    /// `GET /v1/events/{id}/messages`, `GET /v1/rooms/{id}/messages`
    @Sendable func listMessages(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .room)
        var q = QueryReader(request)
        let after = q.int("after_seq", in: 0...Int(Int32.max))
        let before = q.int("before_seq", in: 1...Int(Int32.max))
        let cursor = q.cursor(ChatCursor.self)
        let limit = q.limit(default: 50, max: 100)
        try q.throwIfInvalid()
        let direction: ChatService.Direction
        if cursor == nil, let after, let before {
            direction = .between(Int64(after), Int64(before))
        } else if let seq = cursor?.after ?? after.map(Int64.init) {
            direction = .after(seq)
        } else if let seq = cursor?.before ?? before.map(Int64.init) {
            direction = .before(seq)
        } else {
            direction = .latest
        }
        return JSONResponse(
            try await chat.history(of: id, for: context.userID, direction: direction, limit: limit).map {
                ChatMessageRepresentation(message: $0, links: links)
            })
    }

    /// `POST /v1/events/{id}/messages`, `POST /v1/rooms/{id}/messages`
    @Sendable func sendMessage(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .room)
        let input = try await RequestBody.decode(SendInput.self, from: request, context: context)
        let sent = try await chat.send(
            to: id, from: context.userID,
            .init(
                body: input.body, clientID: input.clientId, attachmentID: input.attachmentId,
                replyTo: input.replyTo, mentions: input.mentions, poll: input.poll))
        return JSONResponse(status: sent.created ? .created : .ok, ChatMessageRepresentation(message: sent.message, links: links))
    }

    /// `POST /v1/events/{id}/read`, `POST /v1/rooms/{id}/read`
    @Sendable func markRead(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .room)
        let input = try await RequestBody.decode(ReadInput.self, from: request, context: context)
        try await chat.markRead(id, user: context.userID, seq: input.seq)
        return Response(status: .noContent)
    }

    /// `PATCH /v1/rooms/{id}/messages/{seq}`
    @Sendable func editMessage(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try context.roomMessage()
        let input = try await RequestBody.decode(EditInput.self, from: request, context: context)
        return JSONResponse(
            ChatMessageRepresentation(message: try await chat.edit(id, seq: seq, by: context.userID, body: input.body), links: links))
    }

    /// `DELETE /v1/rooms/{id}/messages/{seq}`
    @Sendable func deleteMessage(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try context.roomMessage()
        return JSONResponse(ChatMessageRepresentation(message: try await chat.delete(id, seq: seq, by: context.userID), links: links))
    }

    /// `POST /v1/rooms/{id}/messages/{seq}/reactions`
    @Sendable func addReaction(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try context.roomMessage()
        let input = try await RequestBody.decode(ReactionInput.self, from: request, context: context)
        return JSONResponse(
            ChatMessageRepresentation(
                message: try await chat.react(id, seq: seq, by: context.userID, emoji: input.emoji, on: true), links: links))
    }

    /// `DELETE /v1/rooms/{id}/messages/{seq}/reactions`
    @Sendable func removeReaction(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let (id, seq) = try context.roomMessage()
        let emoji = QueryReader(request).raw("emoji")
        return JSONResponse(
            ChatMessageRepresentation(
                message: try await chat.react(id, seq: seq, by: context.userID, emoji: emoji, on: false), links: links))
    }

    /// `PUT /v1/rooms/{id}/mute`
    @Sendable func muteRoom(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let id = try context.uuid("id", .room)
        let input = try await RequestBody.decode(MuteInput.self, from: request, context: context)
        var until: Date?
        if let text = input.until {
            guard let date = RFC3339.parse(text) else {
                throw DomainError.validation(["until": Sentence("must be a date and time (RFC 3339)")])
            }
            until = date
        }
        try await rooms.mute(id, user: context.userID, until: until)
        return Response(status: .noContent)
    }

    /// `DELETE /v1/rooms/{id}/mute`
    @Sendable func unmuteRoom(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await rooms.unmute(try context.uuid("id", .room), user: context.userID)
        return Response(status: .noContent)
    }

    /// `GET /v1/me/rooms`
    @Sendable func listMyRooms(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        var q = QueryReader(request)
        let cursor = q.cursor(TimeCursor.self)
        let limit = q.limit(default: 30, max: 100)
        try q.throwIfInvalid()
        let now = clock.now()
        return JSONResponse(
            try await rooms.list(for: context.userID, cursor: cursor, limit: limit).map {
                RoomListingRepresentation(listing: $0, viewer: context.userID, links: links, now: now)
            })
    }

    /// `POST /v1/conversations`
    @Sendable func startConversation(_ request: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let input = try await RequestBody.decode(ConversationInput.self, from: request, context: context)
        guard let text = input.userId else { throw DomainError.validation(["user_id": Sentence("is required")]) }
        guard let other = UUID(text: text) else { throw DomainError.validation(["user_id": Sentence("must be a user id")]) }
        let (conversation, created) = try await rooms.start(with: other, by: context.userID)
        return JSONResponse(
            status: created ? .created : .ok, ConversationRepresentation(conversation: conversation, viewer: context.userID))
    }

    /// `GET /v1/conversations/{id}`
    @Sendable func getConversation(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        let conversation = try await rooms.conversation(try context.uuid("id", .conversation), for: context.userID)
        return JSONResponse(ConversationRepresentation(conversation: conversation, viewer: context.userID))
    }

    /// `POST /v1/conversations/{id}/accept`
    @Sendable func acceptConversation(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await answerConversation(context, accept: true)
    }

    /// `POST /v1/conversations/{id}/decline`
    @Sendable func declineConversation(_: Request, context: AuthenticatedContext) async throws -> some ResponseGenerator {
        try await answerConversation(context, accept: false)
    }

    private func answerConversation(_ context: AuthenticatedContext, accept: Bool) async throws -> JSONResponse {
        let conversation = try await rooms.answer(try context.uuid("id", .conversation), by: context.userID, accept: accept)
        return JSONResponse(ConversationRepresentation(conversation: conversation, viewer: context.userID))
    }
}
