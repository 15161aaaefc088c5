import Crypto
import Foundation

/// RFC 8291 message encryption for Web Push, in RFC 8188's `aes128gcm` content
/// coding with one record: only the browser holding the subscription's private
/// key can read a push; the push service relays ciphertext.
enum WebPushCrypto {
    /// The record size written in the header; one record holds the whole message.
    static let recordSize = 4_096
    /// The largest plaintext a push carries: RFC 8291 §4 promises push services take
    /// 4096 bytes of body, header (86 bytes) included, less the delimiter and the tag.
    static let maxPlaintext = 4_096 - 86 - 1 - 16

    struct Problem: Error, CustomStringConvertible { var description: String }

    /// The body to POST: salt (16) ‖ rs (4) ‖ idlen (1) ‖ the sender's public key (65) ‖ ciphertext.
    /// `senderKey` and `salt` are fresh for every message unless given (the RFC's example fixes them).
    static func encrypt(
        _ plaintext: [UInt8], receiverKey p256dh: [UInt8], authSecret: [UInt8],
        senderKey: P256.KeyAgreement.PrivateKey = .init(), salt: [UInt8]? = nil
    ) throws -> [UInt8] {
        guard plaintext.count <= maxPlaintext else { throw Problem(description: "the message is longer than one record") }
        guard authSecret.count == 16 else { throw Problem(description: "the authentication secret is not 16 bytes") }
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: p256dh)
        let salt = salt ?? (0..<16).map { _ in UInt8.random(in: 0...255) }
        let senderPublic = Array(senderKey.publicKey.x963Representation)
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: receiver)
        let ecdhSecret = shared.withUnsafeBytes { Array($0) }

        // §3.3: IKM = HKDF(auth_secret, ecdh_secret, "WebPush: info" ‖ 0 ‖ ua_public ‖ as_public, 32).
        let keyInfo = Array("WebPush: info".utf8) + [0] + Array(receiver.x963Representation) + senderPublic
        let ikm = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ecdhSecret), salt: authSecret, info: keyInfo, outputByteCount: 32)
        // RFC 8188 §2.2–2.3: the content encryption key and the nonce from the salt.
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let cek = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Array("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)

        // The last (and only) record ends with the delimiter 2.
        let sealed = try AES.GCM.seal(plaintext + [2], using: cek, nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Array($0) }))
        var body = salt
        body += withUnsafeBytes(of: UInt32(recordSize).bigEndian) { Array($0) }
        body.append(UInt8(senderPublic.count))
        body += senderPublic
        body += Array(sealed.ciphertext) + Array(sealed.tag)
        return body
    }
}
