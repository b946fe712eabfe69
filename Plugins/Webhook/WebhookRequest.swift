import Foundation
import MonitorCore

/// One webhook's POST: the request a notification makes, and what its answer means.
struct WebhookRequest: Sendable {
    /// The URL (a secret).
    var url: String
    /// How the body is written.
    var format: NotificationFormat
    /// The key of the body's signature.
    var secret: String?
    /// More header fields.
    var headers: [String: String]
    /// Where requests go.
    var transport: any HTTPTransport
    /// The time limit of one delivery.
    var timeout: Duration
    /// The largest answer read.
    var maxBody: Int

    /// Header fields a user's `headers` may not set: they are the delivery's own, or the HTTP client's.
    static let reserved = [
        "content-type", "content-length", "idempotency-key", "x-monitor-signature-256", "host", "user-agent",
        "connection", "transfer-encoding",
    ]

    /// Header fields a user's `headers` may not set with `format: ntfy`, which sets them.
    static let reservedByNtfy = ["title", "tags"]

    /// The request that delivers `notification`: its body in the format, its headers in a fixed order.
    func request(for notification: FeedNotification) -> HTTPRequest {
        let rendered = format.render(notification)
        var fields = HTTPHeaders([
            ("Content-Type", rendered.contentType), ("User-Agent", "monitor/\(MonitorVersion.current)"),
            ("Idempotency-Key", notification.id),
        ])
        for (name, value) in rendered.headers { fields.add(name, value) }
        if let secret, !secret.isEmpty {
            let signature = HMACSHA256.signatureHeader(secret: secret, body: rendered.body)
            fields.add(signature.name, signature.value)
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields.add(name, value) }
        return HTTPRequest(
            method: "POST", url: url, headers: fields, timeout: timeout, maxBody: min(maxBody, Self.answerRead),
            body: rendered.body, truncatesBody: true)
    }

    /// POSTs `notification`; returns the answer of a 2xx, else throws a ``DeliveryError``.
    func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        let shown = "POST \(Self.masked(url))"
        let response: HTTPResponse
        do {
            response = try await transport.send(request(for: notification))
        } catch let error as TransportError {
            switch error {
            case .timeout:
                throw DeliveryError.retry("\(shown) timed out after \(DurationFormat.string(timeout))")
            case .connection(let detail):
                throw DeliveryError.retry("\(shown) failed: \(redacted(detail))")
            case .bodyTooLarge(let limit):
                throw DeliveryError.retry("\(shown): the answer is larger than \(ByteSizeFormat.string(limit))")
            case .invalid(let detail):
                throw DeliveryError.permanent("\(shown) cannot be sent: \(redacted(detail))")
            }
        }
        let status = response.status
        let said = message(in: response.body).map { ": \($0)" } ?? ""
        switch status {
        case 200..<300:
            return DeliveryReceipt("HTTP \(status)")
        case 408, 429, 500..<600, 100..<200:
            let after = response.headers["Retry-After"].flatMap { DeliveryError.retryAfter($0, now: Date()) }
            throw DeliveryError.retry("\(shown) answered HTTP \(status)\(said)", after: after)
        case 300..<400:
            throw DeliveryError.permanent(
                "\(shown) answered HTTP \(status), a redirect, which is not followed (give the final URL)")
        default:
            throw DeliveryError.permanent("\(shown) answered HTTP \(status)\(said)")
        }
    }

    /// The most characters of an answer's body a message shows.
    static let answerLimit = 200

    /// The most bytes of an answer's body read: a larger answer is cut (a 2xx is delivered whatever its body).
    static let answerRead = 64 * 1024

    /// A short text of an answer's body, safe to show: no control characters, none of the secrets. The secrets are
    /// hidden in the whole body (before and after its control characters are taken out) and only then is it cut,
    /// so that no secret straddling the cut shows its first part.
    private func message(in body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        var body = body[...]
        if body.count >= Self.answerRead {
            // Cut by the transport: its last bytes may be the start of a secret.
            let longest = ([url] + headers.values + (secret.map { [$0] } ?? [])).map(\.utf8.count).max() ?? 0
            body = body.dropLast(max(longest - 1, 0))
        }
        let whole = redacted(TerminalText.sanitized(redacted(String(decoding: body, as: UTF8.self))))
        let text = String(whole.prefix(Self.answerLimit)).trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !text.hasPrefix("<") else { return nil }
        return text
    }

    /// `text` with the URL, its path (unless it is only `/`) and every non-empty secret value, however short,
    /// replaced by `…`.
    func redacted(_ text: String) -> String {
        var text = text
        let path = Self.path(of: url)
        var secrets = [url] + (path.count > 1 ? [path] : []) + headers.values + (secret.map { [$0] } ?? [])
        secrets = secrets.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
        for secret in secrets { text = text.replacingOccurrences(of: secret, with: "…") }
        return text
    }

    /// The URL as it may be shown: `scheme://host[:port]`, followed by `/…` when it has more.
    static func masked(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return "(the url, not shown)" }
        let rest = url[scheme.upperBound...]
        let authority = rest.prefix { !"/?#".contains($0) }
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        let more = rest.count > authority.count && rest.dropFirst(authority.count) != "/" ? "/…" : ""
        return TerminalText.sanitized(url[..<scheme.upperBound] + host) + more
    }

    /// The part of `url` after its authority.
    static func path(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        return String(rest.drop { !"/?#".contains($0) })
    }

    /// What is wrong with `url` as a webhook's, nil when nothing is.
    static func problem(url: String) -> String? {
        guard let scheme = url.range(of: "://"), ["http", "https"].contains(url[..<scheme.lowerBound].lowercased())
        else { return "must be an http:// or https:// URL" }
        let authority = url[scheme.upperBound...].prefix { !"/?#".contains($0) }
        if authority.contains("@") { return "must not hold a user name or password (before '@')" }
        if authority.isEmpty { return "has no host" }
        if url.contains(where: { $0.isWhitespace }) { return "must not contain spaces" }
        return nil
    }

    /// Checks a name of `headers`: an HTTP token, not one of the delivery's own fields.
    @Sendable static func checkHeaderName(_ name: String) -> String? {
        let token = Set("!#$%&'*+-.^_`|~")
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || token.contains($0)) })
        else { return "a header name has letters, digits and !#$%&'*+-.^_`|~" }
        return reserved.contains(name.lowercased()) ? "monitor sets this header itself" : nil
    }
}
