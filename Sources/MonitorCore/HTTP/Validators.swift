import Crypto
import Foundation
import MonitorJSON
import MonitorText

/// The validators of a response, sent back to make the next request conditional.
package struct Validators: Sendable, Hashable, Codable {
    /// The `ETag`, exactly as received (quotes and `W/` included).
    package var etag: String?
    /// The `Last-Modified`, exactly as received.
    package var lastModified: String?

    package init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Whether there is anything to send back.
    package var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// Validators are kept per URL and per credential: an answer depends on who asks.
package struct ValidatorKey: Sendable, Hashable {
    package var url: String
    /// A fingerprint of the credential ("" without one): never the credential itself.
    package var credential: String

    package init(url: String, credential: String) {
        self.url = url
        self.credential = credential
    }

    /// The key of `url` asked with `credential`.
    init(url: String, credentialValue: String?) {
        self.init(url: url, credential: credentialValue.map(Self.fingerprint) ?? "")
    }

    /// A one-way fingerprint of a credential, so that validators and rate budgets can be told apart by
    /// credential without storing it: the SHA-256 of `monitor-credential:` and the credential, all 256 bits in
    /// lower-case hexadecimal (64 characters), "" for an empty credential. The prefix keeps it from matching a
    /// plain SHA-256 of the token computed elsewhere.
    static func fingerprint(_ credential: String) -> String {
        guard !credential.isEmpty else { return "" }
        return SHA256.hash(data: Array("monitor-credential:\(credential)".utf8)).hexadecimal
    }

    /// Whether `credential` is a fingerprint this version makes ("" or 64 hexadecimal characters). Earlier
    /// versions stored a 16-character FNV-1a fingerprint: a validator stored under one is never matched again
    /// (the feed's next request is unconditional) and is deleted by the next poll that stores its validators.
    var isCurrent: Bool { credential.isEmpty || credential.utf8.count == 2 * SHA256.byteCount }
}

/// What a server said of its rate limit in its last answer.
package struct RateLimit: Sendable, Hashable, Codable {
    /// Requests allowed per window.
    package var limit: Int?
    /// Requests left in this window.
    package var remaining: Int?
    /// When the window resets.
    package var reset: Date?
    /// Which limit (`core`, `search`): the request's, or the one the source's policy reads from the response.
    package var resource: String?

    /// The rate limit read from the generic `x-ratelimit-limit`, `-remaining` and `-reset` headers, when there
    /// are any; `resource` is the request's (a source's policy may name another).
    package init?(headers: HTTPHeaders, resource: String? = nil) {
        // A count below zero means nothing: such a header is ignored ("-1/-5 remaining" would be shown).
        let count = { (name: String) in
            headers[name].flatMap { Int($0.trimmingWhitespace()) }.flatMap { $0 >= 0 ? $0 : nil }
        }
        let remaining = count("x-ratelimit-remaining")
        let limit = count("x-ratelimit-limit")
        guard remaining != nil || limit != nil else { return nil }
        self.limit = limit
        self.remaining = remaining
        // Seconds since 1970; a far-off one is cut where it is used (`HTTPPolicy.maximumHold`).
        self.reset = headers["x-ratelimit-reset"].flatMap { TimeInterval($0.trimmingWhitespace()) }
            .flatMap { $0.isFinite && $0 >= 0 ? Date(timeIntervalSince1970: $0) : nil }
        self.resource = resource
    }
}
