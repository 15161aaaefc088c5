import ArgumentParser
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Chat capacity: people in event rooms, every socket subscribed to its room;
/// messages offered at a constant rate (an open loop: the offered rate does not slow
/// down when the server does) that steps up until the p99 of delivery passes the
/// bound; then twice the capacity found, for a while. Each message is counted as
/// accepted (a `sent` frame), refused (an `error` frame naming its client_id, with
/// the time that answer took) or unanswered, and each delivery to each socket of its
/// room once (a seq seen twice on one socket is a duplicate). A socket the server
/// closes reconnects and resumes from the last seq it holds, as a real client does.
struct ChatCapacityBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat-capacity", abstract: "WebSocket chat: capacity under a stepped constant rate, and twice that capacity.")
    @OptionGroup var server: ServerOptions
    @Option var clients = 1_000
    @Option var rooms = 100
    @Option(help: "Messages per second offered at each step, all rooms together (comma-separated).") var steps =
        "200,400,600,800,1000,1200,1500,2000,2500,3000"
    @Option(help: "Seconds of each step.") var stepSeconds = 20
    @Option(help: "Milliseconds: a step whose delivery p99 is above this is past capacity.") var boundMs = 100.0
    @Option(help: "Seconds at twice the capacity found (0: no such step).") var overloadSeconds = 60
    @Option(help: "A name for the rows (the database).") var label = "database"
    @Option(help: "A CSV file the rows are appended to (for the plot).") var csv: String?

    @Option(help: "Sockets the set-up opens at once before it waits for their subscriptions.") var wave = 1_000

    func run() async throws {
        let process = try server.start(["JOB_WORKERS": "1"])
        defer { process.terminate() }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        let perRoom = clients / rooms
        let origin = ContinuousClock.now
        let log = StepLog()
        let made = try await eventRooms(api, rooms: rooms, perRoom: perRoom, prefix: "K")
        let roomIDs = made.map(\.id)
        let members = made.map { $0.people.map(\.token) }
        let url = "ws://127.0.0.1:\(server.port)/v1/ws"
        // Opened in waves (`--wave`, 1,000 by default), each subscribed before the next.
        // All 10,000 at once, each socket's reads and presence write its own, missed
        // the database's 3-s deadline on PostgreSQL (1,954 of 10,000 confirmed, 2026-11-28);
        // since they are read and written in batches, all get in. The steps measure the
        // sockets once all are in.
        var sockets: [[ResumingSocket]] = []
        var opened = 0
        let opening = ContinuousClock.now
        for (r, tokens) in members.enumerated() {
            sockets.append(tokens.map { ResumingSocket(url: url, token: $0, room: roomIDs[r], origin: origin, log: log) })
            opened += tokens.count
            if opened % wave < perRoom || r == members.count - 1 { try await log.waitForSubscriptions(opened) }
        }
        print(
            "set up \(rooms) rooms × \(perRoom) sockets in \(ContinuousClock.now - origin) (the sockets opened and subscribed, \(wave) at a time, in \(ContinuousClock.now - opening))"
        )
        try await Task.sleep(for: .seconds(2))

        let bound = boundMs / 1_000
        var capacity: Int?
        var step = 0
        for rate in steps.split(separator: ",").compactMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            let result = try await offer(
                rate: rate, seconds: stepSeconds, step: step, sockets: sockets, roomIDs: roomIDs, perRoom: perRoom, origin: origin,
                log: log, pid: process.pid)
            print(result.row(label: label, kind: "step"))
            try result.append(csv: csv, label: label, kind: "step")
            step += 1
            if result.p99 > bound || result.lost > 0 || result.duplicates > 0 { break }
            capacity = rate
        }
        print(
            "CAPACITY | \(label) | \(capacity.map(String.init) ?? "below the first step") messages/s (\(capacity.map { String($0 * perRoom) } ?? "-") deliveries/s) with delivery p99 ≤ \(Int(boundMs)) ms"
        )
        if let capacity, overloadSeconds > 0 {
            let result = try await offer(
                rate: 2 * capacity, seconds: overloadSeconds, step: step, sockets: sockets, roomIDs: roomIDs, perRoom: perRoom,
                origin: origin, log: log, pid: process.pid)
            print(result.row(label: label, kind: "twice the capacity"))
            try result.append(csv: csv, label: label, kind: "overload")
        }
        for row in sockets { for socket in row { socket.stop() } }
    }

    /// `rate` messages a second for `seconds`, on schedule whatever the answers; then
    /// waits (at most 30 s) until every message is answered and every accepted one
    /// delivered to every socket of its room.
    func offer(
        rate: Int, seconds span: Int, step: Int, sockets: [[ResumingSocket]], roomIDs: [String], perRoom: Int,
        origin: ContinuousClock.Instant, log: StepLog, pid: pid_t
    ) async throws -> StepResult {
        let rooms = roomIDs.count
        let total = rate * span
        let cpuBefore = (generator: processCPUSeconds(), server: serverCPUSeconds(pid))
        let sendTime = try await onSchedule(rate: rate, count: total) { n in
            let r = n % rooms
            let m = (n / rooms) % perRoom
            let stamp = Int64(seconds(ContinuousClock.now - origin) * 1e9)
            sockets[r][m].send([
                "type": "message", "room_id": roomIDs[r], "body": "\(stamp) \(step) capacity", "client_id": "k\(step)-\(n)-\(stamp)",
            ])
        }
        let cpuAfter = (generator: processCPUSeconds(), server: serverCPUSeconds(pid))
        let drainStart = ContinuousClock.now
        while ContinuousClock.now - drainStart < .seconds(30) {
            let s = log.snapshot(step)
            if s.accepted + s.refused >= total && s.delivered >= s.accepted * perRoom { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let s = log.snapshot(step)
        if !s.refusedAt.isEmpty {
            // When the refusals came, as wall-clock seconds (to set beside the database's log).
            let base = Date().timeIntervalSince1970 - seconds(ContinuousClock.now - origin)
            let times = s.refusedAt.sorted { $0.key < $1.key }.map { "\(Int((base + Double($0.key)).rounded(.down))): \($0.value)" }
            print(
                "REFUSALS | step \(step) | sent in the second of the run starting at (unix time, rounded down): "
                    + times.joined(separator: ", "))
        }
        return StepResult(
            offered: rate, sent: total, seconds: sendTime, accepted: s.accepted, refused: s.refused,
            delivered: s.delivered, expected: s.accepted * perRoom, duplicates: s.duplicates, reconnects: s.reconnects,
            latencies: s.latencies, refusalLatencies: s.refusalLatencies, acceptLatencies: s.acceptLatencies,
            serverCPU: (cpuAfter.server - cpuBefore.server) / sendTime, generatorCPU: (cpuAfter.generator - cpuBefore.generator) / sendTime)
    }
}

/// One step's figures.
struct StepResult {
    var offered: Int
    var sent: Int
    var seconds: Double
    var accepted: Int
    var refused: Int
    var delivered: Int
    var expected: Int
    var duplicates: Int
    var reconnects: Int
    var latencies: Samples
    var refusalLatencies: Samples
    /// From sending to the `sent` answer: the store's part of the delivery time.
    var acceptLatencies: Samples
    var serverCPU: Double
    var generatorCPU: Double

    var p99: Double { latencies.percentile(99) }
    var lost: Int { max(0, expected - delivered) }
    var unanswered: Int { max(0, sent - accepted - refused) }

    func row(label: String, kind: String) -> String {
        "CAP | \(label) | \(kind) | \(offered)/s for \(String(format: "%.0f", seconds)) s | \(formatRate(Double(accepted) / seconds))/s | \(refused) (\(unanswered) unanswered) | "
            + "\(delivered)/\(expected) | \(duplicates) | \(formatLatency(latencies.percentile(50))) | \(formatLatency(p99)) | "
            + "\(refused > 0 ? formatLatency(refusalLatencies.percentile(99)) : "-") | \(accepted > 0 ? formatLatency(acceptLatencies.percentile(50)) + " / " + formatLatency(acceptLatencies.percentile(99)) : "-") | \(String(format: "%.0f %%", serverCPU * 100)) | \(String(format: "%.0f %%", generatorCPU * 100)) | \(reconnects) |"
    }

    func append(csv path: String?, label: String, kind: String) throws {
        try appendCSV(
            path, header: "label,kind,offered,accepted_per_s,refused,p50_ms,p99_ms,lost,duplicates",
            line:
                "\(label),\(kind),\(offered),\(Double(accepted) / seconds),\(refused),\(latencies.percentile(50) * 1e3),\(p99 * 1e3),\(lost),\(duplicates)"
        )
    }
}

/// What the sockets saw, per step (the step is in every message's body and client_id,
/// so a late answer counts for the step that sent it).
final class StepLog: Sendable {
    struct Step {
        var accepted = 0
        var refused = 0
        var delivered = 0
        var duplicates = 0
        var reconnects = 0
        var latencies = Samples()
        var refusalLatencies = Samples()
        var acceptLatencies = Samples()
        /// Refusals by the second their message was sent in (seconds since the origin).
        var refusedAt: [Int: Int] = [:]
    }
    private let steps = Mutex<[Int: Step]>([:])
    private let subscribed = Atomic<Int>(0)
    private let reconnects = Atomic<Int>(0)

    func update(_ step: Int, _ change: (inout Step) -> Void) { steps.withLock { change(&$0[step, default: Step()]) } }
    func snapshot(_ step: Int) -> Step {
        var s = steps.withLock { $0[step] ?? Step() }
        s.reconnects = reconnects.load(ordering: .relaxed)
        return s
    }
    func noteSubscribed() { subscribed.add(1, ordering: .relaxed) }
    func noteReconnect() { reconnects.add(1, ordering: .relaxed) }

    func waitForSubscriptions(_ count: Int) async throws {
        let start = ContinuousClock.now
        while subscribed.load(ordering: .relaxed) < count {
            guard ContinuousClock.now - start < .seconds(300) else {
                throw BenchError("only \(subscribed.load(ordering: .relaxed)) of \(count) subscriptions confirmed")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// A chat client on one room: subscribes, counts what it receives, and when the
/// server closes it, connects again and resumes after the last seq it holds.
final class ResumingSocket: Sendable {
    /// The open connection's queue of frames to send (none between connections: a
    /// message sent then is dropped, and counted as unanswered).
    private let outgoing = Outgoing()
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// The open connection's queue.
    private final class Outgoing: Sendable {
        let current = Mutex<AsyncStream<String>.Continuation?>(nil)
    }

    /// The seqs this socket holds, and the highest.
    private final class Seen: Sendable {
        let state = Mutex<(seqs: Set<Int>, last: Int)>(([], 0))
    }

    init(url: String, token: String, room: String, origin: ContinuousClock.Instant, log: StepLog) {
        let seen = Seen()
        let outgoing = self.outgoing
        let running = Task {
            var logger = Logger(label: "bench-socket")
            logger.logLevel = .critical
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(token)"
            var first = true
            while !Task.isCancelled {
                if !first { log.noteReconnect() }
                let after = seen.state.withLock { $0.last }
                let isFirst = first
                _ = try? await WebSocketClient.connect(
                    url: url, configuration: .init(maxFrameSize: 1 << 16, additionalHeaders: headers), logger: logger
                ) { inbound, outbound, _ in
                    let subscribe = try JSONSerialization.data(withJSONObject: ["type": "subscribe", "room_id": room, "after_seq": after])
                    try await outbound.write(.text(String(decoding: subscribe, as: UTF8.self)))
                    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
                    outgoing.current.withLock { $0 = continuation }
                    let writer = Task { for await frame in stream { try? await outbound.write(.text(frame)) } }
                    defer {
                        outgoing.current.withLock { $0 = nil }
                        continuation.finish()
                        writer.cancel()
                    }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message,
                            let frame = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
                        else { continue }
                        Self.handle(frame, first: isFirst, origin: origin, seen: seen, log: log)
                    }
                }
                first = false
                if !Task.isCancelled { try? await Task.sleep(for: .milliseconds(200)) }
            }
        }
        task.withLock { $0 = running }
    }

    private static func handle(_ frame: [String: Any], first: Bool, origin: ContinuousClock.Instant, seen: Seen, log: StepLog) {
        let now = seconds(ContinuousClock.now - origin)
        switch frame["type"] as? String {
        case "subscribed": if first { log.noteSubscribed() }
        case "message":
            guard let message = frame["message"] as? [String: Any], let seq = message["seq"] as? Int,
                let body = message["body"] as? String
            else { return }
            let parts = body.split(separator: " ")
            guard parts.count >= 2, let stamp = Int64(parts[0]), let step = Int(parts[1]) else { return }
            let fresh = seen.state.withLock { s -> Bool in
                s.last = max(s.last, seq)
                return s.seqs.insert(seq).inserted
            }
            log.update(step) { s in
                if fresh {
                    s.delivered += 1
                    s.latencies.add(now - Double(stamp) / 1e9)
                } else {
                    s.duplicates += 1
                }
            }
        case "sent":
            guard let (step, stamp) = parse(frame["client_id"]) else { return }
            log.update(step) { s in
                s.accepted += 1
                s.acceptLatencies.add(now - Double(stamp) / 1e9)
            }
        case "error":
            guard let (step, stamp) = parse(frame["client_id"]) else { return }
            log.update(step) { s in
                s.refused += 1
                s.refusalLatencies.add(now - Double(stamp) / 1e9)
                s.refusedAt[Int(stamp / 1_000_000_000), default: 0] += 1
            }
        default: break
        }
    }

    /// "k<step>-<n>-<stamp>" → (step, stamp).
    private static func parse(_ value: Any?) -> (Int, Int64)? {
        guard let id = value as? String, id.hasPrefix("k") else { return nil }
        let parts = id.dropFirst().split(separator: "-")
        guard parts.count == 3, let step = Int(parts[0]), let stamp = Int64(parts[2]) else { return nil }
        return (step, stamp)
    }

    func send(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object) else { return }
        _ = outgoing.current.withLock { $0 }?.yield(String(decoding: data, as: UTF8.self))
    }

    func stop() { task.withLock { $0?.cancel() } }
}

/// CPU seconds this process has used (user and system).
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(
        usage.ru_stime.tv_usec) / 1e6
}

/// CPU seconds process `pid` has used, from /proc (0 if it cannot be read).
func serverCPUSeconds(_ pid: pid_t) -> Double {
    guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat") else { return 0 }
    defer { try? handle.close() }
    let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    guard let close = text.lastIndex(of: ")") else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
