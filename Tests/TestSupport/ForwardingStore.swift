import Foundation
import MonitorItems

@testable import MonitorCore

/// A state that passes every call to a real one (`base`): a test's store conforms and implements only the calls it
/// watches or makes fail, such as the outbox's reads.
package protocol ForwardingStore: StateStoring {
    /// The real state.
    var base: any StateStoring { get }
}

extension ForwardingStore {
    package var location: String { base.location }
    package func snapshot(feed: String) async throws -> FeedSnapshot { try await base.snapshot(feed: feed) }
    package func snapshot(
        feed: String, head: @escaping @Sendable (_ snapshot: FeedSnapshot, _ ids: Set<String>) -> Void
    ) async throws -> FeedSnapshot {
        try await base.snapshot(feed: feed, head: head)
    }
    package func record(feed: String) async throws -> FeedRecord? { try await base.record(feed: feed) }
    package func records() async throws -> [FeedRecord] { try await base.records() }
    package func feedNames() async throws -> [String] { try await base.feedNames() }
    package func items(of feed: String, group: String?, since: Date?, limit: Int?) async throws -> [Item] {
        try await base.items(of: feed, group: group, since: since, limit: limit)
    }
    package func groups(feed: String) async throws -> [ItemGroup] { try await base.groups(feed: feed) }
    package func commit(_ commit: PollCommit, feed: String) async throws -> CommitStatistics {
        try await base.commit(commit, feed: feed)
    }
    package func forget(feed: String) async throws { try await base.forget(feed: feed) }
    package func outbox(refused: Bool) async throws -> [OutboxEntry] { try await base.outbox(refused: refused) }
    package func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        try await base.nextNotification(of: notifier)
    }
    package func pendingNotifications(of notifier: String) async throws -> [OutboxEntry] {
        try await base.pendingNotifications(of: notifier)
    }
    package func pendingCount(of notifier: String) async throws -> Int { try await base.pendingCount(of: notifier) }
    package func dropNotifications(beyond bounds: [String: OutboxBounds], now: Date) async throws
        -> [DroppedNotification]
    {
        try await base.dropNotifications(beyond: bounds, now: now)
    }
    package func delivered(_ ids: [String], notifier: String, at time: Date) async throws {
        try await base.delivered(ids, notifier: notifier, at: time)
    }
    package func failed(
        _ ids: [String], notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        try await base.failed(
            ids, notifier: notifier, error: error, at: time, nextAttempt: nextAttempt, refused: refused)
    }
    package func dropExpiredNotifications(now: Date) async throws -> Int {
        try await base.dropExpiredNotifications(now: now)
    }
    package func clampOutbox(now: Date, longest: Duration) async throws {
        try await base.clampOutbox(now: now, longest: longest)
    }
    package func notifierStatuses() async throws -> [NotifierStatus] { try await base.notifierStatuses() }
    package func finishWriting() async { await base.finishWriting() }
}
