import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real `sportlook serve` for the tests: the server package's debug binary (built by
/// the server's own build; `SPORTLOOK_BINARY` names another), on SQLite in a temporary
/// file, on a free loopback port, started per test and stopped after it.
final class Server: Sendable {
    let url: URL
    let port: Int
    private let process: Process
    private let folder: URL

    static var binary: String {
        if let named = ProcessInfo.processInfo.environment["SPORTLOOK_BINARY"] { return named }
        // SportLookKit/Tests/SportLookKitTests/Server.swift → the repository's .build/debug/sportlook.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/sportlook").path
    }

    private init(url: URL, port: Int, process: Process, folder: URL) {
        self.url = url
        self.port = port
        self.process = process
        self.folder = folder
    }

    /// Starts a server and waits until it is ready.
    static func start(_ environment: [String: String] = [:]) async throws -> Server {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sportlookkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve"]
        var env = ProcessInfo.processInfo.environment
        for (key, value) in [
            "DATABASE_URL": "sqlite:\(folder.path)/kit.sqlite", "HOST": "127.0.0.1", "PORT": "\(port)", "BCRYPT_COST": "4",
            "RATE_LIMIT_USER": "0", "RATE_LIMIT_GLOBAL": "0", "REGISTER_MAX_PER_ADDRESS": "0", "CHAT_RATE_LIMIT": "100000",
            "WS_FRAME_RATE": "100000", "WS_FRAME_BURST": "100000", "MEDIA_STORE": "file:\(folder.path)/media", "WEB_CLIENT": "off",
            "LOG_LEVEL": "error", "MEDIA_UPLOADS_PER_HOUR": "0",
        ] { env[key] = value }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let logFile = folder.appendingPathComponent("server.log")
        FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let server = Server(url: URL(string: "http://127.0.0.1:\(port)")!, port: port, process: process, folder: folder)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let (_, response) = try? await URLSession.shared.data(from: server.url.appendingPathComponent("ready")),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return server
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        server.stop()
        throw ServerError("sportlook serve at \(binary) did not get ready")
    }

    /// The code in the `n`th mail (from 0) the server wrote to its log for `email`
    /// (`MAIL_TRANSPORT=log`), waiting for it to be written.
    func mailedCode(to email: String, after n: Int) async throws -> String {
        let pattern = try Regex(#"(?:^|[^0-9])([0-9]{6})(?:[^0-9]|$)"#)
        var found: String?
        try await eventually("mail \(n) to \(email)") {
            let log = (try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            // Each mail is one record, its text over several lines: "text=… to=EMAIL [SportLook] mail not sent".
            let mails = log.components(separatedBy: "mail not sent (MAIL_TRANSPORT=log)").filter { $0.contains("to=\(email) ") }
            guard mails.count > n, let text = mails[n].components(separatedBy: "text=").last, let match = text.firstMatch(of: pattern)
            else { return false }
            found = match.output[1].substring.map(String.init)
            return true
        }
        return try #require(found)
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw ServerError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `test` against a fresh server.
func withServer(_ environment: [String: String] = [:], _ test: (Server) async throws -> Void) async throws {
    let server = try await Server.start(environment)
    do {
        try await test(server)
    } catch {
        server.stop()
        throw error
    }
    server.stop()
}

/// Waits until `condition` holds (or fails the test after `timeout`).
func eventually(_ what: String, timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    Issue.record("timed out waiting for \(what)")
    throw ServerError("timed out waiting for \(what)")
}
