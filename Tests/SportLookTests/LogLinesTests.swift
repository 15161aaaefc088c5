import Foundation
import Logging
import Synchronization
import Testing
@testable import SportLook

/// The server's log lines read as swift-log's `StreamLogHandler` writes them (tools and
/// operators read them so), while a change of metadata only stores it.
@Suite("Log lines")
struct LogLinesTests {
    /// Collects what a `StreamLogHandler` writes.
    final class Captured: TextOutputStream, @unchecked Sendable {
        private let text = Mutex("")
        var value: String { text.withLock { $0 } }
        func write(_ string: String) { text.withLock { $0 += string } }
    }

    struct Failure: Error, CustomStringConvertible { var description: String { "the disk is full" } }

    @Test("each line is StreamLogHandler's: level, label, metadata sorted (the logger's, the provider's, the line's, the error's), source, message")
    func sameAsStreamLogHandler() throws {
        let provider = Logger.MetadataProvider { ["trace": "abc", "hb.request.id": "from the provider"] }
        let captured = Captured()
        var stream = Logger(label: "sportlook") { StreamLogHandler(label: $0, stream: captured, metadataProvider: provider) }
        var ours = LogLines(label: "sportlook", metadataProvider: provider)
        for key in ["hb.request.id", "zeta", "alpha"] {
            stream[metadataKey: key] = "\(key)-value"
            ours[metadataKey: key] = "\(key)-value"
        }
        stream[metadataKey: "zeta"] = nil
        ours[metadataKey: "zeta"] = nil
        #expect(ours[metadataKey: "alpha"] == "alpha-value" && ours[metadataKey: "zeta"] == nil)

        let events = [
            LogEvent(level: .warning, message: "writes refused past capacity", metadata: ["queue_full": "3", "waiting": "64", "trace": "own"],
                     source: "SportLook", file: #fileID, function: #function, line: #line),
            LogEvent(level: .error, message: "a write failed", error: Failure(), metadata: nil, source: "SportLook", file: #fileID, function: #function, line: #line),
            LogEvent(level: .info, message: "plain", metadata: [:], source: "Hummingbird", file: #fileID, function: #function, line: #line),
        ]
        for event in events {
            stream.handler.log(event: event)
            let line = LogLines.line(event, label: "sportlook", metadata: ours.effectiveMetadata(event), at: time(nil))
            // The same after the timestamp (both local time to the second, written alike).
            let theirs = captured.value.split(separator: "\n").last.map { $0 + "\n" } ?? ""
            #expect(line.drop { $0 != " " } == theirs.drop { $0 != " " }, "\(line) against \(theirs)")
            #expect(line.prefix { $0 != " " }.count == theirs.prefix { $0 != " " }.count)
        }
        let refused = LogLines.line(events[0], label: "sportlook", metadata: ours.effectiveMetadata(events[0]), at: 0)
        #expect(refused.hasSuffix(" warning sportlook: alpha=alpha-value hb.request.id=from the provider queue_full=3 trace=own waiting=64 [SportLook] writes refused past capacity\n"))
    }
}
