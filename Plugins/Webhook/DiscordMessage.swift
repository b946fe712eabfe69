import MonitorCore
import MonitorJSON

/// The `discord` format: a webhook message `{"content": …, "allowed_mentions": {"parse": []}}` in Discord's
/// markdown, at most 2,000 characters.
enum DiscordMessage {
    /// The longest content, in UTF-16 code units (Discord refuses more than 2,000 characters).
    static let maximumLength = 2_000

    static func render(_ summary: NotificationSummary) -> RenderedNotification {
        let length = { (text: String) in text.utf16.count }
        let content =
            if summary.event == .digest {
                summary.composeDigest(head: ["**digest**: \(summary.eventText)"], limit: maximumLength, length: length)
                {
                    section, budget in
                    section.composeSection(head: head(section), budget: budget, length: length, entry: line)
                }
            } else {
                summary.compose(head: [head(summary)], limit: maximumLength, length: length, entry: line)
            }
        let body = JSONValue.object([
            ("content", .string(content)), ("allowed_mentions", .object([("parse", .array([]))])),
        ]).text
        return RenderedNotification(body: Array(body.utf8), contentType: "application/json")
    }

    /// `**feed** (type): what happened: error`.
    private static func head(_ summary: NotificationSummary) -> String {
        var head = "**\(escaped(summary.feed))** (\(escaped(summary.type))): \(summary.eventText)"
        if let error = summary.error { head += ": " + escaped(error) }
        return head
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
