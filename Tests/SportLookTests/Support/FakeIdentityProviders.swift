import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import NIOCore
import Synchronization

@testable import SportLook

/// Apple, Google and Facebook as the service sees them, on loopback: each provider's
/// JWKS (RSA keys made in the test), tokens signed with those keys, and Facebook's Graph
/// API (`debug_token`, `/me`) for classic access tokens.
final class FakeIdentityProviders: Sendable {
    struct Key: Sendable {
        var kid: String
        var privateKey: JWTKit.Insecure.RSA.PrivateKey
    }

    static let clientIDs: [IdentityProvider: String] = [
        .apple: "com.sportlook.app", .google: "sportlook.apps.googleusercontent.com", .facebook: "fb-app",
    ]
    static let facebookSecret = "fb-app-secret"

    private let server = LocalServer()
    /// The keys each provider lists (the first signs by default).
    private let keys: Mutex<[IdentityProvider: [Key]]>
    private let fetchCounts = Mutex<[IdentityProvider: Int]>([:])
    /// Classic Facebook access tokens: token → (app id, user id, name).
    private let facebookTokens = Mutex<[String: (app: String, user: String, name: String)]>([:])
    private let port = Mutex(0)
    /// Tokens made so far: each one's `iat` is a millisecond earlier than the last, so no
    /// two are the same (a token is accepted once).
    private let made = Mutex(0)

    init() throws {
        var keys: [IdentityProvider: [Key]] = [:]
        for provider in IdentityProvider.allCases { keys[provider] = [try Self.firstKey(provider)] }
        self.keys = Mutex(keys)
    }

