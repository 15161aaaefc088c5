import AsyncHTTPClient
import Crypto
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1

/// Where one provider's tokens come from and whom they are for (`AUTH_<P>_…` settings).
public struct IdentityProviderSettings: Sendable {
    public var provider: IdentityProvider
    /// Accepted audiences (`aud`): the app's client ids with the provider.
    public var clientIDs: [String]
    /// The provider's signing keys (a JWKS document).
    public var jwksURL: URL
    /// Accepted `iss` values.
    public var issuers: [String]

    public init(provider: IdentityProvider, clientIDs: [String], jwksURL: URL? = nil, issuers: [String]? = nil) {
        self.provider = provider
        self.clientIDs = clientIDs
        self.jwksURL = jwksURL ?? Self.defaultJWKS[provider]!
        self.issuers = issuers ?? Self.defaultIssuers[provider]!
    }

    /// The providers' published key sets.
    public static let defaultJWKS: [IdentityProvider: URL] = [
        .apple: URL(string: "https://appleid.apple.com/auth/keys")!,
        .google: URL(string: "https://www.googleapis.com/oauth2/v3/certs")!,
        .facebook: URL(string: "https://limited.facebook.com/.well-known/oauth/openid/jwks/")!,
    ]

    /// The providers' issuers (Google's tokens name either form).
    public static let defaultIssuers: [IdentityProvider: [String]] = [
        .apple: ["https://appleid.apple.com"],
        .google: ["https://accounts.google.com", "accounts.google.com"],
        .facebook: ["https://www.facebook.com"],
    ]
}

/// Classic Facebook Login: access tokens checked with the Graph API (`FACEBOOK_GRAPH_URL`).
public struct FacebookGraphSettings: Sendable {
    public var graphURL: URL
    /// The app's id (the first of `AUTH_FACEBOOK_CLIENT_IDS`) and secret (`FACEBOOK_APP_SECRET`).
    public var appIDs: [String]
    public var appSecret: String

    public init(graphURL: URL, appIDs: [String], appSecret: String) {
        self.graphURL = graphURL
        self.appIDs = appIDs
        self.appSecret = appSecret
    }

    public static let defaultGraphURL = URL(string: "https://graph.facebook.com")!
}

/// Why a provider's token was refused (the domain turns each into a 401).
enum IdentityTokenProblem: Error, Equatable {
    /// Not a token, a signature that does not hold, a key or algorithm not accepted,
    /// another issuer or audience, issued in the future: the sentence says which (in the
    /// reader's language, as the refusal's message).
    case invalid(Sentence)
    case expired
    /// The provider could not be asked (its keys, or Facebook's Graph API).
    case providerUnavailable(Sentence)
}

/// Checks provider ID tokens (OpenID Connect: Apple, Google, Facebook Limited Login)
/// and classic Facebook access tokens.
///
/// ID tokens: RS256 only (the algorithm all three sign with; `none` and HMAC are
/// refused before any key is looked at, so a public key can never serve as an HMAC
/// secret); the header's `kid` must name a key of the provider's JWKS, fetched from
/// `jwksURL` (a stream of made-up `kid`s cannot make the service hammer the provider);
/// signature by jwt-kit; `iss` one of the provider's, `aud`
/// one of the configured client ids, `exp` in the future and `iat` not more than
/// ``skew`` ahead, on the service's clock. The keys are fetched when first needed, then
/// daily (yesterday's are kept while the provider cannot be reached), and again for a
/// token naming a key not among them, at most once a minute.
final class IdentityVerifier: Sendable {
    private let settings: [IdentityProvider: IdentityProviderSettings]
    private let keySets: [IdentityProvider: ProviderKeySet]
    private let facebook: FacebookGraphSettings?
    private let client: HTTPClient
    private let clock: any AppClock

    /// Clock difference tolerated on `iat` and `exp`.
    static let skew: TimeInterval = 60
    /// The one signing algorithm accepted.
    static let algorithms: Set<String> = ["RS256"]

