import Foundation
import Logging
import Synchronization
import Testing

@testable import SportLook

/// The server's log lines read as swift-log's `StreamLogHandler` writes them (tools and
/// operators read them so), each whole, however many threads log at once.
@Suite("Log lines")
struct LogLinesTests {
    /// Collects what a `StreamLogHandler` writes.
    final class Captured: TextOutputStream, @unchecked Sendable {
        private let text = Mutex("")
        var value: String { text.withLock { $0 } }
        func write(_ string: String) { text.withLock { $0 += string } }
    }

    struct Failure: Error, CustomStringConvertible { var description: String { "the disk is full" } }

    @Test(
        "each line is StreamLogHandler's: level, label, metadata sorted (the logger's, the provider's, the line's, the error's), source, message"
    )
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
            LogEvent(
                level: .warning, message: "writes refused past capacity", metadata: ["queue_full": "3", "waiting": "64", "trace": "own"],
                source: "SportLook", file: #fileID, function: #function, line: #line),
            LogEvent(
                level: .error, message: "a write failed", error: Failure(), metadata: nil, source: "SportLook", file: #fileID,
                function: #function, line: #line),
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
        #expect(
            refused.hasSuffix(
                " warning sportlook: alpha=alpha-value hb.request.id=from the provider queue_full=3 trace=own waiting=64 [SportLook] writes refused past capacity\n"
            ))
    }

    @Test("lines logged from many tasks at once arrive whole, each with its logger's metadata")
    func wholeLines() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let writer = ends[1]
        var logger = Logger(label: "sportlook") { LogLines(label: $0, metadataProvider: nil, descriptor: writer) }
        logger.logLevel = .info
        logger[metadataKey: "hb.request.id"] = "r1"
        let shared = logger
        // Lines five times longer than the pipe's buffer (made one page), read as they come.
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ
        _ = fcntl(writer, setPipeSize, 4096)
        let body = String(repeating: "long message ", count: 1_600)
        let reader = ends[0]
        async let output: [UInt8] = withCheckedContinuation { done in
            DispatchQueue.global().async {
                var read: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = chunk.withUnsafeMutableBytes { Foundation.read(reader, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    read.append(contentsOf: chunk[..<count])
                }
                done.resume(returning: read)
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for n in 0..<20 { shared.warning("\(body)\(task)-\(n)", metadata: ["task": "\(task)"]) }
                    shared.debug("below the level: not written")
                }
            }
        }
        close(writer)
        let read = await output
        let lines = String(decoding: read, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "the output ends with a whole line")
        let written = lines.dropLast()
        #expect(written.count == 160)
        var seen = Set<String>()
        for line in written {
            let rest = line.drop { $0 != " " }
            let task = rest.firstMatch(of: #/task=(\d+) \[SportLookTests\] /#)?.1 ?? ""
            #expect(rest.hasPrefix(" warning sportlook: hb.request.id=r1 task=\(task) [SportLookTests] \(body)\(task)-"), "\(line)")
            seen.insert(String(rest.split(separator: " ").last ?? ""))
        }
        #expect(seen.count == 160, "every line once")
    }
}
