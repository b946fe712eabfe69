import Crypto
import MonitorJSON

/// HMAC-SHA256, the signature of notification bodies: a receiver that knows the secret checks
/// `X-Monitor-Signature-256: sha256=<hex>` against the body it got.
enum HMACSHA256 {
    /// The MAC of `message` under `key` in lower-case hexadecimal, 64 characters.
    static func hex(key: [UInt8], message: [UInt8]) -> String {
        HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)).hexadecimal
    }

    /// The header that signs `body` with `secret` (its UTF-8 bytes are the key):
    /// `X-Monitor-Signature-256: sha256=<hex>`.
    static func signatureHeader(secret: String, body: [UInt8]) -> (name: String, value: String) {
        ("X-Monitor-Signature-256", "sha256=" + hex(key: Array(secret.utf8), message: body))
    }
}