    init(providers: [IdentityProviderSettings], facebook: FacebookGraphSettings?, client: HTTPClient, clock: any AppClock) {
        var settings: [IdentityProvider: IdentityProviderSettings] = [:]
        var keySets: [IdentityProvider: ProviderKeySet] = [:]
        for provider in providers where !provider.clientIDs.isEmpty {
            settings[provider.provider] = provider
            keySets[provider.provider] = ProviderKeySet(url: provider.jwksURL, client: client, clock: clock)
        }
        self.settings = settings
        self.keySets = keySets
        self.facebook = facebook
        self.client = client
        self.clock = clock
    }

    /// Providers whose ID tokens are accepted.
    var enabled: Set<IdentityProvider> { Set(settings.keys) }
    /// Classic Facebook access tokens are accepted.
    var acceptsFacebookAccessTokens: Bool { facebook != nil }

    /// The person an ID token names, once every check passed.
    func verify(idToken token: String, from provider: IdentityProvider) async throws -> ProviderIdentity {
        guard let settings = settings[provider], let keySet = keySets[provider] else {
            throw IdentityTokenProblem.invalid(Sentence("\(provider.rawValue) sign-in is not enabled"))
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 16_384, parts.count == 3,
            let headerBytes = Data(base64URLEncoded: parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: headerBytes)
        else { throw IdentityTokenProblem.invalid(Sentence("the ID token is not a signed JWT")) }
        guard Self.algorithms.contains(header.alg) else {
            throw IdentityTokenProblem.invalid(Sentence("tokens signed with \(header.alg.prefix(16)) are not accepted"))
        }
        guard let kid = header.kid, !kid.isEmpty, kid.utf8.count <= 256 else {
            throw IdentityTokenProblem.invalid(Sentence("the token names no signing key"))
        }
        guard let keys = try await keySet.keys(containing: kid) else {
            throw IdentityTokenProblem.invalid(Sentence("the token is signed with a key \(provider.rawValue) does not list"))
        }
        let claims: ProviderClaims
        do {
            claims = try await keys.verify(token, as: ProviderClaims.self)
        } catch {
            throw IdentityTokenProblem.invalid(Sentence("the token's signature does not hold, or its claims cannot be read"))
        }
        guard settings.issuers.contains(claims.iss) else {
            throw IdentityTokenProblem.invalid(Sentence("the token was issued by \(claims.iss.prefix(80)), not \(provider.rawValue)"))
        }
        // Every audience must be one of ours (a token also meant for someone else is not taken).
        guard !claims.aud.value.isEmpty, claims.aud.value.allSatisfy(settings.clientIDs.contains) else {
            throw IdentityTokenProblem.invalid(Sentence("the token was not issued for this app"))
        }
        let now = clock.now().timeIntervalSince1970
        guard claims.exp + Self.skew > now else { throw IdentityTokenProblem.expired }
        guard claims.iat <= now + Self.skew else {
            throw IdentityTokenProblem.invalid(Sentence("the token claims to be issued in the future"))
        }
        guard !claims.sub.isEmpty, claims.sub.utf8.count <= 255 else {
            throw IdentityTokenProblem.invalid(Sentence("the token names no subject"))
        }
        let name = claims.name ?? [claims.givenName, claims.familyName].compactMap { $0 }.joined(separator: " ")
        let email = claims.email.flatMap { $0.isEmpty ? nil : $0 }
        return ProviderIdentity(
            provider: provider, subject: claims.sub, email: email,
            emailVerified: Self.vouches(for: email, claims: claims, provider: provider),
            // Until when this service takes the token (used tokens are remembered that long).
            name: name.isEmpty ? nil : name, nonce: claims.nonce, expiresAt: Date(timeIntervalSince1970: claims.exp + Self.skew)
        )
    }

    /// Whether the provider's word that the email is the person's can be taken: Apple's
    /// (its flag; relay addresses are Apple's own); Google's only for Gmail addresses and
    /// Workspace accounts (`hd`), as Google advises — for any other address the flag says
    /// only that it was checked once, and a lapsed domain's next owner could claim it;
    /// Facebook's never.
    static func vouches(for email: String?, claims: ProviderClaims, provider: IdentityProvider) -> Bool {
        guard let email, claims.emailVerified?.value == true else { return false }
        switch provider {
        case .apple: return true
        case .google: return email.lowercased().hasSuffix("@gmail.com") || !(claims.hd ?? "").isEmpty
        case .facebook: return false
        }
    }

    /// The person a classic Facebook access token belongs to: `debug_token` (with the
    /// app's token) says it is valid and for this app, `/me` gives the id and name.
    /// Facebook's email is not taken as verified.
    func verify(facebookAccessToken token: String) async throws -> ProviderIdentity {
        guard let facebook else { throw IdentityTokenProblem.invalid(Sentence("Facebook access tokens are not accepted here")) }
        guard !token.isEmpty, token.utf8.count <= 4_096, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw IdentityTokenProblem.invalid(Sentence("the access token is not one"))
        }
        let appID = facebook.appIDs[0]
        struct Debug: Decodable {
            struct Data: Decodable {
                var appId: String?
                var isValid: Bool?
                var userId: String?
                var expiresAt: Double?
            }
            var data: Data?
        }
        let debug: Debug = try await graph(
            facebook, path: "debug_token", query: ["input_token": token, "access_token": "\(appID)|\(facebook.appSecret)"])
        guard let data = debug.data, data.isValid == true, let user = data.userId, !user.isEmpty else {
            throw IdentityTokenProblem.invalid(Sentence("Facebook says the access token is not valid"))
        }
        guard let app = data.appId, facebook.appIDs.contains(app) else {
            throw IdentityTokenProblem.invalid(Sentence("the access token was not issued for this app"))
        }
        struct Me: Decodable {
            var id: String?
            var name: String?
        }
        // appsecret_proof: the Graph API then refuses the token from anyone without the secret.
        let proof = HMAC<SHA256>.authenticationCode(for: Array(token.utf8), using: SymmetricKey(data: Array(facebook.appSecret.utf8)))
            .hexString
        let me: Me = try await graph(facebook, path: "me", query: ["fields": "id,name", "access_token": token, "appsecret_proof": proof])
        guard me.id == user else {
            throw IdentityTokenProblem.invalid(Sentence("Facebook's answers do not agree on who the token belongs to"))
        }
        let expires = data.expiresAt.flatMap { $0 > 0 ? Date(timeIntervalSince1970: $0) : nil } ?? clock.now().addingTimeInterval(3_600)
        return ProviderIdentity(
            provider: .facebook, subject: user, email: nil, emailVerified: false, name: me.name, nonce: nil, expiresAt: expires)
    }

