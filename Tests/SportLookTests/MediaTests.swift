import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SQLKit
import SportLookAPI
import Testing

@testable import Imaging
@testable import SportLook

extension API {
    func upload(_ bytes: [UInt8], use: String, token: String, contentType: String = "image/jpeg") async throws -> Reply {
        let response = try await client.executeRequest(
            uri: "/v1/media?use=\(use)", method: .post,
            headers: [.authorization: "Bearer \(token)", .contentType: contentType], body: .init(bytes: bytes))
        return Reply(status: response.status, headers: response.headers, body: Data(response.body.readableBytesView))
    }

    func fetch(_ url: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]) async throws -> Reply {
        try await request(method, url, headers: headers)
    }
}

/// Test photos: quadrants of four colours, so orientation and crops can be checked.
enum Photos {
    /// Each size's photo, made once a process: the pixel loop is slow in a debug build,
    /// and many tests upload the same photo.
    private static let made = MadeOnce<[Int], [UInt8]>()

    static func jpeg(width: Int, height: Int) throws -> [UInt8] {
        try made([width, height]) { try draw(width: width, height: height) }
    }

    private static func draw(width: Int, height: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 3
                bytes[at] = UInt8((x * 255) / max(1, width - 1))
                bytes[at + 1] = UInt8((y * 255) / max(1, height - 1))
                bytes[at + 2] = x < width / 2 ? 40 : 200
            }
        }
        return try Codecs.encodeJPEG(Pixels(width: width, height: height, bytes: bytes), quality: 90)
    }
}

@Suite("Photos", .timeLimit(.minutes(10)))
struct MediaTests {
    /// What the blob store holds.
    static func storedFiles(_ services: AppServices) async throws -> [String] {
        try await services.blobs.keys()
    }

    /// Runs `test` on a fresh database of `engine` with media kept in `store`.
    static func withMediaApp(
        _ engine: DatabaseEngine, _ store: StoreKind, clock: ManualClock = ManualClock(Date().wholeMilliseconds),
        setup: TestingSetup = .router,
        configure: @escaping @Sendable (inout AppConfiguration) -> Void = { _ in },
        _ test: @Sendable (API, AppServices) async throws -> Void
    ) async throws {
        let bucket = store == .s3 ? try await MotoServer.shared.freshBucket() : nil
        try await withApp(
            engine, clock: clock, setup: setup,
            configure: { configuration in
                if let bucket {
                    configuration.mediaStore = bucket
                    configuration.mediaS3AccessKey = MotoServer.accessKey
                    configuration.mediaS3SecretKey = MotoServer.secretKey
                }
                configure(&configuration)
            }, test)
    }

