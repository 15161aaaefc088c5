import Foundation
import NIOCore

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
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
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

/// Where a request comes from: the peer's address, or, when the peer is a
/// trusted proxy, the nearest untrusted address in `X-Forwarded-For` (read
/// right to left, the way proxies append).
struct ClientAddress {
    let trustedProxies: [AddressRange]

    func resolve(peer: String?, forwardedFor: [String]) -> String? {
        guard let peer, !trustedProxies.isEmpty, isTrusted(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard AddressRange.bytes(of: hop) != nil else { break }
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }

    /// What limits and throttles count an address as: an IPv4 address as it is, an
    /// IPv6 address by its /64 (one subscriber's network: anyone holding one has
    /// billions of addresses), in one canonical spelling.
    static func throttleKey(_ address: String) -> String {
        guard let bytes = AddressRange.bytes(of: address) else { return address }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":") + "::/64"
    }

    private func isTrusted(_ address: String) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}
