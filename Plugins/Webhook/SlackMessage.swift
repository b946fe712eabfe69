import MonitorCore
import MonitorJSON

/// The `slack` format: an incoming-webhook message `{"text": …}` in Slack's mrkdwn, at most 3,000 characters.
enum SlackMessage {
    /// The longest text, in UTF-16 code units (Slack cuts a section at 3,000 characters).
    static let maximumLength = 3_000

    static func render(_ summary: NotificationSummary) -> RenderedNotification {
        let text = summary.text(
            limit: maximumLength, length: { $0.utf16.count }, digestHead: ["*digest*: \(summary.eventText)"],
            head: { $0.head(bold: "*", escaped: escaped) }, entry: line)
        let body = JSONValue.object([("text", .string(text))]).text
        return RenderedNotification(body: Array(body.utf8), contentType: "application/json")
    }

    /// `• <link|title>`, or `• title` without an http(s) link.
    private static func line(_ entry: NotificationSummary.Entry) -> [String] {
        if let url = NotificationSummary.webLink(entry.url) {
            return ["• <\(link(url))|\(escaped(entry.title))>"]
        }
        return ["• " + escaped(entry.title)]
    }

    /// Text escaped per Slack's rules (`&`, `<`, `>` as entities, so no `<!channel>`, `<@U123>` or `<url|text>`
    /// survives) with every `@` followed by a zero-width space.
    static func escaped(_ text: String) -> String {
        text.escaped(by: ["&": "&amp;", "<": "&lt;", ">": "&gt;", "@": "@\u{200B}"])
    }

    /// A link for `<link|title>`: `|`, `<`, `>` percent-encoded so the link cannot end early, `&` as `&amp;`.
    static func link(_ url: String) -> String {
        url.escaped(by: ["|": "%7C", "<": "%3C", ">": "%3E", "&": "&amp;"])
    }
}
