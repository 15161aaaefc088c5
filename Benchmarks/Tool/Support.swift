import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP to the server under test.
struct Client: Sendable {
    let base: String

    /// One HTTP client for the whole run, with room for as many connections as the
    /// load has requests in flight: the shared client's small per-host pool would
    /// queue requests in the benchmark and count that wait as the server's latency.
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 2_048)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The `METRICS_TOKEN` a benchmark gives the server it starts, to read `/metrics`.
    static let metricsToken = "bench-metrics-token"

    /// The server's `/metrics` text (started with ``metricsToken``).
    func metrics() async throws -> String {
        String(decoding: try await call("GET", "/metrics", token: Self.metricsToken).body, as: UTF8.self)
    }

    struct Reply: @unchecked Sendable {
        var status: Int
        var body: Data
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    /// One request; answered 503 `overloaded` (the server past its capacity), it is sent
    /// again after the `Retry-After` it was given (spread ±50%), as a client does.
    func call(_ method: String, _ path: String, token: String? = nil, json: Any? = nil, timeout: TimeAmount = .seconds(30)) async throws
        -> Reply
    {
        for _ in 0..<30 {
            let (reply, retryAfter) = try await once(method, path, token: token, json: json, timeout: timeout)
            guard reply.status == 503, let retryAfter, (reply.object["error"] as? [String: Any])?["code"] as? String == "overloaded" else {
                return reply
            }
            try await Task.sleep(for: .seconds(retryAfter * Double.random(in: 0.5...1.5)))
        }
        return try await once(method, path, token: token, json: json, timeout: timeout).reply
    }

    private func once(_ method: String, _ path: String, token: String?, json: Any?, timeout: TimeAmount) async throws -> (
        reply: Reply, retryAfter: Double?
    ) {
        var request = HTTPClientRequest(url: base + path)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await Self.http.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 32 << 20)
        return (
            Reply(status: Int(response.status.code), body: Data(body.readableBytesView)),
            response.headers.first(name: "Retry-After").flatMap(Double.init)
        )
    }

    func register(_ name: String) async throws -> (token: String, id: String) {
        let reply = try await call(
            "POST", "/v1/auth/register",
            json: [
                "name": name, "email": "\(name.lowercased())-\(UUID().uuidString.prefix(8))@bench.example",
                "password": "benchmark password",
            ])
        guard reply.status == 201, let token = reply.object["access_token"] as? String, let user = reply.object["user"] as? [String: Any],
            let id = user["id"] as? String
        else {
            throw BenchError("register: \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return (token, id)
    }

    /// Waits for `/ready`; fails at once if `process` (the server) exits meanwhile.
    func waitUntilReady(of process: Spawned, timeout: Duration = .seconds(600)) async throws -> Duration {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if let reply = try? await call("GET", "/ready", timeout: .seconds(5)), reply.status == 200 {
                return ContinuousClock.now - start
            }
            if process.hasExited { throw BenchError("the server exited before it was ready: see its log") }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError("server not ready after \(timeout)")
    }
}

/// A process started with posix_spawn (output to a file), killable. It inherits
/// only the three standard descriptors: a server or a PostgreSQL restarted by a
/// benchmark must not hold the harness's sockets open (see the test support's
/// `spawn`, which had that bug).
final class Spawned: Sendable {
    let pid: pid_t

    init(_ argv: [String], environment extra: [String: String] = [:], log: String) throws {
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in extra { environment[k] = v }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        guard let closeFrom = closeFromAction else { throw BenchError("this C library cannot close descriptors in a spawned program") }
        _ = closeFrom(&actions, 3)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for p in cArguments { free(p) } }
        var cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in cEnvironment { free(p) } }
        var pid = pid_t()
        guard posix_spawn(&pid, argv[0], &actions, nil, &cArguments, &cEnvironment) == 0 else {
            throw BenchError("cannot start \(argv[0])")
        }
        self.pid = pid
    }

    /// Runs a shell command to completion, waiting on a thread of its own: a
    /// blocking `waitpid` on one of the few threads of Swift's cooperative pool
    /// would stall the load and the probes that must keep running meanwhile.
    @discardableResult
    static func shell(_ command: String) async throws -> Int32 {
        let process = try Spawned(["/bin/sh", "-c", command], log: "/dev/null")
        return await withCheckedContinuation { continuation in
            Thread {
                var status: Int32 = 0
                waitpid(process.pid, &status, 0)
                continuation.resume(returning: status)
            }.start()
        }
    }

    /// Whether the process has ended (reaps it if so).
    var hasExited: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid
    }

    /// SIGTERM, then up to 30 s for a graceful exit; SIGKILL after that (and says so).
    func terminate() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<300 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(100_000)
        }
        FileHandle.standardError.write(Data("the server did not exit within 30 s of SIGTERM: killed\n".utf8))
        print("NOTE: the server did not exit within 30 s of SIGTERM")
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }
}

/// A WebSocket connection with its frames handed to a callback.
final class BenchSocket: Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(url: String, token: String, onFrame: @escaping @Sendable ([String: Any]) -> Void) async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        self.outgoing = continuation
        var logger = Logger(label: "bench-socket")
        logger.logLevel = .critical
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        let (opened, openedContinuation) = AsyncStream.makeStream(of: Bool.self)
        let running = Task {
            do {
                try await WebSocketClient.connect(
                    url: url, configuration: .init(maxFrameSize: 1 << 16, additionalHeaders: headers), logger: logger
                ) { inbound, outbound, _ in
                    openedContinuation.yield(true)
                    let writer = Task { for await frame in stream { try? await outbound.write(.text(frame)) } }
                    defer { writer.cancel() }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message,
                            let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
                        {
                            onFrame(object)
                        }
                    }
                }
            } catch {}
            openedContinuation.yield(false)
        }
        task.withLock { $0 = running }
        var iterator = opened.makeAsyncIterator()
        guard await iterator.next() == true else { throw BenchError("socket did not open") }
    }

    func send(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object) { outgoing.yield(String(decoding: data, as: UTF8.self)) }
    }

    func close() {
        outgoing.finish()
        task.withLock { $0?.cancel() }
    }
}

/// Counts by key, safely from many tasks.
final class Tally: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func add(_ key: String, _ n: Int = 1) { counts.withLock { $0[key, default: 0] += n } }
    var snapshot: [String: Int] { counts.withLock { $0 } }
}

/// Latencies from many tasks.
final class LatencyLog: Sendable {
    private let values = Mutex<[Double]>([])
    func add(_ seconds: Double) { values.withLock { $0.append(seconds) } }
    var samples: Samples {
        var s = Samples()
        for v in values.withLock({ $0 }) { s.add(v) }
        return s
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
/// Glibc module does not declare.
private let closeFromAction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()
