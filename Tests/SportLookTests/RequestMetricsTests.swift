import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Testing

@testable import SportLook

/// The request metrics are process-wide; this suite uses a method no other test sends
/// (`REPORT`), so its series are its own and their values exact.
@Suite("Request metrics")
struct RequestMetricsTests {
    struct Context: RequestContext {
        struct Source: RequestContextSource { var logger: Logger }
        var coreContext: CoreRequestContextStorage
        init(source: Source) { coreContext = .init(source: source) }
    }

    /// Collects what a body writes.
    final class Sink: @unchecked Sendable { var bytes = 0 }
    struct Writer: ResponseBodyWriter {
        let sink: Sink
        mutating func write(_ buffer: ByteBuffer) async throws { sink.bytes += buffer.readableBytes }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    static let method = HTTPRequest.Method("REPORT")!

    /// The value of a series of `/metrics` whose labels include all of `labels`.
    static func value(_ name: String, _ labels: [String]) -> Double? {
        let text = String(decoding: Observability.render(), as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") && labels.allSatisfy({ line.contains($0) }) {
            return line.split(separator: " ").last.flatMap { Double($0) }
        }
        return nil
    }

    static var active: Double? { value("http_server_active_requests", [#"http_request_method="REPORT""#]) }

    @Test("a request is active until its response is counted, exactly once: small bodies at once, large ones when written or dropped")
    func activeUntilCounted() async throws {
        _ = Observability.registry
        let metrics = RequestMetrics()
        let context = Context(source: .init(logger: Logger(label: "test")))
        let request = Request(
            head: HTTPRequest(method: Self.method, scheme: "http", authority: "localhost", path: "/x"), body: .init(buffer: ByteBuffer()))
        let small = [#"http_request_method="REPORT""#, #"http_response_status_code="200""#, #"http_route="Unknown""#]

        // A small body: counted when the response is ready.
        var started = metrics.start(request)
        #expect(Self.active == 1)
        var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok")))
        metrics.finish(started, &response, request: request, context: context)
        #expect(Self.active == 0)
        #expect(Self.value("hb_requests", small) == 1)
        #expect(Self.value("hb_request_errors", [#"http_request_method="REPORT""#, #"error_type="200""#]) == 0)

        // A body over 64 KiB: active until written, then counted once.
        let large = ByteBuffer(repeating: 7, count: RequestMetrics.writtenAtOnce + 1)
        started = metrics.start(request)
        response = Response(status: .created, body: .init(byteBuffer: large))
        metrics.finish(started, &response, request: request, context: context)
        #expect(Self.active == 1)
        let sink = Sink()
        try await response.body.write(Writer(sink: sink))
        #expect(sink.bytes == large.readableBytes)
        #expect(Self.active == 0)
        #expect(Self.value("hb_requests", [#"http_request_method="REPORT""#, #"http_response_status_code="201""#]) == 1)

        // A large body dropped unwritten (the client went away first): counted all the same.
        started = metrics.start(request)
        do {
            var dropped = Response(status: .accepted, body: .init(byteBuffer: large))
            metrics.finish(started, &dropped, request: request, context: context)
            #expect(Self.active == 1)
        }
        #expect(Self.active == 0)
        #expect(Self.value("hb_requests", [#"http_request_method="REPORT""#, #"http_response_status_code="202""#]) == 1)
    }
}
