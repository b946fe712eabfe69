import Foundation
import MonitorCore

/// A state that passes every call to a real one (`base`): a test subclasses it and overrides the calls it watches or
/// makes fail, such as the outbox's reads.
open class ForwardingStore: StateStoring, @unchecked Sendable {
    /// The real state.
    public let base: any StateStoring

    /// A state passing every call to `base`.
    public init(_ base: any StateStoring) {
        self.base = base
    }

    open var location: String { base.location }
    open func snapshot(feed: String) async throws -> FeedSnapshot { try await base.snapshot(feed: feed) }
    open func record(feed: String) async throws -> FeedRecord? { try await base.record(feed: feed) }
    open func records() async throws -> [FeedRecord] { try await base.records() }
    open func feedNames() async throws -> [String] { try await base.feedNames() }
    open func items(of feed: String, group: String?, since: Date?, limit: Int?) async throws -> [Item] {
        try await base.items(of: feed, group: group, since: since, limit: limit)
    }
    open func groups(feed: String) async throws -> [ItemGroup] { try await base.groups(feed: feed) }
    open func commit(_ commit: PollCommit, feed: String) async throws -> CommitStatistics {
        try await base.commit(commit, feed: feed)
    }
    open func outbox(refused: Bool) async throws -> [OutboxEntry] { try await base.outbox(refused: refused) }
    open func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        try await base.nextNotification(of: notifier)
    }
    open func pendingCount(of notifier: String) async throws -> Int { try await base.pendingCount(of: notifier) }
    open func dropNotifications(beyond bounds: [String: OutboxBounds], now: Date) async throws
        -> [DroppedNotification]
    {
        try await base.dropNotifications(beyond: bounds, now: now)
    }
    open func delivered(_ id: String, notifier: String, at time: Date) async throws {
        try await base.delivered(id, notifier: notifier, at: time)
    }
    open func failed(
        _ id: String, notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        try await base.failed(
            id, notifier: notifier, error: error, at: time, nextAttempt: nextAttempt, refused: refused)
    }
    open func dropExpiredNotifications(now: Date) async throws -> Int {
        try await base.dropExpiredNotifications(now: now)
    }
    open func notifierStatuses() async throws -> [NotifierStatus] { try await base.notifierStatuses() }
    open func finishWriting() async { await base.finishWriting() }
}
