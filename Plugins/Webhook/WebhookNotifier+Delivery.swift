import Foundation
import MonitorCore
import MonitorText

// One webhook's POST: the request a notification makes, and what its answer means.
extension WebhookNotifier {
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
    package func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        let shown = "POST \(Self.masked(url))"
        let response: HTTPResponse
        do {
            response = try await transport.send(request(for: notification))
        } catch let error as TransportError {
            switch error {
            case .timeout:
                throw DeliveryError.retry("\(shown) timed out after \(DurationFormat.string(timeout))")
            case .connection(let detail):
                throw DeliveryError.retry("\(shown) failed: \(redaction.redacted(detail))")
            case .bodyTooLarge(let limit):
                throw DeliveryError.retry("\(shown): the answer is larger than \(ByteSizeFormat.string(limit))")
            case .invalid(let detail):
                throw DeliveryError.permanent("\(shown) cannot be sent: \(redaction.redacted(detail))")
            }
        }
        let status = response.status
        let said = message(in: response.body).map { ": \($0)" } ?? ""
        switch status {
        case 200..<300:
            return DeliveryReceipt("HTTP \(status)")
        case 408, 429, 500..<600, 100..<200:
            let after = response.headers["Retry-After"].flatMap { FeedHTTP.retryAfter($0, now: Date()) }
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

    /// A short text of an answer's body, safe to show: no control characters, none of the secrets (see
    /// ``Redaction``), nil when there is nothing to show or it is HTML.
    private func message(in body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        // A body cut by the transport may end with the start of a secret.
        let text = redaction.message(
            String(decoding: body, as: UTF8.self), limit: Self.answerLimit, cutAfter: body.count >= Self.answerRead)
        guard !text.isEmpty, !text.hasPrefix("<") else { return nil }
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
        HTTPHeaders.problem(name: name, reserved: reserved)
    }
}
