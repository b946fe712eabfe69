import Foundation
import MonitorCore
import MonitorJSON

/// How a notifier writes a notification: the `format` of a notifier in `feeds.yaml`.
enum NotificationFormat: String, CaseIterable, Sendable {
    /// The json body, schema 1 (`FeedNotification.jsonBody()`), the default.
    case json
    /// A Slack incoming webhook message, `{"text": …}`, in Slack's mrkdwn.
    case slack
    /// A Discord webhook message, `{"content": …, "allowed_mentions": {"parse": []}}`, in Discord's markdown.
    case discord
    /// An ntfy message: the summary as a text body, the headline in a `Title` header and the event as an emoji in
    /// `Tags`.
    case ntfy
    /// The summary as plain text, one line per fact, ending in a line break.
    case text

    /// The longest text: Slack cuts a section at 3,000 characters and Discord refuses more than 2,000 (both counted
    /// in UTF-16 code units); ntfy makes a body of more than 4,096 bytes an attachment.
    var maximumLength: Int {
        switch self {
        case .slack: 3_000
        case .discord: 2_000
        case .ntfy: 4_096
        case .json, .text: .max
        }
    }

    /// The notification in this format. The chat formats carry a short summary (the feed, what happened, the
    /// newest few titles with their links, "and N more") with network text neutralised for the target: no
    /// control characters, no mention that pings, no markup that forges a link, and the target's length limits.
    func render(_ notification: FeedNotification) -> RenderedNotification {
        let summary = NotificationSummary(notification)
        let plain = "text/plain; charset=utf-8"
        switch self {
        case .json:
            return RenderedNotification(body: notification.jsonBody(), contentType: "application/json")
        case .slack:
            // `• <link|title>`, or `• title` without an http(s) link.
            let text = chat(summary, bold: "*", bullet: "• ", escaped: Self.slackText) { title, link in
                "• <\(link.escaped(by: Self.slackLink))|\(title)>"
            }
            return .json([("text", .string(text))])
        case .discord:
            // `- [title](<link>)`, or `- title` without an http(s) link.
            let content = chat(summary, bold: "**", bullet: "- ", escaped: Self.discordText) { title, link in
                "- [\(title)](<\(Self.discordLink(link))>)"
            }
            return .json([("content", .string(content)), ("allowed_mentions", .object([("parse", .array([]))]))])
        case .ntfy:
            // The headline is the title: a digest's sections start with their own, one notification with its error.
            let body = summary.text(
                limit: maximumLength, length: { $0.utf8.count }, digestHead: [],
                single: summary.error.map { [$0] } ?? (summary.entries.isEmpty ? [summary.headline] : []),
                head: { $0.head() }, entry: Self.line)
            let headers = [("Title", Self.headerValue(summary.headline)), ("Tags", Self.tag(summary.event))]
            return RenderedNotification(body: Array(body.utf8), contentType: plain, headers: headers)
        case .text:
            let text = summary.text(
                limit: .max, length: { $0.utf8.count }, digestHead: [summary.headline], head: { $0.head() },
                entry: Self.line)
            return RenderedNotification(body: Array((text + "\n").utf8), contentType: plain)
        }
    }

    /// A chat format's text, in UTF-16 code units: the feed `bold` in the head, network text `escaped`, each title
    /// made a line by `linked` with its http(s) link, else after `bullet`.
    private func chat(
        _ summary: NotificationSummary, bold: String, bullet: String, escaped: @escaping (String) -> String,
        linked: @escaping (_ title: String, _ link: String) -> String
    ) -> String {
        summary.text(
            limit: maximumLength, length: { $0.utf16.count },
            digestHead: ["\(bold)digest\(bold): \(summary.eventText)"],
            head: { $0.head(bold: bold, escaped: escaped) }
        ) { entry in
            let title = escaped(entry.title)
            return [NotificationSummary.webLink(entry.url).map { linked(title, $0) } ?? bullet + title]
        }
    }

    /// Text escaped per Slack's rules (`&`, `<`, `>` as entities, so no `<!channel>`, `<@U123>` or `<url|text>`
    /// survives) with every `@` followed by a zero-width space.
    static func slackText(_ text: String) -> String {
        text.escaped(by: ["&": "&amp;", "<": "&lt;", ">": "&gt;", "@": "@\u{200B}"])
    }

    /// A link for `<link|title>`: `|`, `<`, `>` percent-encoded so the link cannot end early, `&` as `&amp;`.
    static let slackLink: [Character: String] = ["|": "%7C", "<": "%3C", ">": "%3E", "&": "&amp;"]

    /// Text with Discord's markdown characters escaped by a backslash (no bold, link, spoiler or `<@123>`
    /// mention is made from it) and every `@` followed by a zero-width space (no `@everyone`).
    static func discordText(_ text: String) -> String {
        text.escaped(by: discordMarkup)
    }

    private static let discordMarkup: [Character: String] = Dictionary(
        uniqueKeysWithValues: #"\*_~`|<>[]()"#.map { ($0, "\\\($0)") } + [("@", "@\u{200B}")])

    /// A link for `[title](<link>)`: `<`, `>` percent-encoded so it cannot end early.
    static func discordLink(_ url: String) -> String {
        url.replacingOccurrences(of: "<", with: "%3C").replacingOccurrences(of: ">", with: "%3E")
    }

    /// `- title`, then its link indented on a line of its own (text and ntfy).
    static func line(_ entry: NotificationSummary.Entry) -> [String] {
        ["- " + entry.title] + (entry.url.map { ["  " + $0] } ?? [])
    }

    /// The ntfy tag (shown as an emoji) of the event.
    static func tag(_ event: FeedNotification.Event) -> String {
        switch event {
        case .new: "new"
        case .failed: "warning"
        case .recovered: "white_check_mark"
        case .stale: "hourglass"
        case .gap: "grey_question"
        case .digest: "newspaper"
        }
    }

    /// `text` as an HTTP header value: as is when ASCII, else an RFC 2047 encoded word (which ntfy decodes).
    static func headerValue(_ text: String) -> String {
        guard !text.unicodeScalars.allSatisfy({ $0.isASCII }) else { return text }
        return "=?UTF-8?B?" + Data(text.utf8).base64EncodedString() + "?="
    }
}
