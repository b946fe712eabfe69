import CoreMetrics
import Foundation
import MonitorText
import Synchronization

/// What `monitor` counts, recorded through swift-metrics into the factory it is given: polls, their duration,
/// items, requests, rate limits, notifications and leases.
///
/// Every metric is made from `factory`, never from the global `MetricsSystem`, so that each run — and each test —
/// records into a registry of its own. Label values are user text (feed and notifier names) or bounded words
/// (statuses, codes); none is ever a URL with a credential, a token or a header.
package struct MonitorMetrics: Sendable {
    /// The metrics' names; docs/metrics.md says what each one counts and by which labels.
    package enum Name {
        static let polls = "monitor_polls_total"
        package static let pollDuration = "monitor_poll_duration_seconds"
        static let items = "monitor_items"
        static let newItems = "monitor_new_items_total"
        static let requests = "monitor_http_requests_total"
        static let notModified = "monitor_http_not_modified_total"
        static let responseBytes = "monitor_http_response_bytes_total"
        static let rateLimitRemaining = "monitor_rate_limit_remaining"
        static let lastSuccess = "monitor_last_success_timestamp_seconds"
        static let notificationsPending = "monitor_notifications_pending"
        static let notificationsFailed = "monitor_notifications_failed_total"
        static let notificationsDropped = "monitor_notifications_dropped_total"
        static let leasesHeld = "monitor_leases_held"
        static let reloadSuccessful = "monitor_config_last_reload_successful"
        static let reloadSuccess = "monitor_config_last_reload_success_timestamp_seconds"
    }

    /// The `# HELP` text of each metric, by name: one line each, as docs/metrics.md says it.
    package static let help: [String: String] = [
        Name.polls: "Polls that ended, by feed and status (ok, partial, failed, not_modified).",
        Name.pollDuration: "How long polls took, by feed, every status included.",
        Name.items: "Items the feed has stored after its last poll that did not fail.",
        Name.newItems: "New items found, by feed.",
        Name.requests: "HTTP requests sent, retries included, by feed and status code (error when no answer came).",
        Name.notModified: "Conditional requests answered 304 Not Modified, by feed.",
        Name.responseBytes: "Response body bytes received, by feed.",
        Name.rateLimitRemaining: "Requests left in a server's rate limit as its last answer reported.",
        Name.lastSuccess: "When the feed's last poll that did not fail ended, in Unix seconds.",
        Name.notificationsPending: "Notifications waiting in the outbox, by notifier.",
        Name.notificationsFailed: "Deliveries that failed, by notifier.",
        Name.notificationsDropped: "Notifications dropped undelivered, their notifier's bounds exceeded, by notifier.",
        Name.leasesHeld: "Feeds whose lease this instance holds on a shared schedule.",
        Name.reloadSuccessful: "Whether the last reload of the feeds file was taken (1) or rejected (0).",
        Name.reloadSuccess: "When the feeds file was last loaded or reloaded successfully, in Unix seconds.",
    ]

    /// The upper bounds of the poll duration histogram's buckets: from a poll answered at once by a 304 to one
    /// paging through a slow API.
    package static let pollDurationBuckets: [Duration] = [
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
    ]

    /// The most resources (`x-ratelimit-resource`) shown: a server naming a new one in every answer would
    /// otherwise grow the metrics without bound. The rest show as `other`.
    static let resourceLimit = 32

    /// Metrics that record nothing.
    package static let disabled = MonitorMetrics(factory: NOOPMetricsHandler.instance)

    let factory: any MetricsFactory
    private let resources: Resources

    package init(factory: any MetricsFactory) {
        self.factory = factory
        resources = Resources()
    }

    // MARK: - Polls

    /// Records a poll that ended with `report`: its status and duration; when it did not fail, its stored and
    /// new items and the time it ended as the feed's last success.
    func polled(_ report: PollReport) {
        let feed = [("feed", Self.label(report.feed))]
        Counter(label: Name.polls, dimensions: feed + [("status", report.status.rawValue)], factory: factory)
            .increment()
        let duration = report.duration.components
        Timer(label: Name.pollDuration, dimensions: feed, factory: factory)
            .recordNanoseconds(duration.seconds * 1_000_000_000 + duration.attoseconds / 1_000_000_000)
        guard report.status != .failed else { return }
        Gauge(label: Name.items, dimensions: feed, factory: factory).record(report.items)
        Counter(label: Name.newItems, dimensions: feed, factory: factory).increment(by: report.new)
        let ended = report.started.timeIntervalSince1970 + report.duration.seconds
        Gauge(label: Name.lastSuccess, dimensions: feed, factory: factory).record(ended)
    }

    /// What the requests of `feed`'s polls record.
    func requests(feed: String) -> Requests {
        Requests(metrics: self, feed: Self.label(feed))
    }

    // MARK: - Notifications and leases

    /// Records that `count` notifications of `notifier` (its name in the feeds file, never its URL) wait in the
    /// outbox.
    func notificationsPending(notifier: String, count: Int) {
        Gauge(label: Name.notificationsPending, dimensions: [("notifier", Self.notifier(notifier))], factory: factory)
            .record(count)
    }

    /// Records that a delivery by `notifier` (its name in the feeds file, never its URL) failed.
    func notificationFailed(notifier: String) {
        Counter(
            label: Name.notificationsFailed, dimensions: [("notifier", Self.notifier(notifier))], factory: factory
        ).increment()
    }

    /// Records that a notification of `notifier` (its name in the feeds file, never its URL) was dropped
    /// undelivered, its bounds exceeded.
    func notificationDropped(notifier: String) {
        Counter(
            label: Name.notificationsDropped, dimensions: [("notifier", Self.notifier(notifier))], factory: factory
        ).increment()
    }

    /// Whether anything is recorded: what only the metrics need is not worth reading for ``disabled``.
    var isEnabled: Bool { !(factory is NOOPMetricsHandler) }

    /// Records that this instance holds the leases of `count` feeds.
    func leasesHeld(_ count: Int) {
        Gauge(label: Name.leasesHeld, dimensions: [], factory: factory).record(count)
    }

    /// Records whether the feeds file, loaded or reloaded at `time`, was taken (`successful`).
    package func configReloaded(successful: Bool, at time: Date) {
        Gauge(label: Name.reloadSuccessful, dimensions: [], factory: factory).record(successful ? 1 : 0)
        guard successful else { return }
        Gauge(label: Name.reloadSuccess, dimensions: [], factory: factory).record(time.timeIntervalSince1970)
    }

    // MARK: - Label values

    /// `text` as a label value: control characters other than line feeds (which the exposition escapes) dropped.
    static func label(_ text: String) -> String {
        TerminalText.sanitized(text, keepNewlines: true)
    }

    /// A notifier's name as a label value; a URL given instead (a webhook's carries its secret) is cut to its
    /// scheme and host.
    static func notifier(_ name: String) -> String {
        guard name.contains("://") else { return label(name) }
        return origin(of: name, withPort: false)
    }

    /// `scheme://host[:port]` of `url`, lowercased — without its user, password, path or query — or `unknown`.
    static func origin(of url: String, withPort: Bool = true) -> String {
        guard let origin = URLOrigin(url), !origin.host.isEmpty else { return "unknown" }
        let host = origin.host
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return label(
            withPort ? "\(origin.scheme)://\(shown):\(origin.effectivePort)" : "\(origin.scheme)://\(shown)")
    }

    /// The label of a rate limit's resource as a server named it: printable, at most 64 characters, one of the
    /// first ``resourceLimit`` seen, else `other`.
    func resource(_ name: String) -> String {
        resources.label(String(Self.label(name).replacingOccurrences(of: "\n", with: " ").prefix(64)))
    }

    /// The resources shown so far.
    private final class Resources: Sendable {
        private let seen = Mutex<Set<String>>([])

        func label(_ name: String) -> String {
            seen.withLock { seen in
                if seen.contains(name) { return name }
                guard seen.count < MonitorMetrics.resourceLimit else { return "other" }
                seen.insert(name)
                return name
            }
        }
    }
}
