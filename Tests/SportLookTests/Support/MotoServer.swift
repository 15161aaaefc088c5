import AsyncHTTPClient
import Foundation
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// A real S3-compatible server for the test run: moto's server mode (PyPI
/// `moto[server]`), on a free loopback port, started on first use and stopped when the
/// test process exits. Each test gets a bucket of its own.
actor MotoServer {
    static let shared = MotoServer()
    static let accessKey = "sportlook-test"
    static let secretKey = "sportlook-test-secret"
    static let running = Mutex<pid_t?>(nil)

    private var endpoint: URL?
    private var starting: Task<URL, any Error>?
    private var buckets = 0

    /// A fresh, empty bucket, as a `MEDIA_STORE` setting.
    func freshBucket() async throws -> MediaStoreSetting {
        let endpoint = try await start()
        buckets += 1
        let bucket = "test-\(buckets)-\(UUID().uuidString.prefix(8).lowercased())"
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            try await S3BlobStore(
                endpoint: endpoint, bucket: bucket,
                signer: SigV4(accessKey: Self.accessKey, secretKey: Self.secretKey, region: "us-east-1"), client: client
            ).createBucket()
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        return .s3(bucket: bucket, endpoint: endpoint, region: "us-east-1")
    }

    private func start() async throws -> URL {
        if let endpoint { return endpoint }
        if let starting { return try await starting.value }
        let task = Task { try await Self.launch() }
        starting = task
        let url = try await task.value
        endpoint = url
        return url
    }

    private static func launch() async throws -> URL {
        guard
            let program = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map({ "\($0)/moto_server" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw ClusterError("moto_server is not installed: pip install 'moto[server]' (scripts/test does it)")
        }
        let port = try freePort()
        let log = NSTemporaryDirectory() + "moto-\(port).log"
        let pid = try spawn([program, "-H", "127.0.0.1", "-p", String(port)], output: log)
        running.withLock { $0 = pid }
        atexit {
            if let pid = MotoServer.running.withLock({ $0 }) { kill(pid, SIGTERM) }
        }
        let url = URL(string: "http://127.0.0.1:\(port)")!
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let fd = try? connectLoopback(port: port) {
                close(fd)
                return url
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ClusterError("moto_server did not start within 60 s (see \(log))")
    }
}

/// Which store a media test runs on.
enum StoreKind: String, CustomTestStringConvertible, CaseIterable, Sendable {
    case file, s3
    var testDescription: String { self == .file ? "files" : "S3 (moto)" }
}
