/// HMAC-SHA256 (RFC 2104), the signature of notification bodies: a receiver that knows the secret checks
/// `X-Monitor-Signature-256: sha256=<hex>` against the body it got.
package enum HMACSHA256 {
    /// The header that carries a body's signature.
    package static let headerName = "X-Monitor-Signature-256"

    /// The MAC of `message` under `key`, 32 bytes.
    package static func mac(key: [UInt8], message: some Collection<UInt8>) -> [UInt8] {
        var block = key.count > SHA256.blockCount ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: SHA256.blockCount - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(innerDigest)
        return outer.finalize()
    }

    /// The MAC of `message` under `key` in lower-case hexadecimal, 64 characters.
    package static func hex(key: [UInt8], message: [UInt8]) -> String {
        hexadecimal(mac(key: key, message: message))
    }

    /// The header that signs `body` with `secret` (its UTF-8 bytes are the key):
    /// `X-Monitor-Signature-256: sha256=<hex>`.
    package static func signatureHeader(secret: String, body: [UInt8]) -> (name: String, value: String) {
        (headerName, "sha256=" + hex(key: Array(secret.utf8), message: body))
    }

    /// `bytes` in lower-case hexadecimal.
    static func hexadecimal(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
