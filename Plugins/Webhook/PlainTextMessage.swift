/// The `text` format: the summary as plain text, one line per fact, ending in a line break.
enum PlainTextMessage {
    static func render(_ summary: NotificationSummary) -> RenderedNotification {
        let text = summary.text(
            limit: .max, length: { $0.utf8.count }, digestHead: [summary.headline], head: { $0.head() }, entry: line)
        return RenderedNotification(body: Array((text + "\n").utf8), contentType: "text/plain; charset=utf-8")
    }

    /// `- title`, then its link indented on a line of its own (also ntfy's).
    static func line(_ entry: NotificationSummary.Entry) -> [String] {
        ["- " + entry.title] + (entry.url.map { ["  " + $0] } ?? [])
    }
}