    static func mediaRows(_ services: AppServices) async throws -> Int {
        try await services.database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM media").first()?.decode(column: "n", as: Int.self) ?? -1
        }
    }

    @Test("an upload is stored as variants, served immutable with ETag, 304, ranges and HEAD", arguments: engines, StoreKind.allCases)
    func uploadAndServe(engine: DatabaseEngine, store: StoreKind) async throws {
        try await Self.withMediaApp(engine, store) { api, services in
            let (token, _) = try await api.register("Uma")
            let photo = try Photos.jpeg(width: 1200, height: 900)
            let reply = try await api.upload(photo, use: "profile", token: token)
            let media = try reply.decode(API.Media.self, expecting: .created)
            #expect(media.use == .profile)
            #expect((media.width, media.height) == (1200, 900))
            #expect(media.variants.map(\.name) == ["512", "128"])
            #expect(media.variants.map { [$0.width, $0.height] } == [[512, 512], [128, 128]])
            #expect(reply.headers[.location] == "/v1/media/\(media.id)")
            #expect(try await api.get("/v1/media/\(media.id)", token: token).decode(API.Media.self, expecting: .ok).urls == media.urls)

            let url = try #require(media.urls.additionalProperties["512"])
            #expect(url.hasPrefix("/media/") && url.hasSuffix(".jpg"))
            let full = try await api.fetch(url)
            #expect(full.status == .ok)
            #expect(full.headers[.contentType] == "image/jpeg")
            #expect(full.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(full.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(full.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(full.body.count == media.variants[0].bytes)
            #expect(Array(full.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
            let etag = try #require(full.headers[.eTag])

            let notModified = try await api.fetch(url, headers: [.ifNoneMatch: etag])
            #expect(notModified.status == .notModified)
            #expect(notModified.body.isEmpty)
            #expect(try await api.fetch(url, headers: [.ifNoneMatch: "\"other\""]).status == .ok)

            let range = try await api.fetch(url, headers: [.range: "bytes=10-109"])
            #expect(range.status == .partialContent)
            #expect(range.headers[.contentRange] == "bytes 10-109/\(full.body.count)")
            #expect(range.body == full.body[10..<110])
            let tail = try await api.fetch(url, headers: [.range: "bytes=-50"])
            #expect(tail.status == .partialContent)
            #expect(tail.body == full.body.suffix(50))
            let beyond = try await api.fetch(url, headers: [.range: "bytes=\(full.body.count)-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(full.body.count)")
            // A range whose validator no longer matches gets the whole object.
            #expect(try await api.fetch(url, headers: [.range: "bytes=0-9", .ifRange: "\"stale\""]).status == .ok)

            let head = try await api.fetch(url, method: .head)
            #expect(head.status == .ok)
            #expect(head.headers[.contentLength] == String(full.body.count))
            #expect(head.body.isEmpty)

            #expect(try await api.fetch("/media/" + String(repeating: "0", count: 64) + ".jpg").status == .notFound)
            #expect(try await api.fetch("/media/..%2F..%2Fetc%2Fpasswd").status == .notFound)
            #expect(try await Self.storedFiles(services).count == 2)
        }
    }

    @Test(
        "a photo is attached by id, shown everywhere people appear, replaced (the old one deleted) and removed", arguments: engines,
        StoreKind.allCases)
    func attachReplaceRemove(engine: DatabaseEngine, store: StoreKind) async throws {
        let clock = ManualClock()
        try await Self.withMediaApp(engine, store, clock: clock) { api, services in
            let (token, id) = try await api.register("Vic")
            let (other, _) = try await api.register("Wen")
            let first = try await api.upload(try Photos.jpeg(width: 800, height: 600), use: "profile", token: token).decode(
                API.Media.self, expecting: .created)
            let me = try await api.patch(
                "/v1/me", token: token, json: ["photo_id": first.id, "location": ["lat": 48.85, "lon": 2.35], "discoverable": true])
            let fields = try me.decode(API.PrivateProfile.self, expecting: .ok)
            #expect(fields.imageUrl == first.urls.additionalProperties["512"])
            #expect(fields.imageUrls?.additionalProperties == first.urls.additionalProperties)
            #expect(try await api.user(id, token: other).imageUrls?.additionalProperties == first.urls.additionalProperties)
            // The people index's card carries it too.
            #expect(
                try await api.page(API.PersonNearby.self, "/v1/users/nearby?lat=48.85&lon=2.35&radius_km=5", token: other).items.map(
                    \.imageUrl) == [first.urls.additionalProperties["512"]])
            // And the attendee list.
            let event = try await api.createEvent(other, now: clock.now())
            let eventID = event.id
            #expect(try await api.post("/v1/events/\(eventID)/attendance", token: token).status == .ok)
            #expect(
                try await api.page(API.Attendee.self, "/v1/events/\(eventID)/attendees", token: other).items.compactMap(\.imageUrl) == [
                    first.urls.additionalProperties["512"]
                ])

            // Replacing deletes the old upload and its files.
            let second = try await api.upload(try Photos.jpeg(width: 640, height: 640), use: "profile", token: token).decode(
                API.Media.self, expecting: .created)
            #expect(
                try await api.patch("/v1/me", token: token, json: ["photo_id": second.id]).decode(API.PrivateProfile.self, expecting: .ok)
                    .imageUrls?.additionalProperties == second.urls.additionalProperties)
            for url in first.urls.additionalProperties.values { #expect(try await api.fetch(url).status == .notFound) }
            #expect(try await api.get("/v1/media/\(first.id)", token: token).status == .notFound)
            #expect(try await Self.storedFiles(services).count == 2)
            // Removing it.
            let removed = try await api.patch("/v1/me", token: token, json: ["photo_id": NSNull()]).decode(
                API.PrivateProfile.self, expecting: .ok)
            #expect(removed.imageUrl == nil && removed.imageUrls == nil)
            #expect(try await Self.storedFiles(services).isEmpty)
            #expect(try await Self.mediaRows(services) == 0)
        }
    }

    @Test("only one's own upload of the right use can be attached, and image URLs cannot be set", arguments: engines, StoreKind.allCases)
    func attachRules(engine: DatabaseEngine, store: StoreKind) async throws {
        let clock = ManualClock()
        try await Self.withMediaApp(engine, store, clock: clock) { api, _ in
            let (token, _) = try await api.register("Xan")
            let (other, _) = try await api.register("Yul")
            let theirs = try await api.upload(try Photos.jpeg(width: 300, height: 300), use: "profile", token: other).decode(
                API.Media.self, expecting: .created)
            let cover = try await api.upload(try Photos.jpeg(width: 1600, height: 900), use: "cover", token: token).decode(
                API.Media.self, expecting: .created)
            #expect(cover.variants.map { [$0.width, $0.height] } == [[1280, 720], [480, 270]])
            for (body, field) in [
                (["photo_id": theirs.id], "photo_id"), (["photo_id": cover.id], "photo_id"), (["photo_id": "nope"], "photo_id"),
                (["photo_id": UUID().uuidString], "photo_id"), (["image_url": "https://tracker.example/me.png"], "image_url"),
            ] {
                let reply = try await api.patch("/v1/me", token: token, json: body)
                #expect(reply.status == .unprocessableContent, "\(body)")
                #expect(try reply.errorFields[field] != nil, "\(body): \(reply.text)")
            }
            // A cover goes on an event, and shows in its cards.
            let start = RFC3339.format(clock.now().addingTimeInterval(86_400))
            let created = try await api.post(
                "/v1/events", token: token,
                json: [
                    "title": "Run", "sport": "running", "starts_at": start, "location": ["lat": 48.85, "lon": 2.35], "cover_id": cover.id,
                ])
            let covered = try created.decode(API.Event.self, expecting: .created)
            #expect(covered.imageUrls?.additionalProperties == cover.urls.additionalProperties)
            #expect(
                try await api.page(API.Event.self, "/v1/events/nearby?lat=48.85&lon=2.35&radius_km=5", token: other).items.map(\.imageUrl)
                    == [cover.urls.additionalProperties["1280"]])
            // One upload shows in one place.
            let second = try await api.post(
                "/v1/events", token: token,
                json: [
                    "title": "Run 2", "sport": "running", "starts_at": start, "location": ["lat": 48.85, "lon": 2.35], "cover_id": cover.id,
                ])
            #expect(second.status == .unprocessableContent)
            #expect(try second.errorFields["cover_id"] != nil)
            let refused = try await api.post(
                "/v1/events", token: token,
                json: [
                    "title": "Run", "sport": "running", "starts_at": start, "location": ["lat": 48.85, "lon": 2.35],
                    "image_url": "https://x.example/a.png",
                ])
            #expect(refused.status == .unprocessableContent)
            #expect(try refused.errorFields["image_url"] != nil)
        }
    }

    @Test(
        "what is not a JPEG or PNG, a pixel bomb, a damaged file, an empty or oversized body: refused with nothing stored",
        arguments: engines, StoreKind.allCases)
    func refusals(engine: DatabaseEngine, store: StoreKind) async throws {
        try await Self.withMediaApp(engine, store, configure: { $0.mediaMaxBytes = 200_000 }) { api, services in
            let (token, _) = try await api.register("Zed")
            let jpeg = try Photos.jpeg(width: 400, height: 300)
            var pngBomb: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            pngBomb += [0x00, 0x00, 0xEA, 0x60, 0x00, 0x00, 0xEA, 0x60, 8, 2, 0, 0, 0, 0, 0, 0, 0]
            let cases: [(String, [UInt8], String, HTTPResponse.Status, String)] = [
                ("gif", Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 64), "image/jpeg", .unprocessableContent, "GIF"),
                (
                    "heic", [0, 0, 0, 24] + Array("ftypheic".utf8) + [UInt8](repeating: 0, count: 16), "image/jpeg", .unprocessableContent,
                    "HEIC"
                ),
                (
                    "svg", Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8), "image/png",
                    .unprocessableContent, "SVG"
                ),
                ("bomb", pngBomb, "image/png", .unprocessableContent, "60000 × 60000"),
                ("truncated", Array(jpeg.prefix(jpeg.count / 2)), "image/jpeg", .unprocessableContent, "cannot be read"),
                ("empty", [], "image/jpeg", .unprocessableContent, "image"),
                ("too large", [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 7, count: 250_000), "image/jpeg", .contentTooLarge, "MB"),
            ]
            for (name, bytes, type, status, words) in cases {
                let reply = try await api.upload(bytes, use: "profile", token: token, contentType: type)
                #expect(reply.status == status, "\(name): \(reply.text)")
                #expect(reply.text.contains(words), "\(name): \(reply.text)")
            }
            #expect(try await api.upload(jpeg, use: "banner", token: token).status == .unprocessableContent)
            #expect(try await Self.storedFiles(services).isEmpty)
            #expect(try await Self.mediaRows(services) == 0)
        }
    }

}
