import ArgumentParser
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import Synchronization

/// A substitute asked for over a seeded population: games at the demo places, each with
/// one player going who asks (`POST /v1/events/{id}/substitute`), one request at a time;
/// the time of each answer, and how many people each was offered to. The search walks
/// the people index from the game outwards; each person it finds is checked against the
/// game's rules before the place is offered.
struct SubstituteBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "substitute", abstract: "A substitute from nearby: the request's latency over a seeded population.")
    @OptionGroup var server: ServerOptions
    @Option(help: "Requests, one game each.") var requests = 300
    @Option(help: "A file of `lat lon` lines (sportlook-bench centres) the games are put at.") var centres: String
    @Option(help: "The sport of the games (the demo people play it).") var sport = "football"
    @Option(help: "A name for the row (the database).") var label = "database"

    func run() async throws {
        let process = try server.start(["JOB_WORKERS": "0", "METRICS_TOKEN": Client.metricsToken])
        defer { process.terminate() }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        let places = try String(contentsOfFile: centres, encoding: .utf8).split(separator: "\n").compactMap { line -> (Double, Double)? in
            let parts = line.split(separator: " ").compactMap { Double($0) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        guard !places.isEmpty else { throw BenchError("no centres in \(centres)") }
        let organiser = try await api.register("SubOrganiser")
        // A person asks at most 3 times a day: a player for every 3 games.
        var players: [(token: String, id: String)] = []
        for n in 0..<((requests + 2) / 3) { players.append(try await api.register("SubPlayer\(n)")) }
        var games: [(id: String, player: String)] = []
        for n in 0..<requests {
            let (lat, lon) = places[n % places.count]
            let event = try await api.call(
                "POST", "/v1/events", token: organiser.token,
                json: [
                    "title": "Game \(n)", "sport": sport, "location": ["lat": lat, "lon": lon],
                    "starts_at": ISO8601DateFormatter().string(from: Date().addingTimeInterval(2 * 86_400)),
                ])
            guard let id = event.object["id"] as? String else { throw BenchError("event: \(event.status) \(event.object)") }
            let player = players[n / 3].token
            let joined = try await api.call("POST", "/v1/events/\(id)/attendance", token: player)
            guard joined.status == 200 else { throw BenchError("join: \(joined.status)") }
            games.append((id, player))
        }
        var latencies = Samples()
        var offered: [Int] = []
        var refused: [Int: Int] = [:]
        for game in games {
            let start = ContinuousClock.now
            let reply = try await api.call("POST", "/v1/events/\(game.id)/substitute", token: game.player, json: [:])
            latencies.add(seconds(ContinuousClock.now - start))
            if reply.status == 201, let count = reply.object["offered_count"] as? Int {
                offered.append(count)
            } else {
                refused[reply.status, default: 0] += 1
            }
        }
        let mean = offered.isEmpty ? 0 : Double(offered.reduce(0, +)) / Double(offered.count)
        // The people index's share alone, as the server timed it (`/metrics`: the bucket each
        // quantile falls in, so "≤ 1 ms" reads "at most a millisecond").
        let search = Self.quantiles(of: "sportlook_substitute_search_seconds", in: try await api.metrics())
        print(
            "SUBINDEX | \(label) | \(search.count) | ≤ \(search.p50) | ≤ \(search.p99) |"
        )
        print(
            "SUB | \(label) | \(requests) | \(offered.count) | \(String(format: "%.1f", mean)) | \(formatLatency(latencies.percentile(50))) | \(formatLatency(latencies.percentile(99))) | \(formatLatency(latencies.percentile(100))) | \(refused.isEmpty ? "0" : refused.map { "\($0.key): \($0.value)" }.joined(separator: ", ")) |"
        )
    }

    /// The bucket bounds of a Prometheus histogram that hold its p50 and p99, and its count.
    static func quantiles(of name: String, in text: String) -> (count: Int, p50: String, p99: String) {
        var buckets: [(bound: Double, count: Int)] = []
        for line in text.split(separator: "\n") where line.hasPrefix(name + "_bucket{") {
            guard let open = line.range(of: "le=\""), let close = line[open.upperBound...].firstIndex(of: "\""),
                let count = line.split(separator: " ").last.flatMap({ Int($0) })
            else { continue }
            let bound = line[open.upperBound..<close]
            buckets.append((bound == "+Inf" ? .infinity : Double(bound) ?? .infinity, count))
        }
        buckets.sort { $0.bound < $1.bound }
        let total = buckets.last?.count ?? 0
        func bound(_ q: Double) -> String {
            let wanted = Int((q * Double(total)).rounded(.up))
            guard total > 0, let hit = buckets.first(where: { $0.count >= wanted }) else { return "-" }
            return hit.bound.isFinite ? String(format: "%g ms", hit.bound * 1_000) : "+Inf"
        }
        return (total, bound(0.5), bound(0.99))
    }
}

/// A poll in one room with many sockets: votes at a steady rate over HTTP, each one a
/// change of the poll's message that every socket gets as a `poll_votes` frame (or
/// `message_edited`, the message whole). A frame carries the counts as they are, so one
/// frame may bring several votes (those committed before it was read): each vote is
/// delivered to a socket by the first frame whose `after_change` reaches it, and its
/// latency runs from the vote's request to that frame. A frame that does not move a
/// socket forward is a duplicate.
struct PollBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "poll", abstract: "A poll in a room of many sockets: votes at a steady rate, every count change delivered once.")
    @OptionGroup var server: ServerOptions
    @Option var sockets = 1_000
    @Option(help: "Votes per second.") var rate = 100
    @Option(help: "Seconds of voting.") var duration = 30
    @Option(help: "A name for the row (the database).") var label = "database"

    func run() async throws {
        let process = try server.start(["JOB_WORKERS": "1", "METRICS_TOKEN": Client.metricsToken])
        defer { process.terminate() }
        let api = server.client
        _ = try await api.waitUntilReady(of: process)
        let room = try await eventRooms(api, rooms: 1, perRoom: sockets, prefix: "P")[0]
        let options = (1...10).map { ["label": "Option \($0)"] }
        let poll = try await api.call(
            "POST", "/v1/rooms/\(room.id)/messages", token: room.people[0].token,
            json: ["body": "Which evening?", "client_id": "bench-poll", "poll": ["options": options, "multiple": false]])
        guard poll.status == 201, let seq = poll.object["seq"] as? Int else { throw BenchError("poll: \(poll.status) \(poll.object)") }
        let origin = ContinuousClock.now
        let log = VoteLog()
        let url = "ws://127.0.0.1:\(server.port)/v1/ws"
        let clients = room.people.map { PollSocket(url: url, token: $0.token, room: room.id, origin: origin, log: log) }
        try await log.waitForSubscriptions(clients.count)
        // The set-up's own work first: each join queued a notification for the organiser,
        // which the job worker delivers while the votes would come (the first seconds' tail).
        try await waitForQuietJobs(api)
        let total = rate * duration
        let voting = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            _ = try await onSchedule(rate: rate, count: total) { n in
                // Each round of voters moves everyone to the next option: every vote changes the counts.
                let voter = room.people[1 + n % (room.people.count - 1)]
                let option = (n / (room.people.count - 1)) % 10
                let sent = seconds(ContinuousClock.now - origin)
                group.addTask {
                    let reply = try await api.call(
                        "PUT", "/v1/rooms/\(room.id)/messages/\(seq)/poll/votes", token: voter.token, json: ["options": [option]])
                    guard reply.status == 200, let change = reply.object["change_seq"] as? Int else {
                        log.noteFailed()
                        return
                    }
                    log.noteVote(change: change, sentAt: sent, answeredAt: seconds(ContinuousClock.now - origin))
                }
            }
            try await group.waitForAll()
        }
        let votingSeconds = seconds(ContinuousClock.now - voting)
        // Frames still on their way: wait until every socket holds the last change, or 10 s.
        let last = log.lastChange
        let deadline = ContinuousClock.now + .seconds(10)
        while clients.contains(where: { $0.position < last }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        for client in clients { client.stop() }
        let report = log.report(sockets: clients)
        print(
            "POLL | \(label) | \(clients.count) | \(rate)/s for \(duration) s | \(report.votes) (\(log.failed) failed) | \(report.frames) | \(report.delivered) / \(report.expected) | \(report.duplicates) | \(formatLatency(report.latencies.percentile(50))) | \(formatLatency(report.latencies.percentile(99))) | \(String(format: "%.1f", votingSeconds)) s |"
        )
    }
}

