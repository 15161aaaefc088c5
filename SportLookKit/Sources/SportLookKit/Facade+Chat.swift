import Foundation
internal import SportLookAPI

/// A two-person conversation.
public struct Conversation: Hashable, Sendable, Codable, Identifiable {
    /// A conversation's id.
    public typealias ID = Identifier<Conversation>
    /// Where a conversation stands.
    public enum State: String, Hashable, Sendable, Codable, CaseIterable {
        /// Nothing was written yet.
        case new
        /// One asked to talk; the other has not answered.
        case requested
        /// Both may write.
        case open
        /// The request was declined.
        case declined
    }

    /// The conversation's id.
    public var id: ID
    /// Its room (for ``ChatSession/join(_:afterSeq:afterChange:)`` and the history).
    public var room: String
    /// The other person.
    public var with: Person
    /// Where it stands.
    public var state: State
    /// Whether the signed-in person may write now.
    public var canSend: Bool

    init(_ conversation: Components.Schemas.Conversation) throws {
        id = try .parse(conversation.id)
        room = conversation.roomId
        with = try Person(conversation.with)
        state = State(rawValue: conversation.state.rawValue) ?? .requested
        canSend = conversation.canSend
    }
}

extension SportLookClient {
    /// Chat rooms over HTTP: history, read markers, mutes, edits, reactions, conversations
    /// (live chat is ``chatSession(connector:backoff:pacing:)``).
    public var chat: Chat { Chat(client: self) }

    /// Chat rooms over HTTP: history, read markers, mutes, edits, reactions, conversations.
    public struct Chat: Sendable {
        let client: SportLookClient

        /// A room's messages after `afterSeq`, oldest first, page by page.
        public func history(of room: String, after afterSeq: Int = 0) -> Pages<Message> {
            Pages { cursor in
                let page = try await client.call {
                    try await $0.listRoomMessages(
                        path: .init(id: room), query: .init(afterSeq: afterSeq, limit: 100, cursor: cursor)
                    ).ok.body.json
                }
                return (try page.items.map(Message.init), page.nextCursor)
            }
        }

        /// The chats list: every room, newest activity first.
        public func rooms() -> Pages<ChatRoom> {
            Pages { cursor in
                let page = try await client.call { try await $0.listMyRooms(query: .init(cursor: cursor)).ok.body.json }
                return (try page.items.map(ChatRoom.init), page.nextCursor)
            }
        }

        /// Sends a message over HTTP (an image's `attachmentID`, mentions); stored once per `clientID`.
        @discardableResult
        public func send(
            _ body: String?, to room: String, clientID: String = UUID().uuidString.lowercased(), attachmentID: String? = nil,
            mentions: [Person.ID] = []
        ) async throws -> Message {
            let draft = Components.Schemas.NewMessage(
                body: body, attachmentId: attachmentID, clientId: clientID, mentions: mentions.isEmpty ? nil : mentions.map(\.description))
            return try await post(draft, to: room)
        }

        /// Stores a message in a room: a new one, or the one its `client_id` stored before.
        func post(_ draft: Components.Schemas.NewMessage, to room: String) async throws -> Message {
            switch try await client.call({ try await $0.sendRoomMessage(path: .init(id: room), body: .json(draft)) }) {
            case .ok(let ok): return try Message(try ok.body.json)
            case .created(let created): return try Message(try created.body.json)
            case let other: throw SportLookError.unexpected(other)
            }
        }

        /// Moves the read marker.
        public func markRead(_ room: String, upTo seq: Int) async throws {
            _ = try await client.call { try await $0.markRoomRead(path: .init(id: room), body: .json(.init(seq: seq))).noContent }
        }

        /// Changes a message's text (its sender).
        @discardableResult
        public func edit(_ room: String, seq: Int, body: String) async throws -> Message {
            try Message(
                try await client.call {
                    try await $0.editMessage(path: .init(id: room, seq: seq), body: .json(.init(body: body))).ok.body.json
                })
        }

        /// Deletes a message (its sender, or the room's organiser or admins): it stays, without its text.
        @discardableResult
        public func delete(_ room: String, seq: Int) async throws -> Message {
            try Message(try await client.call { try await $0.deleteMessage(path: .init(id: room, seq: seq)).ok.body.json })
        }

        /// Starts (or finds) a conversation with someone.
        public func conversation(with person: Person.ID) async throws -> Conversation {
            switch try await client.call({ try await $0.startConversation(body: .json(.init(userId: person.description))) }) {
            case .ok(let ok): return try Conversation(try ok.body.json)
            case .created(let created): return try Conversation(try created.body.json)
            case let other: throw SportLookError.unexpected(other)
            }
        }

        /// Accepts a request to talk.
        @discardableResult
        public func accept(_ id: Conversation.ID) async throws -> Conversation {
            try Conversation(try await client.call { try await $0.acceptConversation(path: .init(id: id.description)).ok.body.json })
        }

        /// Declines a request to talk.
        @discardableResult
        public func decline(_ id: Conversation.ID) async throws -> Conversation {
            try Conversation(try await client.call { try await $0.declineConversation(path: .init(id: id.description)).ok.body.json })
        }

        /// Silences a room's notifications (until `until`, or for good).
        public func mute(_ room: String, until: Date? = nil) async throws {
            _ = try await client.call { try await $0.muteRoom(path: .init(id: room), body: .json(.init(until: until))).noContent }
        }

        /// Lets a room's notifications through again.
        public func unmute(_ room: String) async throws {
            _ = try await client.call { try await $0.unmuteRoom(path: .init(id: room)).noContent }
        }
    }
}
