import Foundation
import MonitorOptions
import MonitorText

/// A notifier plugin: one module under `Plugins/` that knows how to deliver a ``FeedNotification`` to one `type`
/// of receiver (a webhook, a command).
///
/// Like a ``FeedSource`` it describes itself — its type name, a one-line summary and its options — so that the core
/// can validate the `notify:` list of `feeds.yaml` against it and `monitor sources` can list it. The core decides
/// what to send (``NotificationPlanner``), keeps it in the state's outbox until it is delivered and retries it
/// (``NotificationDelivery``); a notifier only delivers one notification once and says how that went.
package protocol Notifier: Sendable {
    /// The `type:` that selects this notifier in `feeds.yaml`.
    static var type: String { get }
    /// One line saying where a notifier of this type delivers.
    static var summary: String { get }
    /// The options this notifier declares, read back as `options[Self.name]` (`name`, `type`, `feeds` and `on`
    /// are the core's).
    static var options: [any OptionDeclaration] { get }
    /// Checks that involve several options, or a value beyond its type; each option's own type is already valid.
    static func check(_ options: FeedOptions) -> [Diagnostic]

    /// A notifier named `name` with its validated options, sending what it sends through `context`.
    init(name: String, options: FeedOptions, context: NotifierContext)

    /// Where it delivers, safe to show: a webhook's URL masked to `scheme://host/…`, a command's program.
    var target: String { get }

    /// Delivers `notification` once and returns the receiver's answer (`HTTP 200`, `exit 0`); throws a
    /// ``DeliveryError`` saying whether a later attempt may succeed. Neither the answer nor the error ever holds a
    /// secret option's value.
    func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt

    /// Checks that it could deliver, sending nothing (`monitor validate --online`): a webhook's host resolves, a
    /// command's program can be started. The default has nothing to check.
    func checkOnline() async -> OnlineCheck
}

extension Notifier {
    /// No checks beyond each option's own.
    package static func check(_ options: FeedOptions) -> [Diagnostic] { [] }

    package func checkOnline() async -> OnlineCheck { .notChecked("nothing to check online") }
}

/// What the core gives a notifier: the HTTP seam of the feeds, the limits of the settings, the environment.
package struct NotifierContext: Sendable {
    /// Where requests go: the same client stack as the feeds' (timeouts, body caps), without redirects.
    package var transport: any HTTPTransport
    /// The time limit of one delivery (a notifier's own `timeout` may replace it).
    package var timeout: Duration
    /// The largest answer read.
    package var maxBody: Int
    /// `monitor`'s environment, of which a command gets a few harmless variables.
    package var environment: [String: String]
    /// How a notifier's own timeout is waited for (a test's manual clock).
    package var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    package init(transport: any HTTPTransport, timeout: Duration, maxBody: Int, environment: [String: String]) {
        self.transport = transport
        self.timeout = timeout
        self.maxBody = maxBody
        self.environment = environment
    }
}

/// A receiver's answer to a delivery that succeeded.
package struct DeliveryReceipt: Sendable, Hashable {
    /// The answer in a few words: `HTTP 200`, `exit 0`.
    package var answer: String

    package init(_ answer: String) {
        self.answer = answer
    }
}
