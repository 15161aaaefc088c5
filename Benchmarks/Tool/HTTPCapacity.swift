import ArgumentParser
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP capacity: one GET route offered at a constant rate (an open loop, like wrk2:
/// request k is due at k / rate whatever the answers, and its latency counts from
/// then, so time spent waiting for a free connection counts too), stepped up until
/// the p99 passes the bound. Each step reports the rate achieved, p50, p99, 503s and
/// other errors, the server's and this process's CPU. The server is started by the
/// run script; this process drives it from one thread.
struct HTTPCapacityBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-capacity", abstract: "An HTTP GET route: capacity under a stepped constant rate.")
    @Option var port: Int
    @Option(help: "Bearer token sent with every request.") var token = ""
    @Option(help: "The path; with --centres, `&lat=…&lon=…` of the next centre is added to each request.") var path: String
    @Option(help: "A file of `lat lon` lines (sportlook-bench centres).") var centres: String?
    @Option(help: "Requests per second offered at each step (comma-separated).") var steps =
        "1000,2000,3000,4000,5000,6000,7000,8000,10000,12000"
    @Option(help: "Seconds of each step.") var stepSeconds = 10
    @Option(help: "Seconds at the first step's rate before it, not counted.") var warmupSeconds = 3
    @Option(help: "Milliseconds: a step whose p99 is above this is past capacity.") var boundMs = 20.0
    @Option(help: "Seconds at twice the capacity found (0: no such step).") var overloadSeconds = 0
    @Option(help: "Connections kept open to the server.") var connections = 128
    @Option(help: "The server's process id (for its CPU time).") var serverPid: Int32 = 0
    @Option(help: "A name for the rows (the database).") var label = "database"
    @Option(help: "A CSV file the rows are appended to (for the plot).") var csv: String?

    func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        var places: [(String, String)] = []
        if let centres {
            for line in try String(contentsOfFile: centres, encoding: .utf8).split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.count == 2 { places.append((String(parts[0]), String(parts[1]))) }
            }
        }
        let engine = OpenLoop(loop: loop, port: port, token: token, path: path, places: places)
        try await engine.connect(connections)
        if warmupSeconds > 0, let first = rates.first { _ = try await engine.step(rate: first, seconds: warmupSeconds) }
        print(
            "| database | offered/s | achieved/s | p50 | p99 | 2xx | 503 | 503 answered, p99 | other errors | unanswered | server CPU | generator CPU |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        var capacity: Int?
        for rate in rates {
            let result = try await measured(engine, rate: rate, seconds: stepSeconds)
            print(result.row(label: label))
            try result.append(csv: csv, label: label, kind: "step")
            if result.p99 > boundMs / 1_000 || result.unanswered > 0 || result.errors > 0 { break }
            capacity = rate
        }
        print(
            "CAPACITY | \(label) | \(capacity.map(String.init) ?? "below the first step") requests/s with p99 ≤ \(formatLatency(boundMs / 1_000))"
        )
        if let capacity, overloadSeconds > 0 {
            let result = try await measured(engine, rate: 2 * capacity, seconds: overloadSeconds)
            print(result.row(label: label + ", twice the capacity"))
            try result.append(csv: csv, label: label, kind: "overload")
        }
        try await engine.close()
        try await group.shutdownGracefully()
    }

    var rates: [Int] { steps.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

    func measured(_ engine: OpenLoop, rate: Int, seconds: Int) async throws -> HTTPStepResult {
        let cpu = (generator: processCPUSeconds(), server: serverPid > 0 ? serverCPUSeconds(serverPid) : 0)
        var result = try await engine.step(rate: rate, seconds: seconds)
        result.generatorCPU = (processCPUSeconds() - cpu.generator) / Double(seconds)
        result.serverCPU = serverPid > 0 ? (serverCPUSeconds(serverPid) - cpu.server) / Double(seconds) : 0
        return result
    }
}

struct HTTPStepResult {
    var offered: Int
    var achieved: Double
    var latencies: Samples
    /// How long the 503s took.
    var refusals = Samples()
    var ok = 0, overloaded = 0, errors = 0, unanswered = 0
    var serverCPU = 0.0, generatorCPU = 0.0

    var p99: Double { latencies.values.isEmpty ? .infinity : latencies.percentile(99) }

    func row(label: String) -> String {
        let p50 = latencies.values.isEmpty ? "-" : formatLatency(latencies.percentile(50))
        return
            "| \(label) | \(formatRate(Double(offered))) | \(formatRate(achieved)) | \(p50) | \(latencies.values.isEmpty ? "-" : formatLatency(p99)) | \(ok) | \(overloaded) | \(overloaded > 0 ? formatLatency(refusals.percentile(99)) : "-") | \(errors) | \(unanswered) | "
            + String(format: "%.0f%% | %.0f%% |", serverCPU * 100, generatorCPU * 100)
    }

    func append(csv path: String?, label: String, kind: String) throws {
        let p50 = latencies.values.isEmpty ? 0 : latencies.percentile(50) * 1_000
        try appendCSV(
            path, header: "label,kind,offered,achieved,p50_ms,p99_ms,ok,overloaded,errors,unanswered,server_cpu,generator_cpu",
            line: "\(label),\(kind),"
                + String(
                    format: "%d,%.1f,%.3f,%.3f,%d,%d,%d,%d,%.3f,%.3f", offered, achieved, p50, min(p99, 1e6) * 1_000,
                    ok, overloaded, errors, unanswered, serverCPU, generatorCPU))
    }
}

