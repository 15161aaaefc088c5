import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A mailbox for a header: an address and, optionally, a display name.
public struct MailAddress: Sendable, Equatable {
    public var name: String?
    public var address: String

    /// `address`, or `Name <address>`; nil when it is neither (the address itself is
    /// checked by whoever configures it).
    public init?(parsing text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        // Scalars, not characters: "\r\n" is one Character in Swift.
        guard !text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) else { return nil }
        if text.hasSuffix(">"), let open = text.lastIndex(of: "<") {
            let name = text[..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            self.name = name.isEmpty ? nil : name
            self.address = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        } else {
            self.name = nil
            self.address = text
        }
        guard !address.isEmpty, !address.contains(where: { $0 == "<" || $0 == ">" || $0 == "\"" }) else { return nil }
    }

    /// The address's domain (for the greeting and message ids).
    var domain: String { address.split(separator: "@").last.map(String.init) ?? "localhost" }

    /// As a header value: the name quoted, or RFC 2047-encoded when not ASCII.
    var header: String {
        guard let name else { return address }
        return "\(MailFormat.phrase(name)) <\(address)>"
    }
}

/// Where and how the SMTP submission server is reached.
public struct SMTPSettings: Sendable {
    public enum Security: Sendable, Equatable {
        /// `smtp://`: plain, upgraded with STARTTLS when the server offers it.
        case startTLS
        /// `smtps://`: TLS from the first byte.
        case implicitTLS
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    public var from: MailAddress
    /// A PEM file of the certificate authorities to trust instead of the system's.
    public var trustRootsFile: String?
    /// Longest one delivery (connection to QUIT) may take.
    public var timeout: TimeInterval = 30
    /// Mail (and the password) may go without TLS: set only for a loopback server.
    public var allowsPlaintext = false

    /// Reads `smtp://user:pass@host:port` or `smtps://…` (user and password
    /// percent-encoded; port 587 or 465 by default); nil when it is neither.
    public init?(url text: String, from: MailAddress) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "smtp" || scheme == "smtps", let host = components.host, !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.query == nil
        else { return nil }
        self.security = scheme == "smtps" ? .implicitTLS : .startTLS
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? (scheme == "smtps" ? 465 : 587)
        guard (1...65_535).contains(port) else { return nil }
        self.username = components.percentEncodedUser?.removingPercentEncoding
        self.password = components.percentEncodedPassword?.removingPercentEncoding
        self.from = from
    }
}

/// A mail server's answer that refuses a step: 4xx is worth another attempt, 5xx is final.
struct SMTPRefusal: Error, CustomStringConvertible {
    var step: String
    var code: Int
    var text: String
    var isPermanent: Bool { code >= 500 }
    var description: String { "\(step): \(code) \(text)".prefix(500).description }
}

/// Something in the exchange that trying again will not mend (this server and
/// these settings cannot work together), or that may (`isPermanent` false).
struct SMTPProblem: Error, CustomStringConvertible {
    var description: String
    var isPermanent: Bool
}

/// Sends mail by SMTP submission (RFC 6409): EHLO, STARTTLS (or TLS from the
/// start), AUTH PLAIN or LOGIN when a user is configured, one message per
/// connection. Mail goes only over TLS, unless the server is on loopback: a server
/// (or someone between) that offers no STARTTLS gets nothing. Replies in 4xx are
/// retried by the queue, 5xx are final; servers that cannot be reached are
/// retried, settings the server cannot meet are final (no TLS, no usable AUTH, no
/// SMTPUTF8 for an address that needs it).
struct SMTPMailer: Sendable {
    let settings: SMTPSettings
    private let tls: NIOSSLContext
    private let group: any EventLoopGroup

