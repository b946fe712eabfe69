/// The `text` format: the summary as plain text, one line per fact, ending in a line break.
enum PlainTextMessage {
    static func render(_ summary: NotificationSummary) -> RenderedNotification {
        let length = { (text: String) in text.utf8.count }
        let text =
            if summary.event == .digest {
                summary.composeDigest(head: [summary.headline], limit: .max, length: length) { section, budget in
                    section.composeSection(head: head(section), budget: budget, length: length, entry: line)
                }
            } else {
                summary.compose(head: [head(summary)], limit: .max, length: length, entry: line)
            }
        return RenderedNotification(body: Array((text + "\n").utf8), contentType: "text/plain; charset=utf-8")
    }

    /// `feed (type): what happened: error`.
    private static func head(_ summary: NotificationSummary) -> String {
        summary.headline + (summary.error.map { ": " + $0 } ?? "")
    }

    /// `- title`, then its link indented on a line of its own (also ntfy's).
    static func line(_ entry: NotificationSummary.Entry) -> [String] {
        ["- " + entry.title] + (entry.url.map { ["  " + $0] } ?? [])
    }
}
