import Foundation

/// An IPv4 or IPv6 address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`, or
/// one address): which peers are trusted proxies.
public struct AddressRange: Sendable, Equatable {
    /// The network's address bytes (4 or 16).
    let network: [UInt8]
    /// The prefix length in bits.
    let prefix: Int

    /// Parses `ADDRESS` or `ADDRESS/PREFIX`; `nil` if it is neither.
    public init?(cidr text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = bytes.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...bits).contains(prefix) else { return nil }
            self.prefix = prefix
        } else {
            self.prefix = bits
        }
        network = bytes
    }

    /// Whether `address` (text, as a peer's address prints) is in the range.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address), bytes.count == network.count else { return false }
        var left = prefix
        for (a, b) in zip(bytes, network) where left > 0 {
            let take = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if a & mask != b & mask { return false }
            left -= take
        }
        return true
    }

    /// The bytes of a literal IPv4 or IPv6 address (IPv4-mapped IPv6 as IPv4).
    static func bytes(of text: String) -> [UInt8]? {
        // Into plain bytes, not `in_addr`/`in6_addr`: which C module declares those
        // depends on the order a build loads them (Glibc, or NIO's CNIOLinux, which
        // this file does not import), and a fresh build once refused their initialisers.
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 { return v4 }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, text, &bytes) == 1 else { return nil }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    /// Whether `host` names this machine: `localhost`, or an address in 127.0.0.0/8 or ::1.
    static func isLoopback(host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" { return true }
        guard let bytes = bytes(of: bare) else { return false }
        return bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
    }
}

extension AddressRange {
    /// Ranges no push endpoint may reach: this host, private networks, link-local,
    /// multicast, unspecified and reserved addresses, and the IPv6 prefixes that
    /// lead back into IPv4 (IPv4-compatible, NAT64, 6to4) or nowhere (documentation, discard).
    static let nonPublic: [AddressRange] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
        "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
        "2002::/16",
    ].map { AddressRange(cidr: $0)! }

    /// Whether `address` (a literal) is in one of the ``nonPublic`` ranges.
    static func isNonPublic(_ address: String) -> Bool {
        nonPublic.contains { $0.contains(address) }
    }
}

/// Which push endpoints a client may name (Web Push subscriptions): `https` on
/// port 443 to a public address. With `allowsLoopback` (tests), loopback
/// addresses are admitted too, on any port; nothing else is.
struct PushEndpointPolicy: Sendable {
    var allowsLoopback = false

    /// Why `url` cannot be an endpoint as written, or nil. A name passes here; its
    /// addresses are checked with ``refuses(address:port:)`` when a push is sent.
    func problem(with url: URL) -> Sentence? {
        guard url.scheme?.lowercased() == "https" else { return Sentence("must be an https URL") }
        guard let host = url.host, !host.isEmpty else { return Sentence("must name a host") }
        guard url.user == nil, url.password == nil else { return Sentence("must not carry credentials") }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if AddressRange.bytes(of: bare) != nil {
            if refuses(address: bare, port: url.port ?? 443) {
                return Sentence("must not point at a private, loopback or reserved address")
            }
        } else if url.port.map({ $0 != 443 }) ?? false, !allowsLoopback {
            return Sentence("must use port 443")
        }
        return nil
    }

    /// Whether a connection to `address` (a literal) on `port` is refused.
    /// A scoped IPv6 address (`fe80::1%eth0`) is judged without its zone; anything
    /// that is not an address at all is refused.
    func refuses(address: String, port: Int) -> Bool {
        let bare = String(address.split(separator: "%", maxSplits: 1).first ?? "")
        guard AddressRange.bytes(of: bare) != nil, !address.hasPrefix("%") else { return true }
        if allowsLoopback, AddressRange.isLoopback(host: bare) { return false }
        return port != 443 || AddressRange.isNonPublic(bare)
    }
}
