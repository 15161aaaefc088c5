import Foundation
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Testing

@testable import SportLook

extension ModerationTests {
    @Test(
        "a reported photo, named by its upload or by whoever shows it, is one report group; taking it down deletes every variant and link: the profile, the event cover and the chat image show none, the message keeps its text; the uploader is told",
        arguments: engines)
    func reportedPhotoTakenDown(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(engine, clock: clock, queueClock: clock) { api, services in
            let (_, mo) = try await Self.staff(api, services)
            let (event, olga, people) = try await chatRoom(api, clock: clock, members: 1)
            let rita = people[0]
            let ben = try await api.register("Ben")
            func upload(_ use: String, _ token: String) async throws -> API.Media {
                try await api.upload(try Photos.jpeg(width: 1600, height: 1200), use: use, token: token).decode(
                    API.Media.self, expecting: .created)
            }
            // Olga's profile photo and her game's cover; Rita's image in its chat.
            let portrait = try await upload("profile", olga.token)
            #expect(try await api.patch("/v1/me", token: olga.token, json: ["photo_id": portrait.id]).status == .ok)
            let cover = try await upload("cover", olga.token)
            #expect(try await api.patch("/v1/events/\(event)", token: olga.token, json: ["cover_id": cover.id]).status == .ok)
            let picture = try await upload("chat", rita.token)
            let sent = try await api.post(
                "/v1/events/\(event)/messages", token: rita.token, json: ["client_id": "p-1", "body": "look", "attachment_id": picture.id]
            ).decode(API.ChatMessage.self, expecting: .created)
            let chatURL = try #require(sent.attachment?.value1.urls.additionalProperties["320"])
            let profileURLs = try #require(try await api.me(olga.token).imageUrls?.additionalProperties)

            // Named by whom it shows on or by the upload: one target, the upload.
            func report(_ id: String, by token: String) async throws -> Reply {
                try await api.post("/v1/reports", token: token, json: ["target_type": "photo", "target_id": id, "reason": "inappropriate"])
            }
            let byPerson = try await report(olga.id, by: rita.token)
            #expect(byPerson.status == .created)
            #expect(try byPerson.decode(JSONValue.self)["target_id"]?.string == portrait.id)
            #expect(try await report(olga.id, by: ben.token).status == .created)
            #expect(try await report(event, by: rita.token).status == .created)
            #expect(try await report(picture.id, by: olga.token).status == .created)
            // A chat image is reported by the room's people alone; nothing shown is no photo.
            #expect(try await report(picture.id, by: ben.token).status == .notFound)
            #expect(try await report(ben.id, by: rita.token).status == .notFound, "Ben has no photo")
            #expect(try await report(UUID().uuidString, by: rita.token).status == .notFound)
            // Across a block a profile is not there, nor its photo.
            #expect(try await api.post("/v1/users/\(ben.id)/block", token: olga.token).status == .noContent)
            #expect(try await report(olga.id, by: ben.token).status == .notFound)

            let queue = try await api.get("/v1/staff/reports", token: mo.token).decode(API.Page<API.ReportGroup>.self, expecting: .ok).items
            let photos = queue.filter { $0.targetType == .photo }
            #expect(Set(photos.map(\.targetId)) == [portrait.id, cover.id, picture.id])
            let profile = try #require(photos.first { $0.targetId == portrait.id })
            #expect(profile.reports.count == 2 && profile.subject?.value1 == API.StaffPerson(id: olga.id, name: "Owner"))
            #expect(profile.context.photo?.shownOn == .profile && profile.context.photo?.personId == olga.id)
            #expect(Set(profile.context.photo?.urls.additionalProperties.keys.map { $0 } ?? []) == Set(profileURLs.keys))
            let inChat = try #require(photos.first { $0.targetId == picture.id })
            #expect(inChat.context.photo?.shownOn == .message && inChat.context.photo?.seq == sent.seq)
            #expect(inChat.subject?.value1.id == rita.id)
            #expect(photos.first { $0.targetId == cover.id }?.context.photo?.eventId == event)

            // Each taken down.
            for id in [portrait.id, cover.id, picture.id] {
                let decided = try await api.post(
                    "/v1/staff/reports/decisions", token: mo.token,
                    json: ["target_type": "photo", "target_id": id, "action": "remove", "reason": "not for here"]
                ).decode(API.ReportDecision.self, expecting: .ok)
                #expect(decided.action.action == "photo_removed")
            }
            // The profile shows none, and no variant is served any more.
            let me = try await api.get("/v1/me", token: olga.token).decode(API.PrivateProfile.self)
            #expect(me.imageUrl == nil && me.imageUrls == nil)
            for url in profileURLs.values { #expect(try await api.fetch(url).status == .notFound, "\(url)") }
            #expect(try await api.get("/v1/media/\(portrait.id)", token: olga.token).status == .notFound)
            // The event has no cover; the message keeps its text, not its image.
            let shown = try await api.get("/v1/events/\(event)", token: rita.token).decode(JSONValue.self)
            #expect(shown["image_url"] == .null)
            let message = try #require(try await api.messages(event, token: olga.token).first { $0.seq == sent.seq })
            #expect(message.body == "look" && message.attachment == nil)
            #expect(try await api.fetch(chatURL).status == .notFound)
            // Gone now: a repeat finds nothing to report.
            #expect(try await report(olga.id, by: rita.token).status == .notFound)

            // The uploaders are told, and may appeal.
            try await services.runDueJobs()
            let told = try #require(try await api.notifications(rita.token).first { $0.kind == .moderation })
            #expect(told.data.targetType == "photo" && told.body?.contains("not for here") == true)
            #expect(try await api.notifications(olga.token).filter { $0.kind == .moderation }.count == 2)
        }
    }
}
