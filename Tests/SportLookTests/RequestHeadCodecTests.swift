import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import SportLook

@Suite("Request head codec")
struct RequestHeadCodecTests {
    /// What the framework's codec makes of a head, or nil where it refuses it.
    private static func framework(_ head: HTTPRequestHead) -> HTTPRequest? { try? HTTPRequest(head, secure: false, splitCookie: false) }

    @Test("a request head is converted as the framework's codec converts it, whatever its target, method and Host")
    func sameRequests() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "/", "//", "v1", "events", "nearby", "?", "&", "=", "lat=48.8", "#", "%", "%2F", "%zz", " ", "é", "😀", "http:", "https://h",
            ":", "@", "[", "]", "..", ".", "a b", "\u{0}", "\\", "+", ";", ",",
        ]
        var targets = [
            "/", "/health", "/v1/events/nearby?lat=48.8566&lon=2.3522&radius_km=5&limit=50", "//host/path", "/a b", "/%", "/é?é=é",
            "http://example.com/x?y=1", "http://example.com", "https://h:8080/p#f", "*", "", "x", "?a=1", "h:1", "example.com:443",
            "/#frag", "/?",
        ]
        for _ in 0..<3_000 {
            let rest = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            targets.append(Bool.random(using: &generator) ? "/" + rest : rest)
        }
        let methods: [HTTPMethod] = [
            .GET, .POST, .PUT, .PATCH, .DELETE, .OPTIONS, .HEAD, .RAW(value: "PURGE"), .RAW(value: "NOT A METHOD"),
        ]
        let hosts: [HTTPHeaders] = [
            [:], ["Host": "127.0.0.1:8080"], ["host": "a"], ["Host": "a", "Host": "b"],
            ["Authorization": "Bearer x", "Cookie": "a=1; b=2", "HOST": "c"],
        ]
        for target in targets {
            for method in methods.shuffled(using: &generator).prefix(2) {
                let head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: hosts.randomElement(using: &generator)!)
                #expect((try? RequestHeadCodec.request(head)) == Self.framework(head), "\(method) \(Array(target.unicodeScalars))")
            }
        }
    }

    @Test("added after the framework's codec it takes that codec's place, converting both ways; added alone it passes parts through")
    func inPipeline() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        try channel.pipeline.syncOperations.addHandler(RequestHeadCodec())
        #expect((try? channel.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)) == nil)

        var headers = HTTPHeaders([("Host", "127.0.0.1"), ("Authorization", "Bearer abc")])
        headers.add(name: "Accept", value: "*/*")
        try channel.writeInbound(
            HTTPServerRequestPart.head(
                HTTPRequestHead(version: .http1_1, method: .GET, uri: "/v1/events/nearby?lat=1&lon=2", headers: headers)))
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "body")))
        try channel.writeInbound(HTTPServerRequestPart.end(["X-Trailer": "t"]))
        guard case .head(let request) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no head")
            return
        }
        #expect(request.method == .get)
        #expect(request.path == "/v1/events/nearby?lat=1&lon=2")
        #expect(request.authority == "127.0.0.1")
        #expect(request.headerFields[.authorization] == "Bearer abc")
        #expect(request.headerFields[.accept] == "*/*")
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .body(ByteBuffer(string: "body")))
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == .end([HTTPField.Name("X-Trailer")!: "t"]))

        // A target the framework's codec rewrites is still rewritten.
        try channel.writeInbound(
            HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "http://example.com/p?q=1", headers: [:])))
        guard case .head(let absolute) = try channel.readInbound(as: HTTPRequestPart.self) else {
            Issue.record("no head")
            return
        }
        #expect(absolute.path == "/p?q=1")

        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"])))
        try channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: "{}")))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        guard case .head(let head) = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("no response head")
            return
        }
        #expect(head.status == .ok)
        #expect(head.headers["Content-Type"] == ["application/json"])
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == .body(.byteBuffer(ByteBuffer(string: "{}"))))
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == .end(nil))
        _ = try channel.finish()

        // With no framework codec before it, what it receives is converted already.
        let alone = EmbeddedChannel()
        try alone.pipeline.syncOperations.addHandler(RequestHeadCodec())
        let converted = HTTPRequest(method: .get, scheme: "http", authority: "h", path: "/x")
        try alone.writeInbound(HTTPRequestPart.head(converted))
        #expect(try alone.readInbound(as: HTTPRequestPart.self) == .head(converted))
        try alone.writeOutbound(HTTPResponsePart.end(nil))
        #expect(try alone.readOutbound(as: HTTPResponsePart.self) == .end(nil))
        _ = try alone.finish()
    }

    @Test("each connection's channel, as the server sets it up, reads its requests with this codec, not the framework's")
    func inTheServersChannel() async throws {
        let channel = EmbeddedChannel()
        let child = HTTPServerBuilder.sportLookChannel(
            responder: { _, _, _ in }, webSocketResponder: Router(context: AppRequestContext.self).buildResponder())
        _ = try await child.setup(channel: channel, logger: Logger(label: "test")).get()
        try channel.writeInbound(ByteBuffer(string: "GET /v1/events/nearby?lat=1&lon=2 HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect((try? channel.pipeline.syncOperations.context(handlerType: RequestHeadCodec.self)) != nil)
        #expect((try? channel.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)) == nil)
        _ = try? channel.finish()
    }
}
