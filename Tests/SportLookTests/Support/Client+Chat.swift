import HTTPTypes
import SportLookAPI

/// Event chat. Each helper fails, with the status and the body, unless the server
/// answers as it should; tests that expect a refusal use the raw ``Reply``.
extension API {
    /// Sends a message; returns it as stored (201).
    @discardableResult
    func sendMessage(_ body: String, clientID: String, to event: String, token: String) async throws -> ChatMessage {
        try await post("/v1/events/\(event)/messages", token: token, json: ["body": body, "client_id": clientID]).decode(
            expecting: .created)
    }

    /// The same POST sent `copies` times at once (a client retrying on several
    /// connections); the answers in the order they came.
    func postAtOnce(_ copies: Int, _ path: String, token: String, json: [String: String]) async throws -> [Reply] {
        try await withThrowingTaskGroup(of: Reply.self) { group in
            for _ in 0..<copies { group.addTask { try await post(path, token: token, json: json) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// The latest page of an event's chat, ascending by seq.
    func messages(_ event: String, token: String) async throws -> [ChatMessage] {
        try await page(ChatMessage.self, "/v1/events/\(event)/messages", token: token).items
    }

    /// The whole chat of an event, read forwards by `after_seq`.
    func chatHistory(_ event: String, token: String) async throws -> [ChatMessage] {
        var out: [ChatMessage] = []
        var after = 0
        while true {
            let current = try await page(ChatMessage.self, "/v1/events/\(event)/messages?after_seq=\(after)&limit=100", token: token)
            out += current.items
            guard let last = current.items.last?.seq, current.nextCursor != nil else { return out }
            after = last
        }
    }
}
