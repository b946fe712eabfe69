import Foundation

/// The `ntfy` format: the summary as a plain-text body of at most 4,096 bytes (ntfy makes a longer one an
/// attachment), with the headline in a `Title` header and the event as an emoji in `Tags`.
enum NtfyMessage {
    /// The longest body, in UTF-8 bytes.
    static let maximumLength = 4_096

    static func render(_ summary: NotificationSummary) -> RenderedNotification {
        // The headline is the title: a digest's sections start with their own, one notification with its error.
        let body = summary.text(
            limit: maximumLength, length: { $0.utf8.count }, digestHead: [],
            single: summary.error.map { [$0] } ?? (summary.entries.isEmpty ? [summary.headline] : []),
            head: { $0.head() }, entry: PlainTextMessage.line)
        let headers = [("Title", headerValue(summary.headline)), ("Tags", tag(summary))]
        return RenderedNotification(
            body: Array(body.utf8), contentType: "text/plain; charset=utf-8",
            headers: headers)
    }

    /// The ntfy tag (shown as an emoji) of the event.
    static func tag(_ summary: NotificationSummary) -> String {
        switch summary.event {
        case .new: return "new"
        case .failed: return "warning"
        case .recovered: return "white_check_mark"
        case .stale: return "hourglass"
        case .gap: return "grey_question"
        case .digest: return "newspaper"
        }
    }

    /// `text` as an HTTP header value: as is when ASCII, else an RFC 2047 encoded word (which ntfy decodes).
    static func headerValue(_ text: String) -> String {
        guard !text.unicodeScalars.allSatisfy({ $0.isASCII }) else { return text }
        return "=?UTF-8?B?" + Data(text.utf8).base64EncodedString() + "?="
    }
}
