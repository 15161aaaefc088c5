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

    struct Refused: Error, CustomStringConvertible { var description: String }

    init(policy: PushEndpointPolicy, tls: TLSConfiguration, timeout: TimeInterval) {
        self.policy = policy
        self.tls = tls
        self.timeout = timeout
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

    /// What names resolved to (or that they did not), kept a minute: a name that never
    /// answers costs one slow lookup a minute, not one per push.
    private var answers: [String: (addresses: [String], until: ContinuousClock.Instant)] = [:]
    /// Lookups run on threads of their own, a few at a time, each given ``lookupLimit``.
    private let resolver: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        return pool
    }()
    static let lookupLimit: Duration = .seconds(5)

    private func addresses(of host: String, port: Int) async throws -> [String] {
        let now = ContinuousClock.now
        if let known = answers[host], known.until > now { return known.addresses }
        let resolver = resolver
        let found: [String] = await withTaskGroup(of: [String]?.self) { group in
            group.addTask { try? await Self.resolve(host, port: port, on: resolver) }
            group.addTask { try? await Task.sleep(for: Self.lookupLimit); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
        if answers.count > 10_000 { answers.removeAll() }
        answers[host] = (found, now + .seconds(60))
        return found
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

    /// The addresses `host` resolves to (getaddrinfo, on a thread of its own: it blocks).
    static func resolve(_ host: String, port: Int, on pool: NIOThreadPool) async throws -> [String] {
        try await pool.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else { throw Refused(description: "the endpoint's name does not resolve") }
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
