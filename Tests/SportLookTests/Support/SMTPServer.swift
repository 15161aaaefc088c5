import Foundation
import SportLookTestSupport
import Synchronization
import Testing

@testable import SportLook

/// A real SMTP server for one test: aiosmtpd (PyPI) running `Tests/fakes/smtp_server.py`
/// on a free loopback port, with STARTTLS from a test authority and AUTH required.
/// It keeps every message it accepts; it can be stopped and started again on the
/// same port (the same authority, the same messages).
final class SMTPServer: Sendable {
    let port: Int
    let folder: String
    /// Offers neither STARTTLS nor AUTH.
    let plain: Bool
    private let pid: Mutex<pid_t?>

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fakes/smtp_server.py").path

    init(plain: Bool = false) async throws {
        self.plain = plain
        port = try freePort()
        folder = NSTemporaryDirectory() + "smtp-\(UUID().uuidString)"
        pid = Mutex(nil)
        try await start()
    }

    /// The server's settings for the service: STARTTLS, AUTH, the test authority trusted.
    func configure(_ configuration: inout AppConfiguration) {
        var settings = SMTPSettings(
            url: plain ? "smtp://localhost:\(port)" : "smtp://sportlook:s3cret%20pass@localhost:\(port)",
            from: MailAddress(parsing: "SportLook <no-reply@sportlook.test>")!)!
        settings.trustRootsFile = folder + "/ca.pem"
        settings.timeout = 30
        configuration.mail = .smtp(settings)
    }

    func start() async throws {
        let started = try await startFake(
            script: Self.script, arguments: [String(port), folder] + (plain ? ["plain"] : []), port: port, readyFile: folder + "/ca.pem",
            log: NSTemporaryDirectory() + "smtp-\(port).log", what: "the SMTP server (pip install aiosmtpd trustme)")
        pid.withLock { $0 = started }
    }

    /// Stops the server and waits until it is gone (its port refuses connections).
    func stop() async {
        guard
            let running = pid.withLock({ value -> pid_t? in
                defer { value = nil }
                return value
            })
        else { return }
        kill(running, SIGTERM)
        var status: Int32 = 0
        waitpid(running, &status, 0)
    }

    deinit { stopFake(pid.withLock { $0 }, folder: folder) }

    /// One message as received: the envelope recipient, the headers, the decoded text.
    struct Message: Sendable {
        var recipient: String
        var headers: [String: String]
        var text: String

        /// The 6-digit code on a line of its own.
        var code: String? {
            text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.count == 6 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
        }
    }

    /// Every message received so far, oldest first.
    func messages() throws -> [Message] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".eml") }.sorted()
        return try names.map { name in
            let raw = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            let parts = raw.components(separatedBy: "\r\n\r\n")
            var headers: [String: String] = [:]
            for line in parts[0].components(separatedBy: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[String(line[..<colon]).lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let body = parts.dropFirst().joined(separator: "\r\n\r\n").components(separatedBy: "\r\n").joined()
            #expect(headers["content-transfer-encoding"] == "base64")
            let text = Data(base64Encoded: body).map { String(decoding: $0, as: UTF8.self) } ?? ""
            return Message(recipient: headers["x-envelope-to"] ?? "", headers: headers, text: text)
        }
    }

    /// Waits for the messages to `address` until there are `count` of them.
    func messages(to address: String, count: Int = 1) async throws -> [Message] {
        try await eventually("\(count) message(s) to \(address)") { try self.messages().filter { $0.recipient == address }.count >= count }
        return try messages().filter { $0.recipient == address }
    }
}

/// Stops a fake ``startFake(script:arguments:port:readyFile:log:what:)`` started (if it did) and removes its folder.
func stopFake(_ running: pid_t?, folder: String) {
    if let running {
        kill(running, SIGKILL)
        var status: Int32 = 0
        waitpid(running, &status, 0)
    }
    try? FileManager.default.removeItem(atPath: folder)
}

/// Starts one of `Tests/fakes`' Python servers and waits (a minute at most) until it
/// has written `readyFile` and accepts connections on `port`; its process id.
func startFake(script: String, arguments: [String], port: Int, readyFile: String, log: String, what: String) async throws -> pid_t {
    guard
        let python = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map({ "\($0)/python3" }).first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        })
    else {
        throw ClusterError("python3 is not installed")
    }
    let started = try spawn([python, script] + arguments, output: log)
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        if FileManager.default.fileExists(atPath: readyFile), let fd = try? connectLoopback(port: port) {
            close(fd)
            return started
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    kill(started, SIGKILL)
    var status: Int32 = 0
    waitpid(started, &status, 0)
    throw ClusterError("\(what) did not start within 60 s; see \(log)")
}
