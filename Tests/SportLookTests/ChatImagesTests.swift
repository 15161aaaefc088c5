import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import Testing

@testable import SportLook

@Suite("Chat images", .timeLimit(.minutes(10)))
struct ChatImagesTests {
    static let secret = "a test key for chat image links, 32+ bytes"

    /// The link a holder of the key would make for `key` ending at `expires`: the
    /// scheme README documents (hex HMAC-SHA256 of "KEY\nEXPIRES").
    static func link(_ key: String, expires: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(key)\n\(expires)".utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return "/media/\(key)?expires=\(expires)&signature=\(mac.map { String(format: "%02x", $0) }.joined())"
    }

    static func key(of url: String) -> String {
        String(url.dropFirst("/media/".count).prefix { $0 != "?" })
    }

    @Test(
        "a message carries an image its sender uploaded; members fetch it through signed, expiring links, others cannot",
        arguments: engines, StoreKind.allCases)
    func sendAndServe(engine: DatabaseEngine, store: StoreKind) async throws {
        let clock = ManualClock()
        try await MediaTests.withMediaApp(engine, store, clock: clock, configure: { $0.mediaURLSecret = Self.secret }) { api, services in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let member = people[0]
            let outsider = try await api.register("Outsider")

            let upload = try await api.upload(try Photos.jpeg(width: 2400, height: 1600), use: "chat", token: member.token).decode(
                API.Media.self, expecting: .created)
            #expect(upload.use == .chat)
            #expect(upload.variants.map(\.name) == ["2048", "320"])
            #expect(upload.variants.map { max($0.width, $0.height) } == [2048, 320])
            for variant in upload.variants { #expect(abs(Double(variant.width) / Double(variant.height) - 1.5) < 0.01) }

            // An image alone: no text needed.
            let sent = try await api.post(
                "/v1/events/\(event)/messages", token: member.token, json: ["client_id": "img-1", "attachment_id": upload.id]
            )
            .decode(API.ChatMessage.self, expecting: .created)
            #expect(sent.body == "")
            let image = try #require(sent.attachment?.value1)
            #expect(image.id == upload.id)
            #expect((image.width, image.height) == (upload.variants[0].width, upload.variants[0].height))
            #expect(Set(image.urls.additionalProperties.keys) == ["2048", "320"])
            // The same client_id again answers the original, and uses nothing twice.
            let again = try await api.post(
                "/v1/events/\(event)/messages", token: member.token, json: ["client_id": "img-1", "attachment_id": upload.id]
            )
            .decode(API.ChatMessage.self, expecting: .ok)
            #expect(again.id == sent.id)

            // The organiser reads it in the history and fetches it.
            let history = try await api.messages(event, token: owner.token)
            let shown = try #require(history.last?.attachment?.value1)
            let url = try #require(shown.urls.additionalProperties["2048"])
            let key = Self.key(of: url)
            #expect(key.hasSuffix(".chat.jpg"))
            let fetched = try await api.fetch(url)
            #expect(fetched.status == .ok, "\(fetched.text)")
            #expect(Array(fetched.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
            #expect(fetched.body.count == upload.variants[0].bytes)
            let cache = try #require(fetched.headers[.cacheControl])
            #expect(cache.hasPrefix("private, max-age="))
            let maxAge = try #require(Int(cache.dropFirst("private, max-age=".count)))
            #expect((1...7_200).contains(maxAge))
            #expect(try await api.fetch(url, headers: [.range: "bytes=0-99"]).body == fetched.body.prefix(100))
            // The links are the documented signature, ending when expires_at says.
            let expires = try #require(Int(url.split(separator: "expires=")[1].prefix { $0 != "&" }))
            #expect(url == Self.link(key, expires: expires))
            #expect(RFC3339.format(shown.expiresAt) == RFC3339.format(Date(timeIntervalSince1970: TimeInterval(expires))))

            // Without a signature, with a forged or a lapsed one: refused, and the same
            // bytes under the public form of the key do not exist.
            for (link, code) in [
                ("/media/\(key)", "invalid_link"),
                ("/media/\(key)?expires=\(expires)&signature=\(String(repeating: "0", count: 64))", "invalid_link"),
                ("/media/\(key)?expires=\(expires + 3_600)&signature=\(url.split(separator: "signature=")[1])", "invalid_link"),
                (Self.link(key, expires: Int(Date().timeIntervalSince1970) - 1), "link_expired"),
            ] {
                let refused = try await api.fetch(link)
                #expect(refused.status == .forbidden, "\(link)")
                #expect(try refused.errorCode == code)
                #expect(try await api.fetch(link, method: .head).status == .forbidden)
            }
            #expect(try await api.fetch("/media/" + key.replacingOccurrences(of: ".chat.jpg", with: ".jpg")).status == .notFound)
            #expect(try await api.fetch("/media/zz.chat.jpg").status == .notFound)
            // Someone outside the event never sees the links.
            #expect(try await api.get("/v1/events/\(event)/messages", token: outsider.token).status == .forbidden)

            // An upload is used once, by its owner, for its use.
            let reused = try await api.post(
                "/v1/events/\(event)/messages", token: member.token, json: ["client_id": "img-2", "attachment_id": upload.id])
            #expect(reused.status == .unprocessableContent)
            #expect(try reused.errorFields["attachment_id"] != nil)
            let theirs = try await api.upload(try Photos.jpeg(width: 300, height: 200), use: "chat", token: outsider.token).decode(
                API.Media.self, expecting: .created)
            let borrowed = try await api.post(
                "/v1/events/\(event)/messages", token: owner.token, json: ["client_id": "img-3", "attachment_id": theirs.id])
            #expect(try borrowed.errorFields["attachment_id"] != nil)
            let profile = try await api.upload(try Photos.jpeg(width: 300, height: 300), use: "profile", token: owner.token).decode(
                API.Media.self, expecting: .created)
            let wrongUse = try await api.post(
                "/v1/events/\(event)/messages", token: owner.token, json: ["client_id": "img-4", "attachment_id": profile.id])
            #expect(try wrongUse.errorFields["attachment_id"]?.contains("use=chat") == true)
            let chatAsPhoto = try await api.upload(try Photos.jpeg(width: 300, height: 300), use: "chat", token: owner.token).decode(
                API.Media.self, expecting: .created)
            #expect(try await api.patch("/v1/me", token: owner.token, json: ["photo_id": chatAsPhoto.id]).status == .unprocessableContent)
            #expect(
                try await api.post(
                    "/v1/events/\(event)/messages", token: owner.token, json: ["client_id": "img-5", "attachment_id": "not-an-id"]
                ).status == .unprocessableContent)
            // Neither text nor image is no message.
            #expect(
                try await api.post("/v1/events/\(event)/messages", token: owner.token, json: ["client_id": "img-6", "body": " "]).status
                    == .unprocessableContent)
            // Refused messages stored nothing.
            #expect(try await api.chatHistory(event, token: owner.token).count == 1)

            // Deleting a message deletes its image: a link given before it stops at once.
            let second = try await api.upload(try Photos.jpeg(width: 400, height: 300), use: "chat", token: member.token).decode(
                API.Media.self, expecting: .created)
            let doomed = try await api.post(
                "/v1/events/\(event)/messages", token: member.token, json: ["client_id": "img-7", "attachment_id": second.id]
            )
            .decode(API.ChatMessage.self, expecting: .created)
            let doomedURL = try #require(doomed.attachment?.value1.urls.additionalProperties["320"])
            #expect(try await api.fetch(doomedURL).status == .ok)
            #expect(try await api.delete("/v1/rooms/\(event)/messages/\(doomed.seq)", token: member.token).status.code < 300)
            #expect(try await api.fetch(doomedURL).status == .notFound)
            #expect(try await api.fetch(doomedURL, method: .head).status == .notFound)
            #expect(try await api.get("/v1/media/\(second.id)", token: member.token).status == .notFound)
            #expect(try await api.fetch(url).status == .ok, "the other message's image is still served")
            // Sent eight times at once (a retrying client on several connections): each copy
            // that waited for the room answers the original, none finds its image taken.
            let other = try await api.upload(try Photos.jpeg(width: 640, height: 480), use: "chat", token: member.token).decode(
                API.Media.self, expecting: .created)
            let copies = try await api.postAtOnce(
                8, "/v1/events/\(event)/messages", token: member.token, json: ["client_id": "img-8", "attachment_id": other.id])
            #expect(
                copies.map(\.status).sorted { $0.code < $1.code } == [.ok, .ok, .ok, .ok, .ok, .ok, .ok, .created], "\(copies.map(\.text))")

