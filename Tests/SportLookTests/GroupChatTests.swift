import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import Testing

@testable import SportLook

/// A group's chat: the same rooms, routes, frames and chats list as events and conversations.
@Suite("Group chat", .timeLimit(.minutes(10)))
struct GroupChatTests {
    @Test(
        "members talk in the group's room with edits, reactions and mute; outsiders cannot; a banned member leaves it at once, socket included",
        arguments: engines)
    func groupRoom(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, setup: .live) { api, _ in
            let owner = try await api.register("Olga")
            let member = try await api.register("Mia")
            let quiet = try await api.register("Quinn")
            let outsider = try await api.register("Otto")
            let group = try await GroupsTests.create(api, owner.token, policy: "public", name: "Padel club")
            for person in [member, quiet] {
                try await GroupsTests.join(api, group.id, person.token)
            }
            // The room is in each member's chats list, named after the group.
            let entry = try #require(try await api.rooms(member.token).items.first { $0.id == group.id })
            #expect(
                entry.kind == .group && entry.title == "Padel club" && entry.group?.id == group.id && entry.group?.name == "Padel club")
            #expect(entry.event == nil && entry.conversation == nil)
            #expect(!(try await api.rooms(outsider.token).items.contains { $0.id == group.id }))

            let socket = try await TestSocket.subscribed(try socketURL(api), token: member.token, to: group.id)
            let first = try await api.say("Courts booked for Thursday", in: group.id, token: owner.token, clientID: "o1")
            #expect(first.seq == 1 && first.eventId == nil)
            #expect(try await socket.waitFor("the message") { $0.type == "message" }.message?.message.body == "Courts booked for Thursday")
            let again = try await api.post(
                "/v1/rooms/\(group.id)/messages", token: owner.token, json: ["body": "Courts booked for Thursday", "client_id": "o1"])
            #expect(try again.decode(API.ChatMessage.self, expecting: .ok).id == first.id, "sent twice, stored once")
            let mine = try await api.say("I'm in", in: group.id, token: member.token)
            #expect(
                try await api.patch(
                    "/v1/rooms/\(group.id)/messages/\(mine.seq)", token: member.token, json: ["body": "I'm in, with a friend"]
                ).status == .ok)
            #expect(
                try await api.post("/v1/rooms/\(group.id)/messages/1/reactions", token: member.token, json: ["emoji": "👍"]).status == .ok)
            #expect(try await api.put("/v1/rooms/\(group.id)/mute", token: quiet.token, json: [String: Any]()).status == .noContent)
            #expect(try await api.rooms(quiet.token).items.first { $0.id == group.id }?.muted == true)
            let history = try await api.allPages(API.ChatMessage.self, "/v1/rooms/\(group.id)/messages?limit=1", token: quiet.token)
            #expect(history.sorted { $0.seq < $1.seq }.map(\.body) == ["Courts booked for Thursday", "I'm in, with a friend"])

            // Outsiders: the group's page is public, its chat is not.
            for reply in [
                try await api.get("/v1/rooms/\(group.id)/messages", token: outsider.token),
                try await api.post("/v1/rooms/\(group.id)/messages", token: outsider.token, json: ["body": "hi", "client_id": "x"]),
                try await api.post("/v1/rooms/\(group.id)/messages/1/reactions", token: outsider.token, json: ["emoji": "👍"]),
            ] {
                #expect(reply.status == .forbidden)
                #expect(try reply.errorCode == "group_members_only")
            }

            // Banned: out of the room on the socket at once, and out of the list.
            #expect(
                try await api.post("/v1/groups/\(group.id)/bans", token: owner.token, json: ["user_id": member.id]).status == .noContent)
            let ended = try await socket.waitFor("unsubscribed") { $0.type == "unsubscribed" }
            #expect(ended.unsubscribed?.reason == .notAMember)
            #expect(try await api.get("/v1/rooms/\(group.id)/messages", token: member.token).status == .forbidden)
            #expect(
                try await api.post("/v1/rooms/\(group.id)/messages", token: member.token, json: ["body": "still here?", "client_id": "m9"])
                    .status == .forbidden)
            #expect(!(try await api.rooms(member.token).items.contains { $0.id == group.id }))
            socket.send(["type": "subscribe", "room_id": group.id, "after_seq": 0])
            #expect(try await socket.waitFor("refused") { $0.type == "error" }.error?.code == "group_members_only")
            await socket.close()

            // Deleting the group closes its room for everyone.
            #expect(try await api.delete("/v1/groups/\(group.id)", token: owner.token).status == .noContent)
            #expect(try await api.get("/v1/rooms/\(group.id)/messages", token: owner.token).status == .forbidden)
            #expect(!(try await api.rooms(owner.token).items.contains { $0.id == group.id }))
        }
    }
}

