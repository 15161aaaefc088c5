import Foundation
import Hummingbird

/// An event's chat over HTTP: history, send, read marker.
struct ChatController {
    let chat: ChatService
    let links: MediaLinks

    struct SendInput: Decodable { var body: String?; var clientId: String?; var attachmentId: String? }
    struct ReadInput: Decodable { var seq: Int64 }

    func addRoutes(to routes: RouteRegistrar<AuthenticatedContext>) {
        routes.get("events/:id/messages") { request, context in
            let id = try context.uuid("id", "event")
            var q = QueryReader(request)
            let after = q.int("after_seq", in: 0...Int(Int32.max))
            let before = q.int("before_seq", in: 1...Int(Int32.max))
            let cursor = q.cursor(ChatCursor.self)
            let limit = q.limit(default: 50, max: 100)
            try q.throwIfInvalid()
            let direction: ChatService.Direction
            if cursor == nil, let after, let before { direction = .between(Int64(after), Int64(before)) }
            else if let seq = cursor?.after ?? after.map(Int64.init) { direction = .after(seq) }
            else if let seq = cursor?.before ?? before.map(Int64.init) { direction = .before(seq) }
            else { direction = .latest }
            return JSONResponse(try await chat.history(of: id, for: context.userID, direction: direction, limit: limit).map { ChatMessageRepresentation(message: $0, links: links) })
        }
        routes.post("events/:id/messages") { request, context in
            let id = try context.uuid("id", "event")
            let input = try await RequestBody.decode(SendInput.self, from: request, context: context)
            let sent = try await chat.send(to: id, from: context.userID, body: input.body, clientID: input.clientId, attachmentID: input.attachmentId)
            return JSONResponse(status: sent.created ? .created : .ok, ChatMessageRepresentation(message: sent.message, links: links))
        }
        routes.post("events/:id/read") { request, context in
            let id = try context.uuid("id", "event")
            let input = try await RequestBody.decode(ReadInput.self, from: request, context: context)
            try await chat.markRead(id, user: context.userID, seq: input.seq)
            return Response(status: .noContent)
        }
    }
}