            // Deleting the sender's account deletes the image; the message stays, without it.
            #expect(try await api.delete("/v1/me", token: member.token).status == .noContent)
            let after = try await api.chatHistory(event, token: owner.token)
            #expect(after.map(\.id).prefix(2) == [sent.id, doomed.id] && after.count == 3)
            #expect(after[0].attachment == nil)
            #expect(try await api.fetch(url).status == .notFound)
            #expect(try await MediaTests.storedFiles(services).allSatisfy { !upload.variants.map { Self.key(of: $0.url) }.contains($0) })
        }
    }

    @Test("on one connection, text messages and image messages follow each other in any order", arguments: engines)
    func textThenImageOnOneConnection(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        // One pooled connection besides the bus listener's: the statements a message
        // prepares there serve every later one, with or without an image (a statement
        // first prepared for a message without one must still take an image's size).
        try await MediaTests.withMediaApp(engine, .file, clock: clock, configure: { $0.databasePoolSize = 2 }) { api, _ in
            let (event, _, people) = try await chatRoom(api, clock: clock, members: 1)
            let member = people[0]
            let text = try await api.post(
                "/v1/events/\(event)/messages", token: member.token, json: ["client_id": "t-1", "body": "Who brings the net?"])
            #expect(text.status == .created)
            for n in 1...2 {
                let upload = try await api.upload(try Photos.jpeg(width: 800, height: 600), use: "chat", token: member.token).decode(
                    API.Media.self, expecting: .created)
                let image = try await api.post(
                    "/v1/events/\(event)/messages", token: member.token,
                    json: ["client_id": "i-\(n)", "body": "This one", "attachment_id": upload.id, "reply_to": 1]
                )
                .decode(API.ChatMessage.self, expecting: .created)
                #expect(image.attachment?.value1.width == 800 && image.attachment?.value1.height == 600)
                #expect(
                    try await api.post(
                        "/v1/events/\(event)/messages", token: member.token, json: ["client_id": "t-\(n + 1)", "body": "ok"]
                    ).status == .created)
            }
        }
    }

    @Test("an image sent over the socket reaches the other members with its links", arguments: engines)
    func overTheSocket(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await MediaTests.withMediaApp(engine, .file, clock: clock, setup: .live) { api, _ in
            let (event, owner, people) = try await chatRoom(api, clock: clock, members: 1)
            let upload = try await api.upload(try Photos.jpeg(width: 640, height: 480), use: "chat", token: people[0].token).decode(
                API.Media.self, expecting: .created)
            let watcher = try await TestSocket.connect(try socketURL(api), token: owner.token)
            watcher.send(["type": "subscribe", "event_id": event])
            try await watcher.waitFor("subscribed") { $0.type == "subscribed" }
            let sender = try await TestSocket.connect(try socketURL(api), token: people[0].token)
            sender.send(["type": "message", "event_id": event, "client_id": "ws-img", "body": "look", "attachment_id": upload.id])
            try await sender.waitFor("ack") { $0.sent?.seq == 1 }
            let frame = try await watcher.waitFor("the image") { $0.message?.message.attachment != nil }
            let image = try #require(frame.message?.message.attachment?.value1)
            #expect(frame.message?.message.body == "look")
            #expect(image.id == upload.id)
            let url = try #require(image.urls.additionalProperties["320"])
            #expect(try await api.fetch(url).status == .ok)
            await watcher.close()
            await sender.close()
        }
    }
}