/// Returns once the job worker has delivered nothing new for two seconds (`/metrics`'
/// `sportlook_jobs_delivered_total`), or after two minutes.
func waitForQuietJobs(_ api: Client) async throws {
    func delivered() async throws -> Double {
        try await api.metrics().split(separator: "\n")
            .filter { $0.hasPrefix("sportlook_jobs_delivered_total") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            .reduce(0, +)
    }
    let deadline = ContinuousClock.now + .seconds(120)
    var last = try await delivered()
    var quietSince = ContinuousClock.now
    while ContinuousClock.now < deadline, ContinuousClock.now - quietSince < .seconds(2) {
        try await Task.sleep(for: .milliseconds(250))
        let now = try await delivered()
        if now != last { (last, quietSince) = (now, ContinuousClock.now) }
    }
}

/// The votes sent (the change number each answer carried, and when each was sent), and
/// the sockets' subscriptions. An answer is the poll as read after the vote's commit, so
/// votes committed close together may carry the same (the later) change number.
final class VoteLog: Sendable {
    private let votes = Mutex<[(change: Int, sentAt: Double, answeredAt: Double)]>([])
    private let subscribed = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)

    func noteVote(change: Int, sentAt: Double, answeredAt: Double) { votes.withLock { $0.append((change, sentAt, answeredAt)) } }
    func noteFailed() { failures.add(1, ordering: .relaxed) }
    func noteSubscribed() { subscribed.add(1, ordering: .relaxed) }
    var failed: Int { failures.load(ordering: .relaxed) }
    var lastChange: Int { votes.withLock { $0.map(\.change).max() ?? 0 } }

    func waitForSubscriptions(_ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while subscribed.load(ordering: .relaxed) < count {
            guard ContinuousClock.now < deadline else { throw BenchError("\(subscribed.load(ordering: .relaxed)) of \(count) subscribed") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Each vote against each socket's frames: delivered by the first frame reaching its change.
    func report(sockets: [PollSocket]) -> (votes: Int, frames: Int, delivered: Int, expected: Int, duplicates: Int, latencies: Samples) {
        let sent = votes.withLock { $0 }.sorted { $0.change < $1.change }
        var latencies = Samples()
        var (frames, delivered, duplicates) = (0, 0, 0)
        // Where the time goes: the vote's own answer, its first socket, and the spread to its last.
        var first = [Double](repeating: .infinity, count: sent.count)
        var last = [Double](repeating: 0, count: sent.count)
        for socket in sockets {
            let seen = socket.frames
            frames += seen.count
            duplicates += socket.duplicates
            var i = 0
            for (n, (change, at, _)) in sent.enumerated() {
                while i < seen.count, seen[i].change < change { i += 1 }
                guard i < seen.count else { break }
                delivered += 1
                latencies.add(seen[i].at - at)
                first[n] = min(first[n], seen[i].at - at)
                last[n] = max(last[n], seen[i].at - at)
            }
        }
        var answers = Samples()
        var firsts = Samples()
        var spreads = Samples()
        for (n, vote) in sent.enumerated() where first[n].isFinite {
            answers.add(vote.answeredAt - vote.sentAt)
            firsts.add(first[n])
            spreads.add(last[n] - first[n])
        }
        let parts = [("answer", answers), ("first socket", firsts), ("first to last socket", spreads)].map { name, samples in
            "\(name) p50 \(formatLatency(samples.percentile(50))) p99 \(formatLatency(samples.percentile(99)))"
        }
        FileHandle.standardError.write(Data("poll: \(parts.joined(separator: "; "))\n".utf8))
        // The same by the second of voting a vote was sent in: a tail made in bursts shows when.
        var bySecond: [Int: (answers: Samples, lasts: Samples)] = [:]
        let start = sent.map(\.sentAt).min() ?? 0
        for (n, vote) in sent.enumerated() where first[n].isFinite {
            var samples = bySecond[Int(vote.sentAt - start)] ?? (Samples(), Samples())
            samples.answers.add(vote.answeredAt - vote.sentAt)
            samples.lasts.add(last[n])
            bySecond[Int(vote.sentAt - start)] = samples
        }
        let timeline = bySecond.keys.sorted().map { second in
            let (answers, lasts) = bySecond[second]!
            let answer = formatLatency(answers.percentile(99))
            return "\(second) s: \(answers.count) votes, answer p99 \(answer), last socket p99 \(formatLatency(lasts.percentile(99)))"
        }
        FileHandle.standardError.write(Data("poll by second sent:\n\(timeline.joined(separator: "\n"))\n".utf8))
        return (sent.count, frames, delivered, sent.count * sockets.count, duplicates, latencies)
    }
}

/// One socket subscribed to the poll's room: the `poll_votes` and `message_edited` frames it gets, in order.
final class PollSocket: Sendable {
    /// The frames received, and those that did not move the socket forward.
    private final class Received: Sendable {
        let state = Mutex<(frames: [(change: Int, at: Double)], duplicates: Int)>(([], 0))
    }
    private let received = Received()
    private let task = Mutex<Task<Void, Never>?>(nil)

    var frames: [(change: Int, at: Double)] { received.state.withLock { $0.frames } }
    var duplicates: Int { received.state.withLock { $0.duplicates } }
    var position: Int { received.state.withLock { $0.frames.last?.change ?? 0 } }

    init(url: String, token: String, room: String, origin: ContinuousClock.Instant, log: VoteLog) {
        let received = self.received
        let running = Task {
            var logger = Logger(label: "bench-poll-socket")
            logger.logLevel = .critical
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(token)"
            _ = try? await WebSocketClient.connect(
                url: url, configuration: .init(maxFrameSize: 1 << 16, additionalHeaders: headers), logger: logger
            ) { inbound, outbound, _ in
                let subscribe = try JSONSerialization.data(withJSONObject: [
                    "type": "subscribe", "room_id": room, "after_seq": 1, "poll_votes": true,
                ])
                try await outbound.write(.text(String(decoding: subscribe, as: UTF8.self)))
                // The server writes compact JSON with `type` first: the fields this counts are read
                // where they stand, not by decoding each frame whole (the load generator shares the
                // server's two cores, and a thousand sockets get twelve thousand frames a second).
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else { continue }
                    let at = seconds(ContinuousClock.now - origin)
                    switch FrameFields.type(of: text) {
                    case "subscribed": log.noteSubscribed()
                    case "message_edited", "poll_votes":
                        guard let change = FrameFields.integer("after_change", in: text) else { continue }
                        received.state.withLock { s in
                            if change > (s.frames.last?.change ?? 0) { s.frames.append((change, at)) } else { s.duplicates += 1 }
                        }
                    default: break
                    }
                }
            }
        }
        task.withLock { $0 = running }
    }

    func stop() { task.withLock { $0?.cancel() } }
}

/// Fields of the server's compact JSON frames, read in place: the frame's `type` (its
/// first field) and a top-level integer field that comes before any nested object of the
/// same name (`after_change` is the message's last field, after it).
enum FrameFields {
    static func type(of text: String) -> Substring? {
        let prefix = "{\"type\":\""
        guard text.hasPrefix(prefix) else { return nil }
        let rest = text.dropFirst(prefix.count)
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return rest[..<end]
    }

    /// Searched for in the text's bytes, from the end: Foundation's `range(of:options:)`
    /// goes through NSString, and took a third of the load generator's time.
    static func integer(_ name: String, in text: String) -> Int? {
        let key = Array("\"\(name)\":".utf8)
        var text = text
        return text.withUTF8 { bytes -> Int? in
            let starts = stride(from: bytes.count - key.count, through: 0, by: -1)
            guard let start = starts.first(where: { bytes[$0..<$0 + key.count].elementsEqual(key) }) else { return nil }
            let digits = bytes[(start + key.count)...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            return Int(String(decoding: digits, as: UTF8.self))
        }
    }
}
