import Foundation
import MonitorItems
import MonitorText

/// What the state knows of a feed's polling, for `monitor status` and the scheduler.
package struct FeedRecord: Sendable, Hashable, Codable {
    /// The feed's name.
    package var name: String
    /// Its source type.
    package var type: String
    /// The outcome of the last poll: `ok`, `not_modified`, `partial` or `failed`.
    package var status: String?
    /// When the last poll ended.
    package var lastPoll: Date?
    /// When the last poll that did not fail ended.
    package var lastSuccess: Date?
    /// When the feed last had a new item.
    package var lastNew: Date?
    /// Why the last poll failed or was partial, at most ``TerminalText/maximumMessage`` characters.
    package var lastError: String?
    /// How many polls in a row failed.
    package var failures: Int
    /// Before this time the feed must not be polled (rate limit, `Retry-After`); never more than
    /// `HTTPPolicy.maximumHold` after `lastPoll`.
    package var notBefore: Date?
    /// Why the server holds the feed back until `notBefore`, in a few words (`rate limit exhausted`).
    package var holdReason: String?
    /// The shortest interval the server allows between polls.
    package var minimumInterval: Duration?
    /// The server's rate limit as last reported.
    var rateLimit: RateLimit?
    /// How many items the feed keeps.
    package var itemCount: Int

    /// A record of a feed never polled.
    package init(name: String, type: String) {
        self.name = name
        self.type = type
        failures = 0
        itemCount = 0
    }

    /// How many polls in a row have failed after one that ended `status`: the one rule of the failure streak,
    /// which the scheduler's back-off follows.
    func failures(after status: PollReport.Status) -> Int {
        status == .failed ? failures + 1 : 0
    }
}

// MARK: - Stored

extension FeedRecord {
    /// A record as both databases store it (times in seconds since 1970, the rate limit as JSON), believed as far as
    /// it may be: a hold or an interval beyond the caps (stored by an older version) is not, nor a rate limit that
    /// does not decode; an error longer than the cap is read capped.
    package init(
        name: String, type: String, status: String?, lastPoll: Double?, lastSuccess: Double?, lastNew: Double?,
        lastError: String?, failures: Int, notBefore: Double?, holdReason: String?, minimumInterval: Double?,
        rateLimit: String?, itemCount: Int
    ) {
        self.init(name: name, type: type)
        self.status = status
        self.lastPoll = lastPoll.map(Date.init(timeIntervalSince1970:))
        self.lastSuccess = lastSuccess.map(Date.init(timeIntervalSince1970:))
        self.lastNew = lastNew.map(Date.init(timeIntervalSince1970:))
        self.lastError = lastError.map { TerminalText.capped($0) }
        self.failures = failures
        if let notBefore, let lastPoll = self.lastPoll {
            self.notBefore = HTTPPolicy.capped(Date(timeIntervalSince1970: notBefore), now: lastPoll)
        }
        self.holdReason = self.notBefore == nil ? nil : holdReason
        self.minimumInterval = minimumInterval.map {
            Duration.milliseconds(Int64(min($0, HTTPPolicy.maximumPollInterval.seconds) * 1000))
        }
        self.rateLimit = rateLimit.flatMap { StoredJSON.value(RateLimit.self, from: $0) }
        self.itemCount = itemCount
    }

    /// The rate limit as the databases store it: JSON, its keys sorted.
    package func storedRateLimit() throws -> String? {
        try rateLimit.map(StoredJSON.text)
    }
}

/// Everything stored for one feed, read in one transaction at the start of a poll.
package struct FeedSnapshot: Sendable {
    /// The feed's record, nil when it was never polled.
    package var record: FeedRecord?
    /// Its items, newest first.
    package var items: [Item]
    /// The groups of its last poll, in order.
    var groups: [ItemGroup]
    /// Its HTTP validators.
    var validators: [ValidatorKey: Validators]
    /// Values a source keeps between polls (such as a cached search result).
    var values: [String: String]

    /// A snapshot.
    package init(
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
package struct PollCommit: Sendable {
    /// The feed's new record.
    package var record: FeedRecord
    /// The feed's whole item set after the poll; nil to leave the stored items as they are.
    package var items: [Item]?
    /// When items not seen before were first seen.
    package var firstSeen: Date
    /// The group catalog; nil to leave it.
    package var groups: [ItemGroup]?
    /// Validators to store (empty validators delete the stored ones).
    package var validators: [ValidatorKey: Validators]
    /// Source values to store (nil deletes).
    package var values: [String: String?]
    /// Notifications the poll produced, added to the outbox in the same transaction.
    package var notifications: [FeedNotification]
    /// The bounds of the notifiers of `notifications`, by name: what they no longer allow is dropped in the same
    /// transaction (``CommitStatistics/dropped``). A notifier without bounds keeps everything.
    package var bounds: [String: OutboxBounds]
    /// The stored form of items made while the poll ran (a cache: the items written are `items` either way).
    package var prepared: PreparedItems

    /// A commit.
    package init(
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
