import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SQLKit
import SportLookAPI
import Testing

@testable import Imaging
@testable import SportLook

/// Media: multipart uploads, quotas and the life of an upload, shared bytes, admission, and photos stripped and upright.
extension MediaTests {
    @Test("a browser's multipart form upload is read like a raw one", arguments: engines, StoreKind.allCases)
    func multipart(engine: DatabaseEngine, store: StoreKind) async throws {
        try await Self.withMediaApp(engine, store) { api, _ in
            let (token, _) = try await api.register("Abe")
            let jpeg = try Photos.jpeg(width: 500, height: 400)
            let boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW"
            var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhello\r\n".utf8)
            body += Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"me.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
                    .utf8)
            body += jpeg + Array("\r\n--\(boundary)--\r\n".utf8)
            let media = try await api.upload(body, use: "profile", token: token, contentType: "multipart/form-data; boundary=\(boundary)")
                .decode(API.Media.self, expecting: .created)
            #expect((media.width, media.height) == (500, 400))
            let broken = try await api.upload(
                Array("--nope\r\n".utf8), use: "profile", token: token, contentType: "multipart/form-data; boundary=\(boundary)")
            #expect(broken.status == .unprocessableContent)
        }
    }

    @Test(
        "uploads per hour are limited; unused uploads are cleared after a day, used ones kept; a deleted account's go", arguments: engines,
        StoreKind.allCases)
    func quotaAndLifeCycle(engine: DatabaseEngine, store: StoreKind) async throws {
        let clock = ManualClock()
        try await Self.withMediaApp(engine, store, clock: clock, configure: { $0.mediaUploadsPerHour = 3 }) { api, services in
            let (token, _) = try await api.register("Bea")
            let jpeg = try Photos.jpeg(width: 300, height: 300)
            // Replacing a photo deletes the old upload but does not give its quota back.
            let replaced = try await api.upload(try Photos.jpeg(width: 299, height: 300), use: "profile", token: token).decode(
                API.Media.self, expecting: .created)
            #expect(try await api.patch("/v1/me", token: token, json: ["photo_id": replaced.id]).status == .ok)
            let used = try await api.upload(jpeg, use: "profile", token: token).decode(API.Media.self, expecting: .created)
            #expect(try await api.patch("/v1/me", token: token, json: ["photo_id": used.id]).status == .ok)
            let unused = try await api.upload(try Photos.jpeg(width: 301, height: 300), use: "profile", token: token).decode(
                API.Media.self, expecting: .created)
            #expect(try await Self.mediaRows(services) == 2)
            let over = try await api.upload(jpeg, use: "profile", token: token)
            #expect(over.status == .tooManyRequests)
            #expect(over.headers[.retryAfter] != nil)
            #expect(try over.errorCode == "upload_quota")

            clock.advance(by: 3_700)
            #expect(try await services.media.collectUnattached().media == 0)  // not a day old yet
            clock.advance(by: 86_400)
            let removed = try await services.media.collectUnattached()
            #expect(removed.media == 1)
            #expect(try await api.get("/v1/media/\(unused.id)", token: token).status == .notFound)
            for url in unused.urls.additionalProperties.values { #expect(try await api.fetch(url).status == .notFound) }
            for url in used.urls.additionalProperties.values { #expect(try await api.fetch(url).status == .ok) }
            // An hour later the quota has room again.
            #expect(try await api.upload(try Photos.jpeg(width: 303, height: 300), use: "profile", token: token).status == .created)

            #expect(try await api.delete("/v1/me", token: token).status == .noContent)
            for url in used.urls.additionalProperties.values { #expect(try await api.fetch(url).status == .notFound) }
            #expect(try await Self.storedFiles(services).isEmpty)
            #expect(try await Self.mediaRows(services) == 0)
        }
    }

    @Test(
        "shared bytes outlive one owner; a blob whose removal never ran is removed by the collector, one used again is kept",
        arguments: engines, StoreKind.allCases)
    func sharedBytesAndLeftovers(engine: DatabaseEngine, store: StoreKind) async throws {
        try await Self.withMediaApp(engine, store) { api, services in
            let jpeg = try Photos.jpeg(width: 400, height: 400)
            let first = try await api.register("Flo")
            let second = try await api.register("Gus")
            let mine = try await api.upload(jpeg, use: "profile", token: first.token).decode(API.Media.self, expecting: .created)
            let theirs = try await api.upload(jpeg, use: "profile", token: second.token).decode(API.Media.self, expecting: .created)
            #expect(try await api.patch("/v1/me", token: second.token, json: ["photo_id": theirs.id]).status == .ok)
            // The same bytes make the same keys: one object each, used by two uploads.
            #expect(mine.urls == theirs.urls)
            #expect(try await Self.storedFiles(services).count == 2)
            #expect(try await api.delete("/v1/me", token: first.token).status == .noContent)
            for url in theirs.urls.additionalProperties.values { #expect(try await api.fetch(url).status == .ok) }

            // A removal queued for keys an upload uses again (it came after the
            // deletion's check): the collector checks again and keeps the bytes.
            let keys = theirs.variants.map { String($0.url.dropFirst("/media/".count)) }
            let orphan = String(repeating: "ab", count: 32) + ".jpg"
            try await services.blobs.put(orphan, bytes: jpeg, contentType: "image/jpeg")
            try await services.database.transaction { sql in
                for key in keys + [orphan] {
                    try await sql.raw("INSERT INTO media_garbage (key, queued_at) VALUES (\(bind: key), \(bind: Date()))").run()
                }
            }
            let collected = try await services.media.collectUnattached()
            #expect(collected.blobs == 1)
            #expect(try await Self.storedFiles(services).sorted() == keys.sorted())
            for url in theirs.urls.additionalProperties.values { #expect(try await api.fetch(url).status == .ok) }
            let queued = try await services.database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM media_garbage").first()?.decode(column: "n", as: Int.self)
            }
            #expect(queued == 0)
        }
    }

    @Test("uploads in flight are bounded per user, per client address and per instance, before any body is read")
    func admission() async throws {
        try await withApp(.sqlite) { _, services in
            let owner = UUID()
            let other = UUID()
            let first = try await services.media.admit(owner, from: "192.0.2.1")
            let second = try await services.media.admit(owner, from: "192.0.2.2")
            do {
                _ = try await services.media.admit(owner, from: "192.0.2.3")
                Issue.record("a third upload of one person admitted")
            } catch let error as DomainError {
                #expect(error.kind == .tooMany && error.code == "uploads_in_progress")
            }
            first.release()
            let third = try await services.media.admit(owner, from: "192.0.2.1")
            var held = [second, third]
            // One address, however many accounts: a quarter of the places.
            let share = services.media.settings.inFlightPerAddress
            #expect(share == services.media.settings.inFlightLimit / 4)
            for _ in 0..<share { held.append(try await services.media.admit(UUID(), from: "198.51.100.7")) }
            do {
                _ = try await services.media.admit(UUID(), from: "198.51.100.7")
                Issue.record("an address admitted beyond its share")
            } catch let error as DomainError {
                #expect(error.kind == .tooMany && error.code == "uploads_in_progress")
            }
            var address = 10
            while held.count < services.media.settings.inFlightLimit {
                held.append(try await services.media.admit(UUID(), from: "203.0.113.\(address)"))
                address += 1
            }
            do {
                _ = try await services.media.admit(other, from: "203.0.113.200")
                Issue.record("admitted beyond the instance's limit")
            } catch let error as DomainError {
                #expect(error.kind == .unavailable && error.retryAfter != nil)
            }
            for ticket in held { ticket.release() }
            #expect(services.media.admission.total == 0)
            try await services.media.admit(other, from: "198.51.100.7").release()
        }
    }

    @Test("a photo with EXIF orientation 6 and GPS comes back upright with no metadata in any variant", arguments: [DatabaseEngine.sqlite])
    func strippedAndUpright(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, _ in
            let (token, _) = try await api.register("Cal")
            // Stored 800 × 400 landscape; orientation 6 shows it turned clockwise, 400 × 800.
            let stored = try Photos.jpeg(width: 800, height: 400)
            var tiff: [UInt8] = Array("MM".utf8) + [0, 0x2A, 0, 0, 0, 8, 0, 2]
            tiff += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]
            tiff += [0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 38, 0, 0, 0, 0]
            tiff += [0, 1, 0, 1, 0, 2, 0, 0, 0, 2] + Array("N".utf8) + [0, 0, 0, 0, 0, 0, 0]
            let exif = Array("Exif".utf8) + [0, 0] + tiff
            let photo = [0xFF, 0xD8, 0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)] + exif + stored.dropFirst(2)
            let media = try await api.upload(photo, use: "cover", token: token).decode(API.Media.self, expecting: .created)
            #expect((media.width, media.height) == (400, 800))
            for variant in media.variants {
                #expect(variant.height > variant.width, "\(variant.name) is upright")
                let bytes = Array(try await api.fetch(variant.url).body)
                #expect(!String(decoding: bytes, as: UTF8.self).contains("Exif"))
                // Markers up to the first scan: no APPn, no comment.
                var at = 2
                while at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] != 0xDA {
                    #expect(!(0xE0...0xEF).contains(bytes[at + 1]) && bytes[at + 1] != 0xFE, "marker \(bytes[at + 1]) in \(variant.name)")
                    at += 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
                }
            }
        }
    }
}
