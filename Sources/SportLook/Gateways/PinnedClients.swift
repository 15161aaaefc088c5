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
        guard let rawHost = url.host, !rawHost.isEmpty else { throw Refused(description: "the endpoint names no host") }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let port = url.port ?? 443
        let addresses = AddressRange.bytes(of: host) != nil ? [host] : try await Self.resolve(host, port: port)
        guard let address = addresses.first else { throw Refused(description: "the endpoint's name has no address") }
        if let refused = addresses.first(where: { policy.refuses(address: $0, port: port) }) {
            throw Refused(description: "the endpoint resolves to a refused address (\(refused))")
        }
        let key = "\(host.lowercased()):\(port)"
        if let held = clients[key], held.address == address {
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
    }

    /// The addresses `host` resolves to (getaddrinfo, on a thread of its own: it blocks).
    static func resolve(_ host: String, port: Int) async throws -> [String] {
        try await NIOThreadPool.singleton.runIfActive {
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
