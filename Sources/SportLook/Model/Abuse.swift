import Foundation

/// An address range or an email domain no account may be registered from.
struct RegistrationBlock: Sendable, Hashable {
    enum Kind: String, Sendable, CaseIterable {
        /// An IPv4 range, or an IPv6 range of a /64 or wider (`203.0.113.0/24`, `2001:db8::/32`).
        case network
        /// A domain and its subdomains (`spam.example` blocks `x@mail.spam.example` too).
        case emailDomain = "email_domain"
    }

    var id: UUID
    var kind: Kind
    /// The range in CIDR notation, or the domain, as normalized.
    var value: String
    var reason: String
    /// The member of staff who blocked it (nil: the command line, or an account erased).
    var createdBy: UserSummary?
    var createdAt: Date

    /// Whether a registration from `network` (an address as limits count it: an IPv4
    /// address, an IPv6 `…::/64`) with `email` is refused by this block.
    func refuses(network: String?, email: String) -> Bool {
        switch kind {
        case .network:
            guard let network, let range = AddressRange(cidr: value) else { return false }
            return range.contains(network.hasSuffix("/64") ? String(network.dropLast(3)) : network)
        case .emailDomain:
            guard let at = email.lastIndex(of: "@") else { return false }
            let domain = email[email.index(after: at)...].lowercased()
            return domain == value || domain.hasSuffix("." + value)
        }
    }
}

/// Who signed up and who failed to sign in from one network in the last hour.
struct NetworkActivity: Sendable, Hashable {
    /// An IPv4 /24 or an IPv6 /48 (`203.0.113.0/24`, `2001:db8:1::/48`).
    var network: String
    var registrations: Int
    var failedSignIns: Int
}

extension AddressRange {
    /// The network an address is shown under on the abuse panel: an IPv4 address's /24,
    /// an IPv6 address's /48 (given as an address or as a limit's `…::/64`). Nil for
    /// anything that is not an address.
    static func panelNetwork(_ address: String) -> String? {
        let literal = address.hasSuffix("/64") ? String(address.dropLast(3)) : address
        guard let bytes = bytes(of: literal) else { return nil }
        return AddressRange(cidr: "\(literal)/\(bytes.count == 4 ? 24 : 48)")?.canonical
    }

    /// The range as written canonically: its address bits past the prefix cleared.
    var canonical: String {
        var bytes = network
        var left = prefix
        for i in bytes.indices {
            let keep = min(8, max(0, left))
            bytes[i] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
            left -= 8
        }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") + "/\(prefix)" }
        var text = [CChar](repeating: 0, count: 64)
        _ = inet_ntop(AF_INET6, bytes, &text, 64)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/\(prefix)"
    }

    /// Whether the range is an IPv6 one.
    var isIPv6: Bool { network.count == 16 }
    var prefixLength: Int { prefix }
}