    /// - Throws: When the trust roots file cannot be read.
    init(settings: SMTPSettings, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws {
        self.settings = settings
        self.group = group
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let file = settings.trustRootsFile { configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file)) }
        self.tls = try NIOSSLContext(configuration: configuration)
    }

    /// Delivers `mail`; `id` names the message (its `Message-ID`, the same on every attempt).
    func send(_ mail: MailMessage, id: UUID, at date: Date = Date()) async -> DeliveryOutcome {
        do {
            try await withDeadline(.milliseconds(Int64(settings.timeout * 1000))) { try await self.transact(mail, id: id, date: date) }
            return .delivered
        } catch let refusal as SMTPRefusal {
            return refusal.isPermanent ? .failed(reason: refusal.description) : .retry(after: nil, reason: refusal.description)
        } catch let problem as SMTPProblem {
            return problem.isPermanent ? .failed(reason: problem.description) : .retry(after: nil, reason: problem.description)
        } catch {
            return .retry(
                after: nil, reason: "mail server \(settings.host):\(settings.port) unreachable: \(String(describing: error).prefix(200))")
        }
    }

    /// The name sent in SNI and checked in the certificate (an IP address is checked as one).
    private var serverName: String? {
        let host = settings.host
        return host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
    }

    private func transact(_ mail: MailMessage, id: UUID, date: Date) async throws {
        let upgrade = SMTPUpgrade(tls: tls, serverName: serverName)
        let implicit = settings.security == .implicitTLS
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .connect(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicit { try channel.pipeline.syncOperations.addHandler(try upgrade.handler()) }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder(upgrade: upgrade)))
                    return try NIOAsyncChannel<SMTPReply, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            var session = SMTPSession(replies: inbound.makeAsyncIterator(), outbound: outbound)
            try await session.expect("greeting", 220)
            let helo = settings.from.domain
            var extensions = try await session.hello(helo)
            var secured = implicit
            if !secured, extensions.keys.contains("STARTTLS") {
                // The decoder puts TLS in front of itself on the go-ahead, before any
                // further byte is read (and refuses bytes that came with it).
                upgrade.expectGoAhead()
                try await session.command("STARTTLS", expect: 220)
                secured = true
                extensions = try await session.hello(helo)
            }
            guard secured || settings.allowsPlaintext else {
                throw SMTPProblem(
                    description: "the server offers no STARTTLS: mail goes only over TLS (use smtps:// for TLS from the start)",
                    isPermanent: true)
            }
            if let username = settings.username, let password = settings.password {
                try await session.authenticate(username: username, password: password, mechanisms: extensions["AUTH"] ?? [])
            }
            // An address beyond ASCII needs the server's SMTPUTF8 (RFC 6531).
            let international = !mail.to.unicodeScalars.allSatisfy(\.isASCII) || !settings.from.address.unicodeScalars.allSatisfy(\.isASCII)
            if international, !extensions.keys.contains("SMTPUTF8") {
                throw SMTPProblem(description: "the address is not ASCII and the server offers no SMTPUTF8", isPermanent: true)
            }
            try await session.command("MAIL FROM:<\(settings.from.address)>" + (international ? " SMTPUTF8" : ""), expect: 250)
            try await session.command("RCPT TO:<\(mail.to)>", expect: 250, 251)
            try await session.command("DATA", expect: 354)
            try await session.send(MailFormat.message(mail, from: settings.from, id: id, date: date))
            try await session.expect("message", 250)
            // Accepted: say goodbye without waiting for the answer.
            try? await session.send("QUIT\r\n")
        }
    }
}

/// One reply: its code and its text, line by line.
struct SMTPReply: Sendable {
    var code: Int
    var lines: [String]
}

/// STARTTLS, as the decoder carries it out: once told a go-ahead is due, the
/// decoder adds the TLS handler in front of itself on the event loop as it reads
/// the 220, and refuses any byte that came after it in clear (it would otherwise
/// be read as if it had come through TLS).
final class SMTPUpgrade: Sendable {
    let tls: NIOSSLContext
    let serverName: String?
    private let pending = Mutex(false)

    init(tls: NIOSSLContext, serverName: String?) {
        self.tls = tls
        self.serverName = serverName
    }

    func handler() throws -> NIOSSLClientHandler { try NIOSSLClientHandler(context: tls, serverHostname: serverName) }
    func expectGoAhead() { pending.withLock { $0 = true } }
    /// Whether the reply now read answers STARTTLS (and the expectation ends).
    func takeGoAhead() -> Bool {
        pending.withLock { value in
            defer { value = false }
            return value
        }
    }
}

/// Splits the server's bytes into replies (RFC 5321 §4.2: `250-…` lines continue,
/// `250 …` ends). Lines are at most 2,000 bytes and replies 100 lines.
final class SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply
    private let upgrade: SMTPUpgrade
    private var lines: [String] = []

    init(upgrade: SMTPUpgrade) { self.upgrade = upgrade }

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            guard buffer.readableBytes <= 2_000 else { throw SMTPProblem(description: "a reply line over 2,000 bytes", isPermanent: false) }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex + 1
        guard length <= 2_000 else { throw SMTPProblem(description: "a reply line over 2,000 bytes", isPermanent: false) }
        var bytes = buffer.readBytes(length: length) ?? []
        // Bytes, not characters: "\r\n" is one Character in Swift.
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
        let line = String(decoding: bytes, as: UTF8.self)
        guard bytes.count >= 3, bytes.prefix(3).allSatisfy({ (0x30...0x39).contains($0) }), let code = Int(String(line.prefix(3))),
            bytes.count == 3 || bytes[3] == UInt8(ascii: " ") || bytes[3] == UInt8(ascii: "-")
        else { throw SMTPProblem(description: "not an SMTP reply: \(line.prefix(80))", isPermanent: false) }
        lines.append(bytes.count > 4 ? String(line.dropFirst(4)) : "")
        guard lines.count <= 100 else { throw SMTPProblem(description: "a reply of over 100 lines", isPermanent: false) }
        if bytes.count > 3, bytes[3] == UInt8(ascii: "-") { return .continue }
        let reply = SMTPReply(code: code, lines: lines)
        lines = []
        if upgrade.takeGoAhead() {
            guard buffer.readableBytes == 0 else {
                throw SMTPProblem(description: "the server sent more after agreeing to STARTTLS", isPermanent: false)
            }
            if code == 220 {
                try context.pipeline.syncOperations.addHandler(try upgrade.handler(), position: .first)
                // The read-complete now under way reaches the TLS handler first, which
                // keeps it (no plaintext yet): the go-ahead is passed on complete here.
                context.fireChannelRead(wrapInboundOut(reply))
                context.fireChannelReadComplete()
                return .continue
            }
        }
        context.fireChannelRead(wrapInboundOut(reply))
        return .continue
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue, buffer.readableBytes > 0 {}
        return .needMoreData
    }
}

