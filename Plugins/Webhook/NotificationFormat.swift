import MonitorCore

/// How a notifier writes a notification: the `format` of a notifier in `feeds.yaml`.
enum NotificationFormat: String, CaseIterable, Sendable {
    /// The json body, schema 1 (`FeedNotification.jsonBody()`), the default.
    case json
    /// A Slack incoming webhook message, `{"text": …}`.
    case slack
    /// A Discord webhook message, `{"content": …, "allowed_mentions": {"parse": []}}`.
    case discord
    /// An ntfy message: the summary as a text body with `Title` and `Tags` headers.
    case ntfy
    /// The summary as plain text.
    case text

    /// The notification in this format. The chat formats carry a short summary (the feed, what happened, the
    /// newest few titles with their links, "and N more") with network text neutralised for the target: no
    /// control characters, no mention that pings, no markup that forges a link, and the target's length limits.
    func render(_ notification: FeedNotification) -> RenderedNotification {
        let summary = NotificationSummary(notification)
        return switch self {
        case .json: RenderedNotification(body: notification.jsonBody(), contentType: "application/json")
        case .slack: SlackMessage.render(summary)
        case .discord: DiscordMessage.render(summary)
        case .ntfy: NtfyMessage.render(summary)
        case .text: PlainTextMessage.render(summary)
        }
    }
}