/// A group's cover photo: an upload of the admin who sets it, as an event's.
@Suite("Group covers", .timeLimit(.minutes(10)))
struct GroupCoverTests {
    struct Covered: Decodable, Sendable {
        @Nullable var imageURL: String?
        @Nullable var imageURLs: [String: String]?
        enum CodingKeys: String, CodingKey { case imageURL = "image_url", imageURLs = "image_urls" }
    }

    @Test(
        "a group's cover: set by its maker or an admin, replaced and removed with its files; others' uploads and members cannot",
        arguments: engines)
    func cover(engine: DatabaseEngine) async throws {
        try await MediaTests.withMediaApp(engine, .file) { api, _ in
            let owner = try await api.register("Olga")
            let member = try await api.register("Mia")
            let first = try await api.upload(try Photos.jpeg(width: 1600, height: 900), use: "cover", token: owner.token).decode(
                API.Media.self, expecting: .created)
            let made = try await api.post(
                "/v1/groups", token: owner.token,
                json: [
                    "name": "Club", "location": ["lat": 55.6761, "lon": 12.5683], "policy": "public", "cover_id": first.id,
                ])
            #expect(made.status == .created)
            let group = try made.decode(GroupsTests.GroupView.self)
            #expect(try made.decode(Covered.self).imageURLs == first.urls.additionalProperties)
            #expect(
                try await api.get("/v1/groups/\(group.id)", token: member.token).decode(Covered.self, expecting: .ok).imageURL
                    == first.urls.additionalProperties["1280"])
            try await GroupsTests.join(api, group.id, member.token)

            // A member is no admin; an admin cannot use someone else's upload, nor a profile photo.
            let theirs = try await api.upload(try Photos.jpeg(width: 800, height: 450), use: "cover", token: member.token).decode(
                API.Media.self, expecting: .created)
            #expect(try await api.patch("/v1/groups/\(group.id)", token: member.token, json: ["cover_id": theirs.id]).status == .forbidden)
            let profile = try await api.upload(try Photos.jpeg(width: 300, height: 300), use: "profile", token: owner.token).decode(
                API.Media.self, expecting: .created)
            for id in [theirs.id, profile.id, "nope"] {
                let reply = try await api.patch("/v1/groups/\(group.id)", token: owner.token, json: ["cover_id": id])
                #expect(reply.status == .unprocessableContent)
                #expect(try reply.errorFields["cover_id"] != nil)
            }

            // Replaced: the new one shows, the old one's files are gone; removed: none.
            let second = try await api.upload(try Photos.jpeg(width: 1200, height: 800), use: "cover", token: owner.token).decode(
                API.Media.self, expecting: .created)
            #expect(
                try await api.patch("/v1/groups/\(group.id)", token: owner.token, json: ["cover_id": second.id]).decode(
                    Covered.self, expecting: .ok
                ).imageURLs == second.urls.additionalProperties)
            for url in first.urls.additionalProperties.values { #expect(try await api.fetch(url).status == .notFound) }
            let removed = try await api.patch("/v1/groups/\(group.id)", token: owner.token, json: ["cover_id": NSNull()]).decode(
                Covered.self, expecting: .ok)
            #expect(removed.imageURL == nil && removed.imageURLs == nil)
            for url in second.urls.additionalProperties.values { #expect(try await api.fetch(url).status == .notFound) }
        }
    }
}

extension GroupsTests {
    /// Joins a public group (200, a member).
    static func join(_ api: API, _ id: String, _ token: String) async throws {
        #expect(try await api.post("/v1/groups/\(id)/membership", token: token, json: [String: Any]()).status == .ok)
    }

    /// Whether the caller muted the group.
    static func viewMuted(_ api: API, _ id: String, _ token: String) async throws -> Bool {
        struct Muted: Decodable { var muted: Bool }
        return try await api.get("/v1/groups/\(id)", token: token).decode(Muted.self, expecting: .ok).muted
    }
}
