import Crypto
import Foundation

/// Where clients fetch media from: this server's `/media/KEY`, or the same path under
/// `MEDIA_PUBLIC_URL` (a CDN in front of it). Chat images' links carry an expiry and a
/// signature (``MediaURLSigner``).
struct MediaLinks: Sendable {
    /// Scheme and host (and a path prefix if any), without a trailing slash; empty
    /// for paths relative to this server.
    var base: String
    var signer: MediaURLSigner

    init(base: String = "", signer: MediaURLSigner) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.signer = signer
    }

    /// A variant's URL; a chat image's is signed to end at `expires` (by default the
    /// end of the next window).
    func url(_ key: String, expires: Int? = nil) -> String {
        guard isPrivateBlobKey(key) else { return "\(base)/media/\(key)" }
        let expires = expires ?? signer.expiry()
        return "\(base)/media/\(key)?expires=\(expires)&signature=\(signer.signature(key, expires: expires))"
    }

    /// `"image_url"`: the largest variant's URL, and `"image_urls"`: every variant's by
    /// name (both null without an image).
    func writeImageFields(_ image: MediaRef?, to json: inout JSONWriter) {
        let expires = signer.expiry()
        json.field("image_url", image?.variants.first.map { url($0.key, expires: expires) })
        json.key("image_urls")
        guard let image else { return json.null() }
        writeURLs(image, expires: expires, to: &json)
    }

    /// `{"NAME": URL, …}` for each variant, largest first (chat images' signed to end at
    /// `expires`, by default the end of the next window: the same for every variant).
    func writeURLs(_ image: MediaRef, expires: Int? = nil, to json: inout JSONWriter) {
        let expires = expires ?? signer.expiry()
        json.objectStart()
        for variant in image.variants { json.field(variant.name, url(variant.key, expires: expires)) }
        json.objectEnd()
    }
}

/// Signs chat images' links and checks them when they are fetched.
///
/// A link is `/media/KEY?expires=T&signature=S`: `T` in Unix seconds, `S` the hex
/// HMAC-SHA256 of `KEY + "\n" + T` under the server's key (`MEDIA_URL_SECRET`, or one
/// made at random and kept in the database, so every instance signs alike). Links are
/// handed only to the chat's members (in its history, its socket frames, the sender's
/// upload), and a link ends between one and two `window`s after it was made: within a
/// window every member gets the same link, so caches keep hitting, and someone who
/// leaves the event keeps what they were given for two hours at most. A signed link
/// rather than an authenticated route because `<img src>` sends no bearer token, and a
/// CDN can keep the bytes for as long as the link lives.
struct MediaURLSigner: Sendable {
    /// The HMAC key's bytes.
    let secret: [UInt8]
    var window = 3_600
    var now: @Sendable () -> Date = { Date() }

    init(secret: some DataProtocol, window: Int = 3_600) {
        self.secret = Array(secret)
        self.window = window
    }

    /// When links made now end: the end of the window after this one.
    func expiry() -> Int {
        let seconds = Int(now().timeIntervalSince1970)
        return (seconds / window + 2) * window
    }

    func signature(_ blobKey: String, expires: Int) -> String {
        HMAC<SHA256>.authenticationCode(for: Array("\(blobKey)\n\(expires)".utf8), using: SymmetricKey(data: secret)).hexString
    }

    enum Verdict: Equatable {
        /// Good for this many more seconds.
        case valid(seconds: Int)
        case expired
        case invalid
    }

    /// Checks a fetched link's `expires` and `signature` (in constant time).
    func check(_ blobKey: String, expires: String?, signature: String?) -> Verdict {
        guard let expires, let time = Int(expires), String(time) == expires,
            let signature, signature.utf8.count == 64, let mac = Hex.bytes(signature)
        else { return .invalid }
        guard
            HMAC<SHA256>.isValidAuthenticationCode(
                mac, authenticating: Array("\(blobKey)\n\(expires)".utf8), using: SymmetricKey(data: secret))
        else { return .invalid }
        let left = time - Int(now().timeIntervalSince1970)
        return left > 0 ? .valid(seconds: left) : .expired
    }
}
