import Foundation
import MonitorItems

/// One notification: what one poll of one feed has to tell one notifier.
///
/// It is written to the state's outbox in the transaction of the poll it reports and delivered after that commit,
/// with the same `id` every time it is sent, so a receiver can drop a repeat. Its json body is schema 1 of the
/// notification format documented in docs/notification-formats.md.
package struct FeedNotification: Sendable, Hashable, Codable {
    /// What happened to the feed.
    package enum Event: String, Sendable, Hashable, Codable, CaseIterable {
        /// The poll found items that were not stored before (never on a feed's first sync).
        case new
        /// The feed started failing (sent once, when it starts).
        case failed
        /// The feed succeeded again after failing.
        case recovered
        /// The feed became stale: at a poll that did not fail, the last poll that found a new item is longer ago
        /// than the feed's `expect_update_within`, and at its previous poll it was not (sent once, when it becomes
        /// stale; only to notifiers that ask for it in `on:`). A feed that never had an item is never stale.
        case stale
        /// A poll that did not fail may have missed events (`PollReport.gap`), such as more events between two polls
        /// than an API's window holds; only to notifiers that ask for it in `on:`.
        case gap
        /// Everything a notifier with `digest:` collected in one period, combined (its `notifications`, in order).
        case digest

        /// The events a notifier's `on:` may name: a digest is asked for with `digest:`, not in `on:`.
        static var selectable: [Event] { allCases.filter { $0 != .digest } }
    }

    /// The most items one notification carries; `total` says how many there were.
    static let maximumItems = 50

    /// Unique, the same on every delivery of this notification (the `Idempotency-Key` of a webhook).
    package var id: String
    /// The notifier's name in `feeds.yaml`.
    package var notifier: String
    package var feed: String
    /// The feed's `type`.
    package var type: String
    package var event: Event
    /// When the poll that this notification reports ended.
    package var at: Date
    /// How many items the event concerns (for `new`: how many new items, of which `items` holds the newest 50).
    package var total: Int
    /// The newest items first, at most `maximumItems`.
    package var items: [Item]
    /// The feed's error, for `failed` and `stale`; for `gap`, what may be missing in words.
    package var error: String?
    /// For `gap`, the events that may be missing.
    package var gap: PollGap?
    /// For a `digest`: the notifications it combines, in the order the polls wrote them; nil otherwise.
    package var notifications: [FeedNotification]?

    /// A notification; `items` is cut to the newest `maximumItems`.
    package init(
        id: String, notifier: String, feed: String, type: String, event: Event, at: Date, total: Int,
        items: [Item], error: String? = nil, gap: PollGap? = nil
    ) {
        self.id = id
        self.notifier = notifier
        self.feed = feed
        self.type = type
        self.event = event
        self.at = at
        self.total = total
        self.items = Array(items.sorted { $0.date > $1.date }.prefix(Self.maximumItems))
        self.error = error
        self.gap = gap
    }
}

// MARK: - Digest

extension FeedNotification {
    /// The digest of `notifier` combining `notifications` (its collected ones, oldest first), made at `at`. Its id is
    /// the same whenever it combines the same notifications (a retry that collected none since), so a receiver can
    /// drop a repeat; `feed` and `type` are empty, `total` is how many it combines.
    package static func digest(of notifications: [FeedNotification], notifier: String, at: Date) -> FeedNotification {
        var digest = FeedNotification(
            id: "digest-\(notifications.first?.id ?? "")-\(notifications.count)", notifier: notifier, feed: "",
            type: "", event: .digest, at: at, total: notifications.count, items: [])
        digest.notifications = notifications
        return digest
    }
}
