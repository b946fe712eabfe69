@testable import WebhookNotifier

extension RenderedNotification {
    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
}
