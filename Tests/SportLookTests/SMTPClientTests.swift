import Foundation
import NIOCore
import NIOEmbedded
import NIOSSL
import Testing

@testable import SportLook

/// The SMTP client's reading and writing, byte by byte (the exchange with a real
/// server is in MailCodesTests).
@Suite("SMTP client")
struct SMTPClientTests {
    static func channel(_ upgrade: SMTPUpgrade) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder(upgrade: upgrade)))
        return channel
    }

    static func upgrade() throws -> SMTPUpgrade {
        SMTPUpgrade(tls: try NIOSSLContext(configuration: .makeClientConfiguration()), serverName: "mail.example.com")
    }

    @Test("replies are read across lines and packets, without their line ends")
    func replies() throws {
        let channel = try Self.channel(try Self.upgrade())
        try channel.writeInbound(ByteBuffer(string: "220 mail.example.com ESMTP\r\n250-mail.example.com\r\n250-STARTTLS\r\n250 AU"))
        try channel.writeInbound(ByteBuffer(string: "TH PLAIN LOGIN\r\n"))
        let greeting = try #require(try channel.readInbound(as: SMTPReply.self))
        #expect(greeting.code == 220 && greeting.lines == ["mail.example.com ESMTP"])
        let hello = try #require(try channel.readInbound(as: SMTPReply.self))
        #expect(hello.code == 250 && hello.lines == ["mail.example.com", "STARTTLS", "AUTH PLAIN LOGIN"])
        #expect(try channel.readInbound(as: SMTPReply.self) == nil)
    }

    @Test("what is not a reply, a line too long, and bytes sent in clear after STARTTLS's go-ahead are refused")
    func refusals() throws {
        #expect(throws: SMTPProblem.self) {
            try Self.channel(try Self.upgrade()).writeInbound(ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\n"))
        }
        #expect(throws: SMTPProblem.self) {
            try Self.channel(try Self.upgrade()).writeInbound(ByteBuffer(string: "250 " + String(repeating: "x", count: 3_000) + "\r\n"))
        }
        // "220 go ahead" followed, in the same packet, by a reply in clear.
        let upgrade = try Self.upgrade()
        let injected = try Self.channel(upgrade)
        upgrade.expectGoAhead()
        #expect(throws: SMTPProblem.self) { try injected.writeInbound(ByteBuffer(string: "220 go ahead\r\n250-x\r\n")) }
        // A clean go-ahead puts TLS in front of the decoder at once.
        let clean = try Self.upgrade()
        let upgraded = try Self.channel(clean)
        clean.expectGoAhead()
        try upgraded.writeInbound(ByteBuffer(string: "220 go ahead\r\n"))
        #expect(throws: Never.self) { _ = try upgraded.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self) }
    }

    @Test("a message is base64 text with its headers encoded, ended by a lone dot")
    func message() throws {
        let from = try #require(MailAddress(parsing: "Équipe SportLook <no-reply@example.com>"))
        let text = MailFormat.message(
            MailMessage(to: "ann@example.com", subject: "Ton code: 123456 ✓", text: ".starts with a dot\nand ends\n"), from: from,
            id: UUID(), date: Date(timeIntervalSince1970: 0))
        #expect(text.hasSuffix("\r\n.\r\n"))
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000"))
        #expect(lines.contains("From: =?UTF-8?B?\(Data("Équipe SportLook".utf8).base64EncodedString())?= <no-reply@example.com>"))
        #expect(lines.contains("Subject: =?UTF-8?B?\(Data("Ton code: 123456 ✓".utf8).base64EncodedString())?="))
        #expect(lines.allSatisfy { $0.utf8.count <= 998 && $0.unicodeScalars.allSatisfy(\.isASCII) })
        let body = lines.drop(while: { !$0.isEmpty }).dropFirst().prefix(while: { $0 != "." }).joined()
        #expect(String(decoding: try #require(Data(base64Encoded: body)), as: UTF8.self) == ".starts with a dot\r\nand ends\r\n")
        #expect(MailAddress(parsing: "Bad\r\nBcc: x@example.com <a@example.com>") == nil)
    }
}