/// One conversation with the server: a command, then its reply.
private struct SMTPSession {
    var replies: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    init(replies: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.replies = replies
        self.outbound = outbound
    }

    /// The next reply, which must have one of `codes` (a 4xx or 5xx is a refusal).
    @discardableResult
    mutating func expect(_ step: String, _ codes: Int...) async throws -> SMTPReply {
        try await reply(to: step, codes)
    }

    mutating func send(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Sends one command line and reads its reply. `step` names it in errors (by
    /// default its verb, with MAIL's and RCPT's address: never an AUTH argument).
    @discardableResult
    mutating func command(_ line: String, step: String? = nil, expect codes: Int...) async throws -> SMTPReply {
        try await send(line + "\r\n")
        let words = line.split(separator: " ")
        return try await reply(
            to: step ?? words.prefix(words.first == "MAIL" || words.first == "RCPT" ? 2 : 1).joined(separator: " "), codes)
    }

    private mutating func reply(to step: String, _ codes: [Int]) async throws -> SMTPReply {
        guard let reply = try await replies.next() else {
            throw SMTPProblem(description: "\(step): the server closed the connection", isPermanent: false)
        }
        guard codes.contains(reply.code) else {
            let text = reply.lines.joined(separator: " ")
            if reply.code >= 400 { throw SMTPRefusal(step: step, code: reply.code, text: text) }
            throw SMTPProblem(description: "\(step): unexpected reply \(reply.code) \(text.prefix(200))", isPermanent: true)
        }
        return reply
    }

    /// EHLO (HELO when the server knows no EHLO); the extensions offered, by
    /// keyword, with their parameters.
    mutating func hello(_ name: String) async throws -> [String: [String]] {
        do {
            let reply = try await command("EHLO \(name)", expect: 250)
            var extensions: [String: [String]] = [:]
            for line in reply.lines.dropFirst() {
                let words = line.uppercased().split(whereSeparator: { $0 == " " || $0 == "=" }).map(String.init)
                if let keyword = words.first { extensions[keyword, default: []] += words.dropFirst() }
            }
            return extensions
        } catch let refusal as SMTPRefusal where refusal.code == 500 || refusal.code == 502 {
            try await command("HELO \(name)", expect: 250)
            return [:]
        }
    }

    /// AUTH PLAIN when offered, else AUTH LOGIN (RFC 4954, 4616).
    mutating func authenticate(username: String, password: String, mechanisms: [String]) async throws {
        func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
        if mechanisms.contains("PLAIN") {
            try await command("AUTH PLAIN " + base64("\u{0}\(username)\u{0}\(password)"), step: "AUTH PLAIN", expect: 235)
        } else if mechanisms.contains("LOGIN") {
            try await command("AUTH LOGIN", expect: 334)
            try await command(base64(username), step: "AUTH LOGIN (user name)", expect: 334)
            try await command(base64(password), step: "AUTH LOGIN (password)", expect: 235)
        } else {
            throw SMTPProblem(
                description: "the server offers neither AUTH PLAIN nor AUTH LOGIN (it offers: \(mechanisms.joined(separator: " ")))",
                isPermanent: true)
        }
    }
}

/// The text of a message (RFC 5322, MIME): plain UTF-8 text, base64 so that no
/// line is too long and none starts with a dot, ended by the lone dot of DATA.
enum MailFormat {
    static func message(_ mail: MailMessage, from: MailAddress, id: UUID, date: Date) -> String {
        var lines = [
            "From: \(from.header)",
            "To: <\(mail.to)>",
            "Subject: \(encodedWord(mail.subject))",
            "Date: \(rfc5322(date))",
            "Message-ID: <\(id.uuidString.lowercased())@\(from.domain)>",
            "Auto-Submitted: auto-generated",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64",
            "",
        ]
        let text = mail.text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        let body = Data(text.utf8).base64EncodedString()
        var index = body.startIndex
        while index < body.endIndex {
            let end = body.index(index, offsetBy: 76, limitedBy: body.endIndex) ?? body.endIndex
            lines.append(String(body[index..<end]))
            index = end
        }
        return lines.joined(separator: "\r\n") + "\r\n.\r\n"
    }

    /// A header text as is when printable ASCII, otherwise as an RFC 2047 encoded word.
    static func encodedWord(_ text: String) -> String {
        let clean = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if clean.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) { return clean }
        return "=?UTF-8?B?\(Data(clean.utf8).base64EncodedString())?="
    }

    /// A display name: quoted when ASCII, an encoded word otherwise.
    static func phrase(_ name: String) -> String {
        let word = encodedWord(name)
        guard word == name.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ") else { return word }
        return "\"" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func rfc5322(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
