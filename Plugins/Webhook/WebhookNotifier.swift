import Foundation
import MonitorCore
import MonitorOptions
import MonitorText

/// The `webhook` notifier: each notification POSTed to a URL in one of the formats (the schema-1 json body, Slack,
/// Discord, ntfy or plain text), through the feeds' HTTP stack without following redirects.
///
/// Every delivery of a notification carries its id as `Idempotency-Key`, and, with a `secret`, the body's HMAC as
/// `X-Monitor-Signature-256: sha256=<hex>`. A 2xx answer delivers it; a connection error, a timeout, a 408, a 429
/// (with its `Retry-After`) or a 5xx is retried; any other answer (another 4xx, a redirect) refuses it. The URL,
/// the secret and the headers' values are secrets: messages show the URL as `scheme://host/…` at most, and a
/// receiver's answer with every part of them hidden (``Redaction``).
package struct WebhookNotifier: Notifier {
    package static let type = "webhook"
    package static let summary = "An HTTP POST of each notification (json, slack, discord, ntfy or text)"

    static let url = FeedOption<String?>(
        "url", .string(placeholder: "url"), required: true, secret: true,
        doc: "The http:// or https:// URL notifications are POSTed to (never shown whole)")
    static let format = FeedOption<String>(
        "format", .choice(NotificationFormat.allCases.map(\.rawValue)), default: NotificationFormat.json.rawValue,
        doc: "The body: json (schema 1), slack, discord, ntfy or text")
    static let secret = FeedOption<String?>(
        "secret", .string(placeholder: "text"), secret: true,
        doc: "Signs each body: header X-Monitor-Signature-256: sha256=<hex HMAC-SHA256>")
    static let headers = FeedOption<[String: String]?>(
        "headers", .mapping(placeholder: "Name: value", key: Self.checkHeaderName), secret: true,
        doc: "More header fields, e.g. {Authorization: \"Bearer ${TOKEN}\"} (values never shown)")
    static let timeout = FeedOption<Duration?>(
        "timeout", .duration(), doc: "Time limit of one delivery (default: settings.timeout)")

    package static let options: [any OptionDeclaration] = [url, format, secret, headers, timeout]

    /// The URL must be http(s) with a host and no user name or password; a header's value must be one HTTP can
    /// carry; with format ntfy, no header may be its `Title` or `Tags`.
    package static func check(_ options: FeedOptions) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        if let url = options[Self.url], let problem = Self.problem(url: url) {
            diagnostics.append(
                .error("'url' \(problem) (its value is not shown)", at: options.location(of: Self.url.name)))
        }
        if options[Self.format] == NotificationFormat.ntfy.rawValue {
            for name in (options[Self.headers] ?? [:]).keys.sorted()
            where Self.reservedByNtfy.contains(name.lowercased()) {
                diagnostics.append(
                    .error(
                        "header '\(name)' is set by monitor itself with format ntfy",
                        at: options.location(of: Self.headers.name)))
            }
        }
        for (name, value) in (options[Self.headers] ?? [:]).sorted(by: { $0.key < $1.key })
        where value.unicodeScalars.contains(where: { $0 != "\t" && TerminalText.isControl($0) }) {
            diagnostics.append(
                .error(
                    "the value of header '\(name)' contains a control character, which an HTTP request cannot carry "
                        + "(not shown): check where it comes from (an environment variable?)",
                    at: options.location(of: Self.headers.name)))
        }
        return diagnostics
    }

    /// The URL (a secret).
    let url: String
    /// How the body is written.
    let format: NotificationFormat
    /// The key of the body's signature.
    let secret: String?
    /// More header fields.
    let headers: [String: String]
    let transport: any HTTPTransport
    /// The time limit of one delivery.
    let timeout: Duration
    /// The largest answer read.
    let maxBody: Int
    /// What must never show: the URL after its host, the secret and the headers' values.
    let redaction: Redaction

    package init(name: String, options: FeedOptions, context: NotifierContext) {
        url = options[Self.url] ?? ""
        format = NotificationFormat(rawValue: options[Self.format]) ?? .json
        secret = options[Self.secret]
        headers = options[Self.headers] ?? [:]
        transport = context.transport
        timeout = options[Self.timeout] ?? context.timeout
        maxBody = context.maxBody
        redaction = Redaction(url: url, values: Array(headers.values) + (secret.map { [$0] } ?? []))
    }

    package var target: String { Self.masked(url) }
}
