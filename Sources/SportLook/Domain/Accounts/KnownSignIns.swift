import Crypto
import Foundation

/// The devices and addresses an account has signed in from, so that strangers'
/// wrong passwords cannot lock its owner out.
///
/// Every sign-in (registration, password, provider) hands the client a device key
/// and remembers it with the client's address; a password reset by mailed code
/// remembers the address it came from. A password attempt that carries one of the
/// account's device keys, or comes from one of its addresses (used in the last
/// ``lifetime``), is counted against that device and address only — not against the
/// account, whose count the guesses of everyone else fill. Each account keeps its
/// ``KnownSignInStore/keptPerKind`` latest of each kind.
struct KnownSignIns: Sendable {
    let store: KnownSignInStore

    /// How long an unused device or address stays known.
    static let lifetime: TimeInterval = 180 * 86_400

    static func digest(address: String) -> String {
        SHA256.hash(data: Data(("address:" + address).utf8)).hexString
    }

    /// Whether a device key can be one at all (as an access token: 43 base64url characters).
    static func isWellFormed(deviceKey: String) -> Bool { AccessToken.isWellFormed(deviceKey) }

    /// Remembers where the user just signed in from, in the caller's transaction;
    /// returns the device key to hand to the client (`nil` when `issueKey` is false).
    func record(_ user: UUID, deviceKey: Bool, address: String?, at now: Date, on sql: DatabaseSession) async throws -> String? {
        var key: String?
        if deviceKey {
            let fresh = AccessToken.generate()
            try await store.record(user: user, .device, digest: AccessToken.digest(fresh), at: now, on: sql)
            key = fresh
        }
        if let address {
            try await store.record(user: user, .address, digest: Self.digest(address: address), at: now, on: sql)
            if let network = AddressRange.panelNetwork(address) { try await store.record(user: user, network: network, at: now, on: sql) }
        }
        return key
    }

    /// The throttle's subjects for a password attempt: the device and address alone
    /// when either is the account's, else the account and the address.
    func subjects(email: String, deviceKey: String?, address: String?, now: Date) async throws -> [String] {
        guard let place = try await recognised(email: email, deviceKey: deviceKey, address: address, now: now) else {
            return AttemptThrottle.subjects(email: email, address: address)
        }
        return place
    }

    /// When the device key or the address is one the account with this email signed in
    /// from: what names the one it knows (`device:…`, else `address:…`; never a pair, so a
    /// made-up key beside a known address is the address); nil for a place it does not know.
    func recognised(email: String, deviceKey: String?, address: String?, now: Date) async throws -> [String]? {
        var known: [(KnownSignInStore.Kind, String)] = []
        let device = deviceKey.flatMap { Self.isWellFormed(deviceKey: $0) ? AccessToken.digest($0) : nil }
        if let device { known.append((.device, device)) }
        if let address { known.append((.address, Self.digest(address: address))) }
        let matched = try await store.known(normalizedEmail: email, known, since: now.addingTimeInterval(-Self.lifetime))
        if let device, matched.contains(.device) { return ["device:" + device] }
        if let address, matched.contains(.address) { return ["address:" + address] }
        return nil
    }

    /// Forgets every place the account knew (a password reset: whoever signed in before
    /// is a stranger now), in the caller's transaction.
    func forget(_ user: UUID, on sql: DatabaseSession) async throws {
        try await store.forget(user: user, on: sql)
    }
}
