#if canImport(Observation)
    import Foundation
    import SportLookTestSupport
    import Testing

    @testable import SportLookKit

    /// The observable models apply their stream's events as a view expects: no socket.
    @Suite("Observable chat models")
    @MainActor
    struct ChatModelsTests {
        static let room = ChatProtocolTests.room

        static func message(seq: Int, change: Int = 0, body: String? = nil) throws -> Message {
            guard case .message(var message, _) = SocketEvent(decoding: Frame.message(room, seq: seq)) else {
                throw SupportError("not a message frame")
            }
            message.changeSeq = change
            if let body { message.body = body }
            return message
        }

        @Test("a room's messages stay in seq order, once each, each as it is now; typing, reads, refusals and the end are kept")
        func room() throws {
            let model = ChatRoomModel(
                room: Self.room.uppercased(), session: ChatSession(server: URL(string: "http://127.0.0.1:9")!, token: { nil }))
            #expect(model.room == Self.room)
            model.apply(.message(try Self.message(seq: 1)))
            model.apply(.message(try Self.message(seq: 2)))
            model.apply(.message(try Self.message(seq: 3)))
            model.apply(.edited(try Self.message(seq: 2, change: 4, body: "edited")))
            model.apply(.message(try Self.message(seq: 2, change: 4, body: "edited again")))  // a stream started over
            #expect(model.messages.map(\.seq) == [1, 2, 3])
            #expect(model.messages[1].body == "edited again")
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            model.apply(.typing(user: "u1", name: "Ada"), now: now)
            model.apply(.read(user: "u1", seq: 3))
            model.apply(.read(user: "u1", seq: 2))
            model.apply(.refused(clientID: "c1", code: "invalid_message", message: "no"))
            model.apply(.ended(reason: "not_attending"))
            #expect(model.typing["u1"] == .init(name: "Ada", at: now))
            #expect(model.reads == ["u1": 3])
            #expect(model.refused == ["c1": "invalid_message"])
            #expect(model.endedBecause == "not_attending")
        }

        @Test("the chats list: an update moves a room to its place by activity, a removal takes it out")
        func chatsList() throws {
            func entry(_ id: String, at seconds: Double) throws -> ChatRoom {
                let frame = """
                    {"type":"room_updated","room":{"id":"\(id)","kind":"conversation","title":"t","event":null,"group":null,
                    "conversation":null,"last_seq":1,"last_change_seq":0,"last_read_seq":0,"unread_count":1,
                    "last_activity_at":"\(Date(timeIntervalSince1970: seconds).ISO8601Format())","last_message":null,"muted":false,
                    "muted_until":null}}
                    """
                guard case .roomUpdated(let room) = SocketEvent(decoding: frame) else { throw SupportError("not a room_updated frame") }
                return room
            }
            let model = ChatsListModel(
                session: ChatSession(server: URL(string: "http://127.0.0.1:9")!, token: { nil }), load: { [] })
            model.apply(.updated(try entry("a", at: 100)))
            model.apply(.updated(try entry("b", at: 200)))
            #expect(model.rooms.map(\.id) == ["b", "a"])
            model.apply(.updated(try entry("a", at: 300)))
            #expect(model.rooms.map(\.id) == ["a", "b"])
            model.apply(.removed("b"))
            #expect(model.rooms.map(\.id) == ["a"])
        }
    }
#endif
