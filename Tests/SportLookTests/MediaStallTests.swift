import Foundation
import HTTPTypes
import SportLookAPI
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// A point tasks stop at until it is opened.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, arrivals: Int, waiters: [CheckedContinuation<Void, Never>])>((false, 0, []))

    var arrivals: Int { state.withLock { $0.arrivals } }

    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let go = state.withLock { s -> Bool in
                s.arrivals += 1
                if s.open { return true }
                s.waiters.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A blob store whose writes and removals wait at a gate, then go to another store.
struct StalledBlobStore: BlobStore {
    let inner: any BlobStore
    let gate: Gate

    func put(_ key: String, bytes: [UInt8], contentType: String) async throws {
        await gate.pass()
        try await inner.put(key, bytes: bytes, contentType: contentType)
    }
    func get(_ key: String, range: ClosedRange<Int>?) async throws -> BlobRead? { try await inner.get(key, range: range) }
    func size(_ key: String) async throws -> Int? { try await inner.size(key) }
    func delete(_ key: String) async throws {
        await gate.pass()
        try await inner.delete(key)
    }
    func keys() async throws -> [String] { try await inner.keys() }
}

@Suite("Photos on a slow blob store", .timeLimit(.minutes(10)))
struct MediaStallTests {
    @Test(
        "a blob store that stalls holds no database writer: other writes go on meanwhile, and the upload and the removal finish once it answers",
        arguments: engines)
    func stalledBlobStore(engine: DatabaseEngine) async throws {
        try await withApp(engine) { api, services in
            let gate = Gate()
            let stalled = StalledBlobStore(inner: services.blobs, gate: gate)
            let media = MediaService(
                media: MediaStore(database: services.database), blobs: stalled, write: services.write, clock: services.clock,
                settings: services.media.settings, workers: services.mediaWorkers, logger: services.logger)
            let owner = try #require(UUID(uuidString: try await api.register("Uploader").id))
            let bytes = try Photos.jpeg(width: 600, height: 400)
            let upload = Task { try await media.upload(bytes, use: .profile, by: owner) }
            try await eventually("the upload's PUT to begin") { gate.arrivals > 0 }
            // The PUT waits; the database takes other writes meanwhile (on SQLite the
            // single writer was held through the PUT before: this waited for it).
            let meanwhile = try await api.register("Meanwhile")
            #expect(try await api.patch("/v1/me", token: meanwhile.token, json: ["bio": "written while a photo uploads"]).status == .ok)
            gate.open()
            let stored = try await upload.value
            for variant in stored.variants { #expect(try await services.blobs.size(variant.key) == variant.bytes) }
            // A removal waits at the same gate (open now) and goes: the rows first, then the bytes.
            let keys = try await services.write { sql, _ in
                try await MediaAttachments(store: MediaStore(database: services.database), blobs: stalled).release([stored.id], on: sql)
            }
            #expect(keys.count == stored.variants.count)
            #expect(await MediaAttachments(store: MediaStore(database: services.database), blobs: stalled).removeBlobs(keys) == keys.count)
            for variant in stored.variants { #expect(try await services.blobs.size(variant.key) == nil) }
        }
    }
}
