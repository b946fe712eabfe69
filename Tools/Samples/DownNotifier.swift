import MonitorCore
import MonitorOptions

/// A receiver that is down: every delivery fails with a retryable "HTTP 503". A stub of the protocol, for the
/// outbox's tests and `monitor-bench outbox`, which measure a growing outbox behind it.
package struct DownNotifier: Notifier {
    package static let type = "down"
    package static let summary = "A receiver that is down"
    package static let options: [any OptionDeclaration] = []

    package init() {}
    package init(name: String, options: FeedOptions, context: NotifierContext) {}

    package var target: String { "nowhere" }

    package func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        throw DeliveryError.retry("HTTP 503")
    }
}
