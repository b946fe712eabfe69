/// The `text` format: the summary as plain text, one line per fact, ending in a line break.
enum PlainTextMessage {
    static func render(_ summary: NotificationSummary) -> RenderedNotification {
        let head = summary.headline + (summary.error.map { ": " + $0 } ?? "")
        let text = summary.compose(head: [head], limit: .max, length: { $0.utf8.count }) { entry in
            ["- " + entry.title] + (entry.url.map { ["  " + $0] } ?? [])
        }
        return RenderedNotification(body: Array((text + "\n").utf8), contentType: "text/plain; charset=utf-8")
    }
}
