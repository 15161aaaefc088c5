import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if os(Linux) || os(macOS)

    /// A real `sportlook serve` process on a free loopback port, its output in a log file:
    /// for tests that talk to the server as a client does, or kill it.
    public final class LiveServer: Sendable {
        public let port: Int
        public let pid: pid_t
        public let logPath: String
        /// Where the server answers: `http://127.0.0.1:PORT`.
        public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
        /// Whether its exit is being or was collected (its pid may then be another process's).
        private let reaped = Claim()

        /// The `sportlook` the build made: `SPORTLOOK_BINARY` if set, else the one beside the
        /// running test bundle, else `.build/debug/sportlook` under `repository`.
        public static func executable(repository: URL) -> String {
            if let named = ProcessInfo.processInfo.environment["SPORTLOOK_BINARY"] { return named }
            let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sportlook").path
            if FileManager.default.isExecutableFile(atPath: beside) { return beside }
            return repository.appendingPathComponent(".build/debug/sportlook").path
        }

        /// Starts `executable serve` with this process's environment, `HOST`, `PORT` and
        /// `LOG_LEVEL=warning`, then `environment` over them; its output goes to `logPath`
        /// (by default a new file in the temporary folder).
        public init(executable: String, environment extra: [String: String], arguments: [String] = [], logPath: String? = nil) throws {
            guard FileManager.default.isExecutableFile(atPath: executable) else { throw SupportError("\(executable) is not built") }
            let port = try freePort()
            self.port = port
            self.logPath = logPath ?? NSTemporaryDirectory() + "sportlook-serve-\(port)-\(UUID().uuidString.prefix(8)).log"
            var environment = ProcessInfo.processInfo.environment
            environment["PORT"] = String(port)
            environment["HOST"] = "127.0.0.1"
            environment["LOG_LEVEL"] = "warning"
            for (key, value) in extra { environment[key] = value }
            self.pid = try spawn([executable, "serve"] + arguments, environment: environment, output: self.logPath)
        }

        /// Waits until `/ready` answers 200; throws with the end of the log if the process
        /// exits or the time runs out.
        public func waitUntilReady(timeout: Duration = .seconds(60)) async throws {
            let deadline = ContinuousClock.now + timeout
            let port = self.port
            while ContinuousClock.now < deadline {
                if (try? await blocking { try statusLine(port: port, path: "/ready") }) == 200 { return }
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    _ = reaped.take()
                    throw SupportError("sportlook exited: \(log.suffix(2_000))")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw SupportError("sportlook did not become ready: \(log.suffix(2_000))")
        }

        /// Everything the server wrote so far.
        public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

        /// `kill -9`, then waits for the process to be gone (on a thread of its own).
        public func kill9() async throws {
            _ = try await stop(SIGKILL)
        }

        /// SIGTERM, then waits for the exit status (on a thread of its own); nil if it had
        /// been collected already (it exited, or another call stopped it).
        @discardableResult
        public func terminate() async throws -> Int32? {
            try await stop(SIGTERM)
        }

        /// Signals the process and collects its exit, once: a pid whose exit was collected
        /// may be another process's, which must not be signalled. `waitpid` blocks: never on
        /// the cooperative pool, which may run a server under test.
        private func stop(_ signal: Int32) async throws -> Int32? {
            guard reaped.take() else { return nil }
            let pid = self.pid
            kill(pid, signal)
            return try await blocking { exitStatus(of: pid) }
        }

        /// A test that failed before stopping its server does not leave it running (its exit
        /// is not collected: a zombie until the test process ends).
        deinit {
            if reaped.take() { kill(pid, SIGKILL) }
        }
    }

    /// A flag taken once: the first ``take()`` is true, every later one false.
    final class Claim: @unchecked Sendable {
        private let lock = NSLock()
        private var taken = false

        func take() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard !taken else { return false }
            taken = true
            return true
        }
    }

#endif

/// The status of `GET path` on 127.0.0.1:`port` over a plain socket (it blocks: call it
/// through ``blocking(_:)``).
public func statusLine(port: Int, path: String) throws -> Int {
    let fd = try connectLoopback(port: port)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { throw SupportError("cannot send") }
    var buffer = [UInt8](repeating: 0, count: 64)
    let read = recv(fd, &buffer, buffer.count, 0)
    // "HTTP/1.1 200 OK"
    guard read >= 12, let code = Int(String(decoding: buffer[9..<12], as: UTF8.self)) else { throw SupportError("no status line") }
    return code
}
