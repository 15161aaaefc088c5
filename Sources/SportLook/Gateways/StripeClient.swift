import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// The parts of Stripe's API that card payments use: Express connected accounts for
/// organisers (an account and its onboarding link), Checkout Sessions and refunds on a
/// connected account (`Stripe-Account`), each create with an `Idempotency-Key` so that a
/// retried request makes one object; and the check of a webhook's signature. Requests are
/// form-encoded (`a[b]=c`), as Stripe takes them; answers are JSON.
struct StripeClient: Sendable {
    struct Settings: Sendable, Equatable {
        /// `STRIPE_SECRET_KEY`.
        var secretKey: String
        /// `STRIPE_WEBHOOK_SECRET`: the endpoint's signing secret (`whsec_…`).
        var webhookSecret: String
        /// `STRIPE_API_URL` (tests: a local fake).
        var apiURL: URL = URL(string: "https://api.stripe.com")!
        /// `STRIPE_RETURN_URL`: the web client's address, where Checkout and onboarding send people back.
        var returnURL: URL
        var timeout: TimeInterval = 15
        /// How old a webhook's signed timestamp may be (Stripe's libraries: 5 minutes).
        var tolerance: TimeInterval = 300
    }

    /// Stripe refused or could not be reached: `message` says what it said.
    struct Failure: Error, CustomStringConvertible {
        var status: Int
        var message: String
        var description: String { "Stripe answered \(status): \(message)" }
        /// Stripe refused the request itself (a 4xx but 429): trying again changes nothing.
        var isRefusal: Bool { (400..<500).contains(status) && status != 429 }
    }

    let settings: Settings
    let client: HTTPClient

    /// A new Express account for an organiser; its id.
    func createAccount(email: String, user: UUID) async throws -> String {
        let answer = try await post(
            "/v1/accounts", ["type": "express", "email": email, "metadata[user_id]": user.lowercased],
            idempotencyKey: "account-\(user.lowercased)")
        guard let id = answer["id"] as? String else { throw Failure(status: 200, message: "no account id") }
        return id
    }

    /// Whether the account may take card payments now.
    func chargesEnabled(_ account: String) async throws -> Bool {
        let answer = try await request(.GET, "/v1/accounts/\(account)", form: nil, account: nil, idempotencyKey: nil)
        return answer["charges_enabled"] as? Bool ?? false
    }

    /// A one-time onboarding link for the account.
    func onboardingLink(_ account: String, returnTo: URL) async throws -> URL {
        let answer = try await post(
            "/v1/account_links",
            [
                "account": account, "type": "account_onboarding", "refresh_url": returnTo.absoluteString,
                "return_url": returnTo.absoluteString,
            ], idempotencyKey: nil)
        guard let text = answer["url"] as? String, let url = URL(string: text) else { throw Failure(status: 200, message: "no link") }
        return url
    }

    /// A Checkout Session on the organiser's account for one amount; its id and page.
    func checkoutSession(
        account: String, amount: Int, currency: String, name: String, successURL: URL, cancelURL: URL, metadata: [String: String],
        idempotencyKey: String
    ) async throws -> (id: String, url: URL) {
        var form: [String: String] = [
            "mode": "payment", "line_items[0][quantity]": "1", "line_items[0][price_data][currency]": currency.lowercased(),
            "line_items[0][price_data][unit_amount]": String(amount), "line_items[0][price_data][product_data][name]": name,
            "success_url": successURL.absoluteString, "cancel_url": cancelURL.absoluteString,
        ]
        for (key, value) in metadata { form["metadata[\(key)]"] = value }
        let answer = try await request(.POST, "/v1/checkout/sessions", form: form, account: account, idempotencyKey: idempotencyKey)
        guard let id = answer["id"] as? String, let text = answer["url"] as? String, let url = URL(string: text) else {
            throw Failure(status: 200, message: "no session")
        }
        return (id, url)
    }

    /// Refunds `amount` of a payment on the organiser's account; the refund's id.
    func refund(account: String, paymentIntent: String, amount: Int, metadata: [String: String], idempotencyKey: String) async throws
        -> String
    {
        var form = ["payment_intent": paymentIntent, "amount": String(amount)]
        for (key, value) in metadata { form["metadata[\(key)]"] = value }
        let answer = try await request(.POST, "/v1/refunds", form: form, account: account, idempotencyKey: idempotencyKey)
        guard let id = answer["id"] as? String else { throw Failure(status: 200, message: "no refund id") }
        return id
    }

    private func post(_ path: String, _ form: [String: String], idempotencyKey: String?) async throws -> [String: Any] {
        try await request(.POST, path, form: form, account: nil, idempotencyKey: idempotencyKey)
    }

    private func request(_ method: HTTPMethod, _ path: String, form: [String: String]?, account: String?, idempotencyKey: String?)
        async throws -> [String: Any]
    {
        var request = HTTPClientRequest(url: settings.apiURL.absoluteString + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(settings.secretKey)")
        if let account { request.headers.add(name: "Stripe-Account", value: account) }
        if let idempotencyKey, let form {
            // The key names the request's parameters too: a retry is the same request, a changed one another.
            let digest = SHA256.hash(data: Array(Self.encode(form).utf8)).prefix(16).hexString
            request.headers.add(name: "Idempotency-Key", value: "\(idempotencyKey)-\(digest)")
        }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: Self.encode(form)))
        }
        let response = try await client.execute(request, timeout: .milliseconds(Int64(settings.timeout * 1_000)))
        let body = try await response.body.collect(upTo: 1 << 20)
        let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
        guard (200..<300).contains(response.status.code) else {
            let message = (object["error"] as? [String: Any])?["message"] as? String ?? "no message"
            throw Failure(status: Int(response.status.code), message: message)
        }
        return object
    }

    /// `a=1&b%5Bc%5D=2`, keys in order (so a retried request sends the same bytes).
    static func encode(_ form: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return form.sorted { $0.key < $1.key }.map { key, value in
            (key.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }

    /// Why a webhook is refused.
    enum SignatureProblem: Error, Equatable {
        /// No `t=` and `v1=` in `Stripe-Signature`.
        case malformed
        /// No `v1` signature matches the payload.
        case mismatch
        /// Signed more than the tolerance before (or after) `now`.
        case stale
    }

    /// Checks `Stripe-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.payload">[,v1=…]`
    /// against the webhook secret, and that `t` is within the tolerance of `now`.
    static func verify(payload: [UInt8], header: String, secret: String, now: Date, tolerance: TimeInterval) throws(SignatureProblem) {
        var stamp: Int64?
        var signatures: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { stamp = Int64(pair[1]) }
            if pair[0] == "v1", let bytes = Hex.bytes(pair[1]) { signatures.append(bytes) }
        }
        guard let stamp, !signatures.isEmpty else { throw .malformed }
        let key = SymmetricKey(data: Array(secret.utf8))
        let expected = Array(HMAC<SHA256>.authenticationCode(for: Array("\(stamp).".utf8) + payload, using: key))
        guard signatures.contains(where: { Self.same($0, expected) }) else { throw .mismatch }
        guard abs(now.timeIntervalSince1970 - Double(stamp)) <= tolerance else { throw .stale }
    }

    /// Compares in time independent of where the bytes differ.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
