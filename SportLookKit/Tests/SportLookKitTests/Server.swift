import Foundation
import SportLookTestSupport
import Testing

/// A real `sportlook serve` for the tests (``LiveServer``: the server package's debug
/// binary, or `SPORTLOOK_BINARY`), on SQLite in a temporary folder, with the limits a
/// test does not exercise opened wide, started per test and stopped after it.
final class Server: Sendable {
    let live: LiveServer
    private let folder: URL
    private let settings: [String: String]
    var url: URL { live.url }
    var port: Int { live.port }

    /// SportLookKit/Tests/SportLookKitTests/Server.swift → the repository.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private init(live: LiveServer, folder: URL, settings: [String: String]) {
        self.live = live
        self.folder = folder
        self.settings = settings
    }

    /// Starts a server and waits until it is ready.
    static func start(_ environment: [String: String] = [:]) async throws -> Server {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sportlookkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var settings = [
            "DATABASE_URL": "sqlite:\(folder.path)/kit.sqlite", "BCRYPT_COST": "4", "RATE_LIMIT_USER": "0", "RATE_LIMIT_GLOBAL": "0",
            "REGISTER_MAX_PER_ADDRESS": "0", "CHAT_RATE_LIMIT": "100000", "WS_FRAME_RATE": "100000", "WS_FRAME_BURST": "100000",
            "MEDIA_STORE": "file:\(folder.path)/media", "WEB_CLIENT": "off", "MEDIA_UPLOADS_PER_HOUR": "0", "LOG_LEVEL": "error",
        ]
        for (key, value) in environment { settings[key] = value }
        let live = try LiveServer(
            executable: LiveServer.executable(repository: repository), environment: settings,
            logPath: folder.appendingPathComponent("server.log").path)
        let server = Server(live: live, folder: folder, settings: settings)
        do {
            try await live.waitUntilReady()
        } catch {
            await server.stop()
            throw error
        }
        return server
    }

    /// The code in the `n`th mail (from 0) the server wrote to its log for `email`
    /// (`MAIL_TRANSPORT=log`), waiting for it to be written.
    func mailedCode(to email: String, after n: Int) async throws -> String {
        let pattern = try Regex(#"(?:^|[^0-9])([0-9]{6})(?:[^0-9]|$)"#)
        var found: String?
        try await eventually("mail \(n) to \(email)") {
            // Each mail is one record, its text over several lines: "text=… to=EMAIL [SportLook] mail not sent".
            let mails = live.log.components(separatedBy: "mail not sent (MAIL_TRANSPORT=log)").filter { $0.contains("to=\(email) ") }
            guard mails.count > n, let text = mails[n].components(separatedBy: "text=").last, let match = text.firstMatch(of: pattern)
            else { return false }
            found = match.output[1].substring.map(String.init)
            return true
        }
        return try #require(found)
    }

    /// Runs `sportlook ARGUMENTS` on the server's database (`staff grant …`), waiting for
    /// it to end; its output.
    @discardableResult
    func command(_ arguments: [String]) async throws -> String {
        let output = folder.appendingPathComponent("command-\(UUID().uuidString).log").path
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in settings { environment[key] = value }
        let pid = try spawn([LiveServer.executable(repository: Self.repository)] + arguments, environment: environment, output: output)
        let status = try await blocking { exitStatus(of: pid) }
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw SupportError("sportlook \(arguments.joined(separator: " ")) failed (\(status)): \(printed)") }
        return printed
    }

    func stop() async {
        _ = try? await live.terminate()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Runs `test` against a fresh server.
func withServer(_ environment: [String: String] = [:], _ test: (Server) async throws -> Void) async throws {
    let server = try await Server.start(environment)
    do {
        try await test(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
