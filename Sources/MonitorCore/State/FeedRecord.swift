import Foundation

/// What the state knows of a feed's polling, for `monitor status` and the scheduler.
public struct FeedRecord: Sendable, Hashable, Codable {
    /// The feed's name.
    public var name: String
    /// Its source type.
    public var type: String
    /// The outcome of the last poll: `ok`, `not_modified`, `partial` or `failed`.
    public var status: String?
    /// When the last poll ended.
    public var lastPoll: Date?
    /// When the last poll that did not fail ended.
    public var lastSuccess: Date?
    /// When the feed last had a new item.
    public var lastNew: Date?
    /// Why the last poll failed or was partial.
    public var lastError: String?
    /// How many polls in a row failed.
    public var failures: Int
    /// Before this time the feed must not be polled (rate limit, `Retry-After`); never more than
    /// `HTTPPolicy.maximumHold` after `lastPoll`.
    public var notBefore: Date?
    /// Why the server holds the feed back until `notBefore`, in a few words (`rate limit exhausted`).
    public var holdReason: String?
    /// The shortest interval the server allows between polls.
    public var minimumInterval: Duration?
    /// The server's rate limit as last reported.
    public var rateLimit: RateLimit?
    /// How many items the feed keeps.
    public var itemCount: Int

    /// A record of a feed never polled.
    public init(name: String, type: String) {
        self.name = name
        self.type = type
        failures = 0
        itemCount = 0
    }

    /// How many polls in a row have failed after one that ended `status`: the one rule of the failure streak,
    /// which the scheduler's back-off follows.
    public func failures(after status: PollReport.Status) -> Int {
        status == .failed ? failures + 1 : 0
    }
}

/// Everything stored for one feed, read in one transaction at the start of a poll.
public struct FeedSnapshot: Sendable {
    /// The feed's record, nil when it was never polled.
    public var record: FeedRecord?
    /// Its items, newest first.
    public var items: [Item]
    /// The groups of its last poll, in order.
    public var groups: [ItemGroup]
    /// Its HTTP validators.
    public var validators: [ValidatorKey: Validators]
    /// Values a source keeps between polls (such as a cached search result).
    public var values: [String: String]

    /// A snapshot.
    public init(
        record: FeedRecord? = nil, items: [Item] = [], groups: [ItemGroup] = [],
        validators: [ValidatorKey: Validators] = [:], values: [String: String] = [:]
    ) {
        self.record = record
        self.items = items
        self.groups = groups
        self.validators = validators
        self.values = values
    }
}

/// The results of one poll, written in one transaction.
public struct PollCommit: Sendable {
    /// The feed's new record.
    public var record: FeedRecord
    /// The feed's whole item set after the poll; nil to leave the stored items as they are.
    public var items: [Item]?
    /// When items not seen before were first seen.
    public var firstSeen: Date
    /// The group catalog; nil to leave it.
    public var groups: [ItemGroup]?
    /// Validators to store (empty validators delete the stored ones).
    public var validators: [ValidatorKey: Validators]
    /// Source values to store (nil deletes).
    public var values: [String: String?]
    /// Notifications the poll produced, added to the outbox in the same transaction.
    public var notifications: [FeedNotification]
    /// The bounds of the notifiers of `notifications`, by name: what they no longer allow is dropped in the same
    /// transaction (``CommitStatistics/dropped``). A notifier without bounds keeps everything.
    public var bounds: [String: OutboxBounds]
    /// The stored form of items made while the poll ran (a cache: the items written are `items` either way).
    public var prepared: PreparedItems

    /// A commit.
    public init(
        record: FeedRecord, items: [Item]?, firstSeen: Date, groups: [ItemGroup]?,
        validators: [ValidatorKey: Validators],
        values: [String: String?], notifications: [FeedNotification] = [], bounds: [String: OutboxBounds] = [:],
        prepared: PreparedItems = PreparedItems()
    ) {
        self.record = record
        self.items = items
        self.firstSeen = firstSeen
        self.groups = groups
        self.validators = validators
        self.values = values
        self.notifications = notifications
        self.bounds = bounds
        self.prepared = prepared
    }
}