/// The load: connections to the server, the requests due and not yet sent, and
/// what each connection is waiting for. Used only on its event loop.
final class OpenLoop: @unchecked Sendable {
    private struct Due {
        var at: UInt64
        var step: Int
    }

    let loop: any EventLoop
    private let port: Int
    private let headers: HTTPHeaders
    private let path: String
    private let places: [(String, String)]
    private var next = 0
    private var idle: [any Channel] = []
    private var waiting: [ObjectIdentifier: Due] = [:]
    private var queue: [Due] = []
    private var queueHead = 0
    // The step running: its number, start, rate, requests issued and to issue.
    private var step = 0
    private var start: UInt64 = 0
    private var rate = 0
    private var issued = 0
    private var total = 0
    private var ticker: RepeatedTask?
    private var result = HTTPStepResult(offered: 0, achieved: 0, latencies: Samples())
    private var answered = 0
    private var lastAnswer: UInt64 = 0
    /// Set when the run ends: connections closing then are not opened again.
    private var closing = false

    init(loop: any EventLoop, port: Int, token: String, path: String, places: [(String, String)]) {
        self.loop = loop
        self.port = port
        var headers = HTTPHeaders([("Host", "127.0.0.1:\(port)")])
        if !token.isEmpty { headers.add(name: "Authorization", value: "Bearer \(token)") }
        self.headers = headers
        self.path = path
        self.places = places
    }

    /// Closes the connections (none is opened again).
    func close() async throws {
        let channels = try await loop.submit { () -> [any Channel] in
            self.closing = true
            return self.idle
        }.get()
        for channel in channels { try? await channel.close() }
    }

    func connect(_ count: Int) async throws {
        for _ in 0..<count { try await open() }
    }

    private func open() async throws {
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(Answers(engine: self))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await loop.submit { self.idle.append(channel) }.get()
    }

    /// Offers `rate` requests a second for `seconds`, then waits (at most 10 s) for the
    /// answers; a request not answered by then counts as unanswered.
    func step(rate: Int, seconds: Int) async throws -> HTTPStepResult {
        try await loop.submit {
            self.step += 1
            self.rate = rate
            self.issued = 0
            self.total = rate * seconds
            self.answered = 0
            self.result = HTTPStepResult(offered: rate, achieved: 0, latencies: Samples())
            self.start = DispatchTime.now().uptimeNanoseconds
            self.ticker = self.loop.scheduleRepeatedTask(initialDelay: .zero, delay: .microseconds(500)) { _ in self.tick() }
        }.get()
        try await Task.sleep(for: .seconds(seconds))
        let deadline = ContinuousClock.now + .seconds(seconds + 10)
        while ContinuousClock.now < deadline {
            if try await loop.submit({ self.issued == self.total && self.answered == self.total }).get() { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try await loop.submit {
            self.ticker?.cancel()
            self.ticker = nil
            var result = self.result
            result.unanswered = self.total - self.answered
            let span = Double(max(self.lastAnswer, self.start + 1) - self.start) / 1e9
            result.achieved = Double(result.ok) / max(span, Double(seconds))
            // What was not sent or answered in time is dropped: the next step starts clean.
            self.queue.removeAll()
            self.queueHead = 0
            return result
        }.get()
    }

    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = min(total, Int(Double(now - start) / 1e9 * Double(rate)))
        while issued < due {
            queue.append(Due(at: start + UInt64(Double(issued) / Double(rate) * 1e9), step: step))
            issued += 1
        }
        dispatch()
    }

    private func dispatch() {
        while queueHead < queue.count, let channel = idle.popLast() {
            let due = queue[queueHead]
            queueHead += 1
            waiting[ObjectIdentifier(channel)] = due
            var uri = path
            if !places.isEmpty {
                let (lat, lon) = places[next % places.count]
                next += 1
                uri += "&lat=\(lat)&lon=\(lon)"
            }
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
            head.headers = headers
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        if queueHead > 4_096, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    fileprivate func answered(_ channel: any Channel, status: Int) {
        guard let due = waiting.removeValue(forKey: ObjectIdentifier(channel)) else { return }
        idle.append(channel)
        if due.step == step {
            let now = DispatchTime.now().uptimeNanoseconds
            answered += 1
            lastAnswer = now
            switch status {
            case 200..<300:
                result.ok += 1
                result.latencies.add(Double(now - due.at) / 1e9)
            case 503:
                result.overloaded += 1
                result.refusals.add(Double(now - due.at) / 1e9)
            default: result.errors += 1
            }
        }
        dispatch()
    }

    fileprivate func lost(_ channel: any Channel) {
        if let due = waiting.removeValue(forKey: ObjectIdentifier(channel)), due.step == step {
            answered += 1
            result.errors += 1
        }
        idle.removeAll { $0 === channel }
        if !closing { Task { try? await self.open() } }
    }
}

private final class Answers: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    let engine: OpenLoop
    var status = 0

    init(engine: OpenLoop) { self.engine = engine }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body: break
        case .end: engine.answered(context.channel, status: status)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        engine.lost(context.channel)
        context.fireChannelInactive()
    }
}
