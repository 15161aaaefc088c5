import Foundation
import HTTPTypes
import HummingbirdTesting
import SportLookAPI
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

@Suite("Uploads that trickle, and what one person may store", .timeLimit(.minutes(10)))
struct MediaPaceTests {
    static let loopback = [AddressRange(cidr: "127.0.0.0/8"), AddressRange(cidr: "::1")].compactMap { $0 }

    /// Starts an upload from `address` (through the loopback proxy) that declares
    /// `declared` bytes and sends one.
    static func trickle(_ api: API, token: String, from address: String, declared: Int = 200_000) async throws -> RawHTTPClient {
        let port = try #require(api.client.port)
        let upload = try await RawHTTPClient.open(
            port: port,
            head: [
                "POST /v1/media?use=profile HTTP/1.1", "Host: 127.0.0.1:\(port)", "Authorization: Bearer \(token)",
                "Content-Type: image/jpeg", "Content-Length: \(declared)", "X-Forwarded-For: \(address)",
            ])
        try await upload.send([0xFF])
        return upload
    }

    @Test(
        "sixteen trickling uploads while another user uploads: one address holds a quarter of the places; many addresses hold them only while their bodies keep pace",
        arguments: engines)
    func tricklingUploads(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        try await withApp(
            engine, clock: clock, setup: .live,
            configure: {
                $0.trustedProxies = Self.loopback
                // The deadline that catches a body that stops arriving is far off here: this test moves the app's clock.
                $0.mediaUploadGrace = 600
            }
        ) { api, services in
            let honest = try await api.register("Honest").token
            var tricklers: [String] = []
            for i in 0..<16 { tricklers.append(try await api.register("Trickler\(i)").token) }
            let photo = try Photos.jpeg(width: 300, height: 200)
            let share = services.media.settings.inFlightPerAddress

            // Sixteen accounts from one address: a quarter of the places, the rest refused before their bodies.
            var started: [RawHTTPClient] = []
            for token in tricklers { started.append(try await Self.trickle(api, token: token, from: "198.51.100.7")) }
            let fromOne = started
            try await eventually("the refusals") { fromOne.filter { $0.answered != nil }.count == 16 - share }
            for upload in fromOne where upload.answered != nil {
                let refused = try await upload.response()
                #expect(refused.status == 429 && refused.body.contains("uploads_in_progress"))
            }
            #expect(services.media.admission.total == share)
            // Someone else uploads meanwhile.
            #expect(try await api.upload(photo, use: "profile", token: honest).status == .created)
            for upload in fromOne { await upload.close() }
            try await eventually("the places given back") { services.media.admission.total == 0 }

            // Sixteen addresses: every place is taken, and the honest upload waits…
            started = []
            for (i, token) in tricklers.enumerated() {
                started.append(try await Self.trickle(api, token: token, from: "203.0.113.\(i + 1)"))
            }
            let fromMany = started
            try await eventually("every place held") { services.media.admission.total == services.media.settings.inFlightLimit }
            let busy = try await api.upload(photo, use: "profile", token: honest)
            #expect(busy.status == .serviceUnavailable && busy.headers[.retryAfter] != nil)
            // …until the grace has passed: the next byte of each is too late.
            clock.advance(by: 601)
            for upload in fromMany {
                try await upload.send([0xD8])
                let answer = try await upload.response()
                #expect(answer.status == 408 && answer.body.contains("upload_too_slow"))
            }
            try await eventually("the places given back") { services.media.admission.total == 0 }
            #expect(try await api.upload(photo, use: "profile", token: honest).status == .created)
            for upload in fromMany { await upload.close() }
        }
    }

    @Test(
        "a body that stops arriving is answered 408 by its deadline, without another byte, and its place is free again", arguments: engines)
    func stalledBody(engine: DatabaseEngine) async throws {
        try await withApp(engine, setup: .live, configure: { $0.mediaUploadGrace = 1 }) { api, services in
            let token = try await api.register("Stalls").token
            let upload = try await Self.trickle(api, token: token, from: "198.51.100.9")
            let answer = try await upload.response()
            #expect(answer.status == 408 && answer.body.contains("upload_too_slow"))
            try await eventually("the place given back") { services.media.admission.total == 0 }
            await upload.close()
        }
    }

