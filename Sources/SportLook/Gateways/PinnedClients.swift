import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

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
    ///   - failureMemory: How long a failed lookup is remembered (pushes to the name meanwhile are tried again later).
    init(policy: PushEndpointPolicy, tls: TLSConfiguration, timeout: TimeInterval, resolve: Resolve? = nil,
         lookupLimit: Duration = .seconds(5), failureMemory: Duration = .seconds(10)) {
        self.policy = policy
        self.tls = tls
        self.timeout = timeout
        self.lookupLimit = lookupLimit
        self.failureMemory = failureMemory
        let resolver = NIOThreadPool(numberOfThreads: 4)
        resolver.start()
        self.resolver = resolver
        self.resolve = resolve ?? { host, port in try await Self.resolve(host, port: port, on: resolver) }
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

    /// What names resolved to, or that they do not exist, kept a minute; a failed
    /// lookup is kept ``failureMemory`` (a name whose resolver does not answer costs
    /// one slow lookup then, not one per push).
    private var answers: [String: (lookup: Lookup, until: ContinuousClock.Instant)] = [:]
    /// Lookups under way: a push to a name being looked up waits for that lookup.
    private var lookups: [String: Task<Lookup, Never>] = [:]
    /// Lookups run on threads of their own, a few at a time, each given ``lookupLimit``.
    private let resolver: NIOThreadPool
    private let resolve: Resolve
    private let lookupLimit: Duration
    private let failureMemory: Duration

    private func addresses(of host: String, port: Int) async throws -> [String] {
        let lookup: Lookup
        if let known = answers[host], known.until > .now {
            lookup = known.lookup
        } else if let running = lookups[host] {
            lookup = await running.value
        } else {
            let task = Task { [resolve, lookupLimit] in await Self.lookUp(host, port: port, resolve: resolve, limit: lookupLimit) }
            lookups[host] = task
            lookup = await task.value
            lookups[host] = nil
            if answers.count > 10_000 { answers.removeAll() }
            if case .failed = lookup {
                answers[host] = (lookup, .now + failureMemory)
            } else {
                answers[host] = (lookup, .now + .seconds(60))
            }
        }
        switch lookup {
        case .addresses(let found) where !found.isEmpty: return found
        case .addresses, .noSuchName: throw Refused(description: "the endpoint's name does not resolve")
        case .failed(let reason): throw LookupFailed(description: "the endpoint's name could not be looked up: \(reason)")
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
        try? await resolver.shutdownGracefully()
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
                if getnameinfo(entry.pointee.ai_addr, entry.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                    let text = String(cString: buffer)
                    if !out.contains(text) { out.append(text) }
                }
                next = entry.pointee.ai_next
            }
            return out
        }
    }
}