    /// A new key: a forger's, a stranger's, a rotation's.
    static func makeKey(_ kid: String) throws -> Key {
        Key(kid: kid, privateKey: try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048)))
    }

    /// Each provider's first key, made once a process: a 2048-bit RSA key takes about a
    /// tenth of a second, and every test starts providers of its own.
    private static let firstKeys = MadeOnce<IdentityProvider, Key>()

    private static func firstKey(_ provider: IdentityProvider) throws -> Key {
        try firstKeys(provider) { try makeKey("\(provider.rawValue)-1") }
    }

    /// How many times the service fetched a provider's keys.
    func fetches(_ provider: IdentityProvider) -> Int { fetchCounts.withLock { $0[provider] ?? 0 } }

    /// Publishes another key (the provider rotated).
    func addKey(_ key: Key, to provider: IdentityProvider) { keys.withLock { $0[provider, default: []].append(key) } }

    func signingKey(_ provider: IdentityProvider) -> Key { keys.withLock { $0[provider]![0] } }

    func addFacebookToken(_ token: String, app: String, user: String, name: String) {
        facebookTokens.withLock { $0[token] = (app, user, name) }
    }

    func start() async throws {
        let router = Router()
        router.get("jwks/:provider") { [self] _, context -> Response in
            guard let provider = IdentityProvider(rawValue: context.parameters.get("provider") ?? "") else {
                return Response(status: .notFound)
            }
            fetchCounts.withLock { $0[provider, default: 0] += 1 }
            let listed = keys.withLock { $0[provider] ?? [] }
            let jwks: [[String: String]] = try listed.map { key in
                let (n, e) = try key.privateKey.publicKey.getKeyPrimitives()
                return ["kty": "RSA", "kid": key.kid, "use": "sig", "alg": "RS256", "n": Self.base64URL(n), "e": Self.base64URL(e)]
            }
            let body = try JSONSerialization.data(withJSONObject: ["keys": jwks])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("graph/debug_token") { [self] request, _ -> Response in
            let query = request.uri.queryParameters
            guard query["access_token"].map(String.init) == "\(Self.clientIDs[.facebook]!)|\(Self.facebookSecret)" else {
                return Self.json(.badRequest, ["error": ["message": "bad app token"]])
            }
            let token = query["input_token"].map(String.init) ?? ""
            guard let known = facebookTokens.withLock({ $0[token] }) else { return Self.json(.ok, ["data": ["is_valid": false]]) }
            return Self.json(
                .ok, ["data": ["app_id": known.app, "is_valid": true, "user_id": known.user, "type": "USER", "expires_at": 0]])
        }
        router.get("graph/me") { [self] request, _ -> Response in
            let query = request.uri.queryParameters
            let token = query["access_token"].map(String.init) ?? ""
            let proof = HMAC<SHA256>.authenticationCode(for: Array(token.utf8), using: SymmetricKey(data: Array(Self.facebookSecret.utf8)))
                .map { String(format: "%02x", $0) }.joined()
            guard query["appsecret_proof"].map(String.init) == proof, let known = facebookTokens.withLock({ $0[token] }) else {
                return Self.json(.badRequest, ["error": ["message": "invalid appsecret_proof or token"]])
            }
            return Self.json(.ok, ["id": known.user, "name": known.name])
        }
        let bound = try await server.start(router, label: "identity-providers")
        port.withLock { $0 = bound }
    }

    func stop() { server.stop() }

    /// The settings that point the service here, every provider enabled.
    func configure(_ configuration: inout AppConfiguration) {
        let base = "http://127.0.0.1:\(port.withLock { $0 })"
        configuration.identityProviders = IdentityProvider.allCases.map { provider in
            IdentityProviderSettings(
                provider: provider, clientIDs: [Self.clientIDs[provider]!], jwksURL: URL(string: "\(base)/jwks/\(provider.rawValue)")!)
        }
        configuration.facebookGraph = FacebookGraphSettings(
            graphURL: URL(string: "\(base)/graph")!, appIDs: [Self.clientIDs[.facebook]!], appSecret: Self.facebookSecret)
    }

    /// An ID token as `provider` would sign it for `subject`, valid from `now` for ten minutes.
    func idToken(
        _ provider: IdentityProvider, subject: String, now: Date, email: String? = nil, emailVerified: Bool? = nil, nonce: String? = nil,
        name: String? = nil, audience: String? = nil, alsoFor: [String] = [], issuer: String? = nil, issuedAt: Date? = nil,
        expires: Date? = nil,
        hostedDomain: String? = nil, key: Key? = nil
    ) async throws -> String {
        let key = key ?? signingKey(provider)
        let serial = made.withLock { count in
            count += 1
            return count
        }
        // Apple writes email_verified as a string.
        let verified: BoolClaim? = emailVerified.map { BoolClaim(value: $0) }
        let claims = ProviderClaims(
            iss: issuer ?? IdentityProviderSettings.defaultIssuers[provider]![0], sub: subject,
            aud: AudienceClaim(value: [audience ?? Self.clientIDs[provider]!] + alsoFor),
            exp: (expires ?? now.addingTimeInterval(600)).timeIntervalSince1970,
            iat: (issuedAt ?? now).timeIntervalSince1970 - Double(serial) / 1_000,
            nonce: nonce, email: email, emailVerified: verified, name: name, givenName: nil, familyName: nil, hd: hostedDomain
        )
        let signers = JWTKeyCollection()
        await signers.add(rsa: key.privateKey, digestAlgorithm: .sha256, kid: JWKIdentifier(string: key.kid))
        return try await signers.sign(claims, kid: JWKIdentifier(string: key.kid))
    }

    /// A token with the given header, payload and signature bytes, made by hand.
    static func handMade(header: [String: String], claims: [String: Any], sign: ([UInt8]) -> [UInt8]) throws -> String {
        let head = base64URL(try JSONSerialization.data(withJSONObject: header))
        let body = base64URL(try JSONSerialization.data(withJSONObject: claims))
        let input = Array("\(head).\(body)".utf8)
        return "\(head).\(body).\(base64URL(Data(sign(input))))"
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
            of: "=", with: "")
    }

    private static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