    @Test("a body that keeps the minimum rate still has to arrive whole within MEDIA_UPLOAD_TIMEOUT", arguments: [DatabaseEngine.sqlite])
    func totalDeadline(engine: DatabaseEngine) async throws {
        let clock = ManualClock()
        // A grace of 29 s and 1 B/s: by the rate alone, n bytes may take 29 + n seconds,
        // so nothing here is behind the rate whenever the server reads each byte; the
        // whole body's 30 s is what ends it.
        try await withApp(
            engine, clock: clock, setup: .live,
            configure: {
                $0.mediaMinUploadRate = 1
                $0.mediaUploadGrace = 29
                $0.mediaUploadTimeout = 30
            }
        ) { api, services in
            let token = try await api.register("Steady").token
            let upload = try await Self.trickle(api, token: token, from: "198.51.100.10")
            // Admitted (its pace counts from its arrival) before the clock moves.
            try await eventually("the upload admitted") { services.media.admission.total == 1 }
            clock.advance(by: 25)
            try await upload.send([0xE0])
            #expect(upload.answered == nil)
            clock.advance(by: 6)
            try await upload.send([0xE0])
            let answer = try await upload.response()
            #expect(answer.status == 408 && answer.body.contains("upload_too_slow") && answer.body.contains("30 s"))
            try await eventually("the place given back") { services.media.admission.total == 0 }
            await upload.close()
        }
    }

    @Test(
        "a person's stored photos are capped: an upload past the cap is 413 storage_full with the figures, and deleting makes room",
        arguments: engines)
    func storageCap(engine: DatabaseEngine) async throws {
        let photo = try Photos.jpeg(width: 900, height: 700)
        // One upload's stored size, to set a cap that two fit under and three do not.
        let measured = Mutex(0)
        try await withApp(engine) { api, _ in
            let token = try await api.register("Measures").token
            let stored = try await api.upload(photo, use: "cover", token: token).decode(API.Media.self, expecting: .created)
            measured.withLock { $0 = stored.variants.reduce(0) { $0 + $1.bytes } }
        }
        let size = measured.withLock { $0 }
        let cap = size * 2 + size / 2
        let clock = ManualClock()
        try await withApp(engine, clock: clock, configure: { $0.mediaMaxBytesPerUser = cap }) { api, services in
            let token = try await api.register("Collector").token
            #expect(try await api.upload(photo, use: "cover", token: token).status == .created)
            #expect(try await api.upload(photo, use: "cover", token: token).status == .created)
            let refused = try await api.upload(photo, use: "cover", token: token)
            #expect(refused.status == .contentTooLarge)
            #expect(try refused.errorCode == "storage_full")
            let megabytes = String(format: "%.1f MB", Double(cap) / 1_000_000)
            #expect(try refused.decode(API.ErrorBody.self).error.message.contains(megabytes))
            let owner = try #require(UUID(uuidString: try await api.me(token).id))
            #expect(try await services.media.media.storedBytes(of: owner) <= cap)
            // Someone else is not affected.
            #expect(try await api.upload(photo, use: "cover", token: try await api.register("Other").token).status == .created)
            // An upload nobody used goes with the collector; then there is room again.
            clock.advance(by: services.media.settings.unattachedLifetime + 1)
            #expect(try await services.media.collectUnattached().media == 3)
            #expect(try await services.media.media.storedBytes(of: owner) == 0)
            #expect(try await api.upload(photo, use: "cover", token: token).status == .created)
        }
    }

    @Test("every upload admitted counts towards the hour's, a refused or abandoned one too", arguments: [DatabaseEngine.sqlite])
    func admittedUploadsCount(engine: DatabaseEngine) async throws {
        try await withApp(engine, configure: { $0.mediaUploadsPerHour = 2 }) { api, _ in
            let token = try await api.register("Counts").token
            for _ in 0..<2 {
                #expect(try await api.upload(Array("not an image".utf8), use: "profile", token: token).status == .unprocessableContent)
            }
            let over = try await api.upload(try Photos.jpeg(width: 300, height: 200), use: "profile", token: token)
            #expect(over.status == .tooManyRequests)
            #expect(try over.errorCode == "upload_quota")
        }
    }
}