    private func graph<T: Decodable>(_ facebook: FacebookGraphSettings, path: String, query: [String: String]) async throws -> T {
        var components = URLComponents(url: facebook.graphURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        // `+` is a space in a query; tokens and secrets may hold one.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        let body: ByteBuffer
        let status: UInt
        do {
            let response = try await client.execute(HTTPClientRequest(url: components.url!.absoluteString), timeout: .seconds(10))
            status = response.status.code
            body = try await response.body.collect(upTo: 256 * 1024)
        } catch {
            throw IdentityTokenProblem.providerUnavailable(Sentence("Facebook cannot be reached"))
        }
        // The Graph API answers 400 for a token that is not valid.
        if status == 400 || status == 401 || status == 403 {
            throw IdentityTokenProblem.invalid(Sentence("Facebook refused the access token"))
        }
        guard status == 200 else { throw IdentityTokenProblem.providerUnavailable(Sentence("Facebook answered \(status)")) }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let value = try? decoder.decode(T.self, from: Data(body.readableBytesView)) else {
            throw IdentityTokenProblem.providerUnavailable(Sentence("Facebook's answer cannot be read"))
        }
        return value
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }
}

/// The claims SportLook reads from an ID token. Their checks (issuer, audience, times)
/// are ``IdentityVerifier``'s, on the service's clock; jwt-kit checks the signature.
struct ProviderClaims: JWTPayload {
    var iss: String
    var sub: String
    var aud: AudienceClaim
    var exp: Double
    var iat: Double
    var nonce: String?
    var email: String?
    /// A boolean, or Apple's `"true"`.
    var emailVerified: BoolClaim?
    var name: String?
    var givenName: String?
    var familyName: String?
    /// Google: the Workspace domain of the account.
    var hd: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email, name, hd
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// One provider's signing keys, fetched from its JWKS URL and kept.
actor ProviderKeySet {
    private let url: URL
    private let client: HTTPClient
    private let clock: any AppClock
    private var keys = JWTKeyCollection()
    private var kids: Set<String> = []
    private var fetchedAt: Date?
    /// When a token's unknown `kid` last made the keys be fetched.
    private var unknownKidFetchAt: Date?
    /// When the last fetch failed (none since).
    private var failedAt: Date?
    private var fetching: Task<Void, any Error>?

    /// Keys are fetched again after this long, and at most this often for an unknown `kid`.
    static let maxAge: TimeInterval = 86_400
    static let refetchInterval: TimeInterval = 60
    static let retryInterval: TimeInterval = 10

    init(url: URL, client: HTTPClient, clock: any AppClock) {
        self.url = url
        self.client = client
        self.clock = clock
    }

    /// The keys, once they hold `kid`; `nil` when they do not, even after fetching them
    /// again (a fetch for an unknown `kid` is made at most once a minute).
    func keys(containing kid: String) async throws -> JWTKeyCollection? {
        let now = clock.now()
        if fetchedAt.map({ now.timeIntervalSince($0) >= Self.maxAge }) ?? true, mayFetch(at: now) {
            do {
                try await refresh()
            } catch  where !kids.isEmpty {
                // The provider is down: yesterday's keys still tell a good token.
            }
        }
        guard fetchedAt != nil else { throw IdentityTokenProblem.providerUnavailable(Sentence("the provider's keys could not be fetched")) }
        if kids.contains(kid) { return keys }
        guard unknownKidFetchAt.map({ now.timeIntervalSince($0) >= Self.refetchInterval }) ?? true, mayFetch(at: now) else { return nil }
        unknownKidFetchAt = now
        try await refresh()
        return kids.contains(kid) ? keys : nil
    }

    /// After a failed fetch the provider is left alone for ``retryInterval``.
    private func mayFetch(at now: Date) -> Bool {
        failedAt.map { now.timeIntervalSince($0) >= Self.retryInterval } ?? true
    }

    /// One fetch at a time: callers arriving meanwhile wait for it.
    private func refresh() async throws {
        if let fetching { return try await fetching.value }
        let task = Task { try await self.fetch() }
        fetching = task
        defer { fetching = nil }
        do {
            try await task.value
            failedAt = nil
        } catch {
            failedAt = clock.now()
            throw error
        }
    }

    private func fetch() async throws {
        let body: ByteBuffer
        do {
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(10))
            guard response.status == .ok else {
                throw IdentityTokenProblem.providerUnavailable(Sentence("the provider's keys answered \(response.status.code)"))
            }
            body = try await response.body.collect(upTo: 1 << 20)
        } catch let problem as IdentityTokenProblem {
            throw problem
        } catch {
            throw IdentityTokenProblem.providerUnavailable(Sentence("the provider's keys cannot be fetched"))
        }
        guard let jwks = try? JSONDecoder().decode(JWKS.self, from: Data(body.readableBytesView)) else {
            throw IdentityTokenProblem.providerUnavailable(Sentence("the provider's keys cannot be read"))
        }
        // Only RSA signing keys with an id; one the collection cannot take is skipped.
        let collection = JWTKeyCollection()
        var kids: Set<String> = []
        for jwk in jwks.keys where jwk.keyType == .rsa {
            guard let kid = jwk.keyIdentifier?.string, (try? await collection.add(jwk: jwk)) != nil else { continue }
            kids.insert(kid)
        }
        keys = collection
        self.kids = kids
        fetchedAt = clock.now()
    }
}
