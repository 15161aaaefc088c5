import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// HTTP clients that connect to endpoints clients supplied, each pinned to an
/// address checked before any packet leaves: the host's name is resolved here,
/// every address is checked against the policy, and the connection goes to the
/// checked address (the certificate is still verified for the name). So a name
/// that resolves to a private address, or changes its answer between the check
/// and the connection (DNS rebinding), reaches nothing it should not.
actor PinnedClients {
    private let policy: PushEndpointPolicy
    private let tls: TLSConfiguration
    private let timeout: TimeInterval
    /// One client per host and port, with the address it is pinned to.
    private var clients: [String: (address: String, client: HTTPClient, used: ContinuousClock.Instant)] = [:]
    /// Hosts kept at once; beyond, the least recently used client is retired.
    private let capacity = 64

    /// The endpoint may not be reached (final for the device).
    struct Refused: Error, CustomStringConvertible { var description: String }
    /// The name could not be looked up now (no answer in time, the resolver failing):
    /// worth another attempt later.
    struct LookupFailed: Error, CustomStringConvertible { var description: String }
    /// The resolver says the name does not exist, or has no address.
    struct NoSuchName: Error {}

    /// Looks a name up: its addresses, ``NoSuchName``, or any other error for a lookup that failed.
    typealias Resolve = @Sendable (_ host: String, _ port: Int) async throws -> [String]

    /// - Parameters:
    ///   - resolve: The lookup (`getaddrinfo` on threads of its own when `nil`).
    ///   - lookupLimit: Longest a lookup is waited for.
    ///   - answerMemory: How long a name's answer is used before it is looked up again.
    ///   - failureMemory: How long a failed lookup is remembered (pushes to the name meanwhile are tried again later).
    ///   - staleLimit: How long after its lookup a name's last good answer still stands in for lookups that fail.
    init(
        policy: PushEndpointPolicy, tls: TLSConfiguration, timeout: TimeInterval, resolve: Resolve? = nil,
        lookupLimit: Duration = .seconds(5), answerMemory: Duration = .seconds(60), failureMemory: Duration = .seconds(10),
        staleLimit: Duration = .seconds(3_600)
    ) {
        self.policy = policy
        self.tls = tls
        self.timeout = timeout
        self.lookupLimit = lookupLimit
        self.answerMemory = answerMemory
        self.failureMemory = failureMemory
        self.staleLimit = staleLimit
        if let resolve {
            self.resolver = nil
            self.resolve = resolve
        } else {
            let resolver = NIOThreadPool(numberOfThreads: Self.lookupThreads)
            resolver.start()
            self.resolver = resolver
            self.resolve = { host, port in try await Self.resolve(host, port: port, on: resolver) }
        }
    }

    /// A client whose connections to `url`'s host go to a checked address.
    func client(for url: URL) async throws -> HTTPClient {
        guard url.scheme?.lowercased() == "https" else { throw Refused(description: "the endpoint is not https") }
        guard let rawHost = url.host, !rawHost.isEmpty else { throw Refused(description: "the endpoint names no host") }
        // The host exactly as AsyncHTTPClient will look it up in `dnsOverride` (case kept).
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let port = url.port ?? 443
        let addresses = AddressRange.bytes(of: host) != nil ? [host] : try await addresses(of: host, port: port)
        guard let address = addresses.first else { throw Refused(description: "the endpoint's name has no address") }
        if let refused = addresses.first(where: { policy.refuses(address: $0, port: port) }) {
            throw Refused(description: "the endpoint resolves to a refused address (\(refused))")
        }
        let key = "\(host):\(port)"
        if let held = clients[key], addresses.contains(held.address) {
            clients[key]?.used = .now
            return held.client
        }
        if let held = clients.removeValue(forKey: key) { retire(held.client) }
        if clients.count >= capacity, let oldest = clients.min(by: { $0.value.used < $1.value.used }) {
            clients.removeValue(forKey: oldest.key)
            retire(oldest.value.client)
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .milliseconds(Int64(min(timeout, 10) * 1000)), read: .milliseconds(Int64(timeout * 1000)))
        if AddressRange.bytes(of: host) == nil { configuration.dnsOverride = [host: address] }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        clients[key] = (address, client, .now)
        return client
    }

    /// What a lookup found.
    enum Lookup: Sendable {
        case addresses([String])
        case noSuchName
        case failed(String)
    }

    /// What a name resolved to, or that it does not exist, kept ``answerMemory``; a
    /// failed lookup is kept ``failureMemory`` (a name whose resolver does not answer
    /// costs one slow lookup then, not one per push).
    private struct Answer {
        var lookup: Lookup
        var until: ContinuousClock.Instant
        /// The last addresses the name resolved to, and until when they may stand in
        /// (a resolver's outage must not stop the pushes to a push service whose
        /// address was known a minute ago).
        var lastGood: (addresses: [String], until: ContinuousClock.Instant)?
        /// When a push last asked for the name: the names kept when there are too many.
        var used: ContinuousClock.Instant
    }

    private var answers: [String: Answer] = [:]
    /// Names kept at once; past it, the half least recently asked for are forgotten.
    static let answerCapacity = 10_000
    /// Lookups under way: a push to a name being looked up waits for that lookup.
    private var lookups: [String: Task<Lookup, Never>] = [:]
    /// Lookups run on threads of their own, a few at a time, each given ``lookupLimit``
    /// (none when the lookup is given).
    private static let lookupThreads = 4
    private let resolver: NIOThreadPool?
    private let resolve: Resolve
    private let lookupLimit: Duration
    private let answerMemory: Duration
    private let failureMemory: Duration
    private let staleLimit: Duration
    /// Lookups of names without an address to go on that have not returned yet,
    /// abandoned ones included (a resolver that never answers holds its thread until it
    /// gives up).
    private let newNameLookups = LookupCount()
    /// At most this many of them at once: endpoints may name any host, and a few names
    /// whose DNS never answers must not take every lookup thread from the push
    /// services already known. Past it, a push to such a name is tried again later.
    static let newNameLimit = 2
    /// Refreshes of names that have an address to go on, at most this many at once
    /// (the other 2 threads): a name that resolved once and whose DNS then hangs must
    /// not take the threads new names need. Past it, the push goes to the address held
    /// and the name is refreshed later.
    private let refreshLookups = LookupCount()
    static let refreshLimit = lookupThreads - newNameLimit

    final class LookupCount: Sendable {
        private let count = Mutex(0)
        /// Counts one in unless `limit` are under way already.
        func enter(limit: Int) -> Bool {
            count.withLock { n in
                guard n < limit else { return false }
                n += 1
                return true
            }
        }
        func leave() { count.withLock { $0 -= 1 } }
    }

    /// The addresses to connect to for `host`:
    /// - a fresh answer;
    /// - else, with a last good answer, that answer at once, while a lookup refreshes
    ///   it behind (a push never waits for the lookup of a name it has an address for,
    ///   so a name whose DNS stops answering holds up nothing);
    /// - else a lookup, waited for, at most ``newNameLimit`` of them at once.
    private func addresses(of host: String, port: Int) async throws -> [String] {
        let now = ContinuousClock.now
        answers[host]?.used = now
        let known = answers[host]
        let lastGood = self.lastGood(of: host, at: now)
        let lookup: Lookup
        if let known, known.until > now {
            lookup = known.lookup
        } else if let lastGood {
            if lookups[host] == nil, refreshLookups.enter(limit: Self.refreshLimit) {
                lookups[host] = startLookup(host, port: port, counted: refreshLookups)
            }
            return lastGood
        } else if let running = lookups[host] {
            lookup = await running.value
        } else {
            guard newNameLookups.enter(limit: Self.newNameLimit) else {
                throw LookupFailed(description: "too many names without an address are being looked up; tried again later")
            }
            let task = startLookup(host, port: port, counted: newNameLookups)
            lookups[host] = task
            lookup = await task.value
        }
        switch lookup {
        case .addresses(let found) where !found.isEmpty: return found
        case .addresses, .noSuchName: throw Refused(description: "the endpoint's name does not resolve")
        case .failed(let reason):
            if let stale = self.lastGood(of: host, at: .now) { return stale }
            throw LookupFailed(description: "the endpoint's name could not be looked up: \(reason)")
        }
    }

    /// The last addresses `host` resolved to, while they may still stand in.
    private func lastGood(of host: String, at now: ContinuousClock.Instant) -> [String]? {
        answers[host]?.lastGood.flatMap { $0.until > now ? $0.addresses : nil }
    }

    /// Looks `host` up and keeps what it found; `counted` is left when the lookup itself
    /// returns, not when it is given up on.
    private func startLookup(_ host: String, port: Int, counted count: LookupCount) -> Task<Lookup, Never> {
        let resolve = self.resolve
        let counted: Resolve = { host, port in
            defer { count.leave() }
            return try await resolve(host, port)
        }
        return Task { [lookupLimit] in
            let lookup = await Self.lookUp(host, port: port, resolve: counted, limit: lookupLimit)
            self.keep(lookup, for: host)
            return lookup
        }
    }

    private func keep(_ lookup: Lookup, for host: String) {
        lookups[host] = nil
        let now = ContinuousClock.now
        let before = answers[host]
        var answer = Answer(lookup: lookup, until: now + answerMemory, lastGood: nil, used: before?.used ?? now)
        switch lookup {
        case .addresses(let found) where !found.isEmpty:
            answer.lastGood = (found, now + staleLimit)
        case .addresses, .noSuchName:
            break  // the name is gone: its old addresses are no one's push service now
        case .failed:
            answer.until = now + failureMemory
            answer.lastGood = before?.lastGood
        }
        answers[host] = answer
        if answers.count > Self.answerCapacity {
            // The names pushes asked for least recently go; the push services in use stay.
            let kept = answers.sorted { $0.value.used > $1.value.used }.prefix(Self.answerCapacity / 2)
            answers = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
    }

    /// One lookup, waited for at most `limit`: a resolver that hangs is left behind,
    /// not waited for.
    static func lookUp(_ host: String, port: Int, resolve: @escaping Resolve, limit: Duration) async -> Lookup {
        do {
            return .addresses(try await withDeadline(limit) { try await resolve(host, port) })
        } catch is NoSuchName {
            return .noSuchName
        } catch {
            return .failed("\(error)")
        }
    }

    /// Shuts a client down once what it is sending has had time to finish.
    private nonisolated func retire(_ client: HTTPClient) {
        let grace = timeout + 5
        Task {
            try? await Task.sleep(for: .seconds(grace))
            try? await client.shutdown()
        }
    }

    func close() async {
        for (_, held) in clients { try? await held.client.shutdown() }
        clients = [:]
        try? await resolver?.shutdownGracefully()
    }

    /// The addresses `host` resolves to (getaddrinfo, on a thread of its own: it blocks);
    /// ``NoSuchName`` when the resolver says there is none.
    static func resolve(_ host: String, port: Int, on pool: NIOThreadPool) async throws -> [String] {
        try await pool.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            // EAI_NODATA (-5, a GNU extension): the name exists with no address.
            if status == EAI_NONAME || status == -5 { throw NoSuchName() }
            guard status == 0, let first = list else { throw LookupFailed(description: String(cString: gai_strerror(status))) }
            defer { freeaddrinfo(first) }
            var out: [String] = []
            var next: UnsafeMutablePointer<addrinfo>? = first
            while let entry = next {
                var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
                    == 0
                {
                    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if !out.contains(text) { out.append(text) }
                }
                next = entry.pointee.ai_next
            }
            return out
        }
    }
}
