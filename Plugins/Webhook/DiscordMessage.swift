import MonitorCore
import MonitorJSON

/// The `discord` format: a webhook message `{"content": …, "allowed_mentions": {"parse": []}}` in Discord's
/// markdown, at most 2,000 characters.
enum DiscordMessage {
    /// The longest content, in UTF-16 code units (Discord refuses more than 2,000 characters).
    static let maximumLength = 2_000

    static func render(_ summary: NotificationSummary) -> RenderedNotification {
        let content = summary.text(
            limit: maximumLength, length: { $0.utf16.count }, digestHead: ["**digest**: \(summary.eventText)"],
            head: { $0.head(bold: "**", escaped: escaped) }, entry: line)
        let body = JSONValue.object([
            ("content", .string(content)), ("allowed_mentions", .object([("parse", .array([]))])),
        ]).text
        return RenderedNotification(body: Array(body.utf8), contentType: "application/json")
    }

    /// `- [title](<link>)`, or `- title` without an http(s) link.
    private static func line(_ entry: NotificationSummary.Entry) -> [String] {
        if let url = NotificationSummary.webLink(entry.url) {
            return ["- [\(escaped(entry.title))](<\(link(url))>)"]
        }
        return ["- " + escaped(entry.title)]
    }

    /// Text with Discord's markdown characters escaped by a backslash (no bold, link, spoiler or `<@123>`
    /// mention is made from it) and every `@` followed by a zero-width space (no `@everyone`).
    static func escaped(_ text: String) -> String {
        text.escaped(by: markup)
    }

    /// The escape of each character `escaped` replaces.
    private static let markup: [Character: String] = Dictionary(
        uniqueKeysWithValues: #"\*_~`|<>[]()"#.map { ($0, "\\\($0)") } + [("@", "@\u{200B}")])

    /// A link for `[title](<link>)`: `<`, `>` percent-encoded so it cannot end early.
    static func link(_ url: String) -> String {
        url.replacingOccurrences(of: "<", with: "%3C").replacingOccurrences(of: ">", with: "%3E")
    }
}
