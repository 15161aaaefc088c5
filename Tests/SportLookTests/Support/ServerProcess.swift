import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

@testable import SportLook

/// A real `sportlook serve` process, for tests that kill it.
final class ServerProcess: Sendable {
    let port: Int
    let pid: pid_t
    let logPath: String
    /// Whether its exit status was taken (its pid may then be another process's).
    private let reaped = Atomic<Bool>(false)

    /// The `sportlook` executable built next to the test bundle.
    static var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sportlook").path
    }

    init(environment extra: [String: String], arguments: [String] = []) throws {
        let port = try PostgresCluster.freePort()
        self.port = port
        self.logPath = NSTemporaryDirectory() + "sportlook-serve-\(port).log"
        var environment = ProcessInfo.processInfo.environment
        environment["PORT"] = String(port)
        environment["HOST"] = "127.0.0.1"
        environment["LOG_LEVEL"] = "warning"
        // A debug build sharing two cores with the suite: its writes are often slower
        // than a production bound on a standing queue, and its tasks run late (as in
        // testConfiguration). Nor is its wait for the database bounded at the production
        // 3 s: with the whole suite on one cluster a register once waited longer (503).
        environment["DATABASE_WRITE_WAIT"] = "0"
        environment["DATABASE_TIMEOUT"] = "60s"
        environment["OVERLOAD_LAG"] = "0"
        for (k, v) in extra { environment[k] = v }
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else { throw ClusterError("\(Self.executable) is not built") }
        self.pid = try spawn([Self.executable, "serve"] + arguments, environment: environment, output: logPath)
    }

    /// Waits until `/health` answers.
    func waitUntilHealthy(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let reply = try? await LiveHTTP.request("http://127.0.0.1:\(port)/ready"), reply.status == 200 { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                reaped.store(true, ordering: .relaxed)
                throw ClusterError("sportlook exited: \(log.suffix(2_000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ClusterError("sportlook did not become ready: \(log.suffix(2_000))")
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// `kill -9`, then waits for the process to be gone (on a thread of its own).
    func kill9() async throws {
        kill(pid, SIGKILL)
        _ = try await reap()
    }

    /// SIGTERM, then waits for the exit status (on a thread of its own).
    func terminate() async throws -> Int32 {
        kill(pid, SIGTERM)
        return try await reap()
    }

    /// `waitpid` blocks: never on the cooperative pool, which runs the server under test.
    private func reap() async throws -> Int32 {
        let pid = self.pid
        let status = try await blocking { exitStatus(of: pid) }
        reaped.store(true, ordering: .relaxed)
        return status
    }

    /// A test that failed before stopping its server does not leave it running (its exit
    /// is not collected: a zombie until the test process ends).
    deinit {
        if !reaped.load(ordering: .relaxed) { kill(pid, SIGKILL) }
    }
}

/// Plain HTTP to a live server, for tests that run real processes.
enum LiveHTTP {
    struct Reply {
        var status: Int
        var body: Data

        /// The body as `T` if the status is `expected`; otherwise an error with the status and the body.
        func decode<T: Decodable>(_: T.Type, expecting expected: Int) throws -> T {
            let text = String(decoding: body, as: UTF8.self).prefix(2_000)
            guard status == expected else { throw ClusterError("expected \(expected), got \(status): \(text)") }
            do {
                return try API.decoder.decode(T.self, from: body)
            } catch {
                throw ClusterError("\(status) answer is not \(T.self): \(error)\nbody: \(text)")
            }
        }
    }

    static func request(_ url: String, method: String = "GET", token: String? = nil, json: Any? = nil) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), body: Data(body.readableBytesView))
    }
}

/// Starts a program with `posix_spawn`, its output appended to a file.
///
/// Not Foundation's `Process`: `pg_ctl start` leaves a server running that inherits
/// the child's descriptors, and `Process` then waits for ever. Nothing but the three
/// standard descriptors is passed on: a server that inherited a test's sockets would
/// keep them open after the test closes them (a closed WebSocket never reaching its client).
/// No signal is blocked in it (see below).
func spawn(_ argv: [String], environment: [String: String]? = nil, output: String, errors: String? = nil) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    if let errors {
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    } else {
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
    }
    guard let closeFrom = closeFromAction else { throw ClusterError("this C library cannot close descriptors in a spawned program") }
    _ = closeFrom(&actions, 3)
    var cArguments = argv.map { strdup($0) } + [nil]
    defer { for p in cArguments { free(p) } }
    var cEnvironment = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in cEnvironment { free(p) } }
    // The program starts with no signal blocked, as from a shell: a test's threads block
    // some (SIGTERM among them), and a child inheriting that mask would never stop when
    // told to (moto's server outlived every test run).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var pid = pid_t()
    let result = posix_spawn(&pid, argv[0], &actions, &attributes, &cArguments, &cEnvironment)
    guard result == 0 else { throw ClusterError("cannot start \(argv[0]): error \(result)") }
    return pid
}

/// Waits for the spawned program `pid` to end (blocking the thread) and returns its
/// `waitpid` status.
func exitStatus(of pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
/// Glibc module does not declare.
private let closeFromAction: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()
