import Foundation

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
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(
            separator: ":") + "::/64"
    }

    /// A client's network for shares of scarce places (uploads): an IPv4 address as
    /// it is, an IPv6 address by its /48 (what one customer gets at most).
    static func networkKey(_ address: String) -> String {
        guard let bytes = AddressRange.bytes(of: address), bytes.count == 16 else { return throttleKey(address) }
        return stride(from: 0, to: 6, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(
            separator: ":") + "::/48"
    }

    private func isTrusted(_ address: String) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}
