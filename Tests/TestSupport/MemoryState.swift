import Foundation
import MonitorItems
import Synchronization

@testable import MonitorCore

/// A state kept in memory, for the tests of the engine, the sources and the notifiers, which need no database: it
/// answers as the databases do (items newest first, ties by id descending; text stored without control characters;
/// the outbox in the order written, bounded per notifier) but counts no rows, so a commit returns only the
/// notifications it dropped. The state tests run it with the databases (`StateBackend.memory`), but for the rows
/// written, the indexes and the read-only store, which only the databases have.
package final class MemoryState: StateStoring {
    private struct Feed {
        var record: FeedRecord?
        var items: [String: Item] = [:]
        var groups: [ItemGroup] = []
        var validators: [ValidatorKey: Validators] = [:]
        var values: [String: String] = [:]
    }

    /// A notification of the outbox, with the time of the poll that wrote it.
    private struct Queued {
        var entry: OutboxEntry
        var created: Date
        var notifier: String { entry.notification.notifier }
        var pending: Bool { entry.refusedAt == nil }
    }

    private struct Stored {
        var feeds: [String: Feed] = [:]
        var outbox: [Queued] = []
        var statuses: [String: NotifierStatus] = [:]
        var written: Int64 = 0

        /// Drops what `bounds` no longer allow of `notifier`'s queue at `now`: those older than its age, then its
        /// oldest beyond its count; returns them, oldest first.
        mutating func drop(_ notifier: String, beyond bounds: OutboxBounds, now: Date) -> [DroppedNotification] {
            let queue = outbox.filter { $0.notifier == notifier && $0.pending }
            let oldest = bounds.oldest(at: now)
            let aged = queue.filter { $0.created < oldest }
            let counted = queue.filter { $0.created >= oldest }.prefix(max(0, queue.count - aged.count - bounds.count))
            let dropped =
                (aged.map { ($0.entry, bounds.ageReason) }
                + counted.map { ($0.entry, bounds.countReason(notifier: notifier)) }).sorted {
                    $0.0.sequence < $1.0.sequence
                }
            guard !dropped.isEmpty else { return [] }
            let sequences = Set(dropped.map(\.0.sequence))
            outbox.removeAll { sequences.contains($0.entry.sequence) }
            statuses[notifier, default: NotifierStatus(name: notifier)].dropped += dropped.count
            return dropped.map { DroppedNotification(notification: $0.0.notification, reason: $0.1) }
        }
    }

    private let stored = Mutex(Stored())

    /// An empty state.
    package init() {}

    package var location: String { "memory" }

    package func snapshot(feed: String) async throws -> FeedSnapshot {
        let feed = stored.withLock { $0.feeds[feed] } ?? Feed()
        return FeedSnapshot(
            record: feed.record, items: Self.newestFirst(feed.items.values), groups: feed.groups,
            validators: feed.validators, values: feed.values)
    }

    package func record(feed: String) async throws -> FeedRecord? {
        stored.withLock { $0.feeds[feed]?.record }
    }

    package func records() async throws -> [FeedRecord] {
        stored.withLock { $0.feeds.values.compactMap(\.record) }.sorted {
            $0.name.utf8.lexicographicallyPrecedes($1.name.utf8)
        }
    }

    package func feedNames() async throws -> [String] {
        try await records().map(\.name)
    }

    package func items(of feed: String, group: String?, since: Date?, limit: Int?) async throws -> [Item] {
        let items =
            stored.withLock {
                $0.feeds[feed]?.items.values.filter { item in
                    group.map(item.groups.contains) ?? true && since.map { item.date >= $0 } ?? true
                }
            } ?? []
        return Array(Self.newestFirst(items).prefix(limit ?? items.count))
    }

    package func groups(feed: String) async throws -> [ItemGroup] {
        stored.withLock { $0.feeds[feed]?.groups } ?? []
    }

    /// Items newest first, items of the same date by id descending (by bytes, as the databases compare text).
    private static func newestFirst(_ items: some Sequence<Item>) -> [Item] {
        items.sorted { $0.date != $1.date ? $0.date > $1.date : $1.id.utf8.lexicographicallyPrecedes($0.id.utf8) }
    }

    @discardableResult
    package func forget(feed: String) async throws {
        stored.withLock { $0.feeds[feed] = nil }
    }

    package func commit(_ commit: PollCommit, feed name: String) async throws -> CommitStatistics {
        stored.withLock { stored in
            var feed = stored.feeds[name] ?? Feed()
            feed.record = commit.record
            feed.record?.name = name
            if let items = commit.items {
                // Keyed by the stored id: ids differing only by control characters are one item, the last one.
                feed.items = Dictionary(
                    items.map(StoredItem.storable).map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            }
            if let groups = commit.groups { feed.groups = groups.map(StoredItem.storable) }
            for (key, validators) in commit.validators { feed.validators[key] = validators.isEmpty ? nil : validators }
            for (key, value) in commit.values { feed.values[key] = value }
            stored.feeds[name] = feed
            let created = commit.record.lastPoll ?? commit.firstSeen
            for notification in commit.notifications
            where !stored.outbox.contains(where: { $0.entry.notification.id == notification.id }) {
                stored.written += 1
                stored.outbox.append(
                    Queued(entry: OutboxEntry(notification: notification, sequence: stored.written), created: created))
            }
            var statistics = CommitStatistics()
            for notifier in Set(commit.notifications.map(\.notifier)).sorted() {
                guard let bounds = commit.bounds[notifier] else { continue }
                statistics.dropped += stored.drop(notifier, beyond: bounds, now: created)
            }
            return statistics
        }
    }

    // MARK: - The outbox

    package func outbox(refused: Bool) async throws -> [OutboxEntry] {
        stored.withLock { $0.outbox.filter { refused || $0.pending }.map(\.entry) }
    }

    package func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        stored.withLock { $0.outbox.first { $0.notifier == notifier && $0.pending }?.entry }
    }

    package func pendingNotifications(of notifier: String) async throws -> [OutboxEntry] {
        stored.withLock { $0.outbox.filter { $0.notifier == notifier && $0.pending }.map(\.entry) }
    }

    package func pendingCount(of notifier: String) async throws -> Int {
        stored.withLock { $0.outbox.count { $0.notifier == notifier && $0.pending } }
    }

    package func dropNotifications(beyond bounds: [String: OutboxBounds], now: Date) async throws
        -> [DroppedNotification]
    {
        stored.withLock { stored in
            bounds.sorted { $0.key < $1.key }.flatMap { stored.drop($0.key, beyond: $0.value, now: now) }
        }
    }

    package func delivered(_ ids: [String], notifier: String, at time: Date) async throws {
        let ids = Set(ids)
        stored.withLock { stored in
            stored.outbox.removeAll { ids.contains($0.entry.notification.id) }
            stored.statuses[notifier, default: NotifierStatus(name: notifier)].lastDelivered = time
        }
    }

    package func failed(
        _ ids: [String], notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        let ids = Set(ids)
        stored.withLock { stored in
            for index in stored.outbox.indices where ids.contains(stored.outbox[index].entry.notification.id) {
                stored.outbox[index].entry.attempts += 1
                stored.outbox[index].entry.lastError = error
                stored.outbox[index].entry.nextAttempt = nextAttempt
                stored.outbox[index].entry.refusedAt = refused ? time : nil
            }
            stored.statuses[notifier, default: NotifierStatus(name: notifier)].lastError = error
            stored.statuses[notifier, default: NotifierStatus(name: notifier)].lastErrorAt = time
        }
    }

    @discardableResult
    package func dropExpiredNotifications(now: Date) async throws -> Int {
        let before = now.addingTimeInterval(-OutboxEntry.refusedLifetime)
        return stored.withLock { stored in
            let count = stored.outbox.count
            stored.outbox.removeAll { $0.entry.refusedAt.map { $0 < before } ?? false }
            return count - stored.outbox.count
        }
    }

    package func clampOutbox(now: Date, longest: Duration) async throws {
        let latest = now.addingTimeInterval(longest.seconds)
        stored.withLock { stored in
            for index in stored.outbox.indices {
                if stored.outbox[index].created > now {
                    stored.outbox[index].created = now
                    // As the databases' readers: a written time only when the notification's own is later.
                    if stored.outbox[index].entry.notification.at > now { stored.outbox[index].entry.written = now }
                }
                if let next = stored.outbox[index].entry.nextAttempt, next > latest {
                    stored.outbox[index].entry.nextAttempt = latest
                }
            }
        }
    }

    package func notifierStatuses() async throws -> [NotifierStatus] {
        stored.withLock { stored in
            var statuses = stored.statuses
            for queued in stored.outbox {
                if queued.pending {
                    statuses[queued.notifier, default: NotifierStatus(name: queued.notifier)].pending += 1
                } else {
                    statuses[queued.notifier, default: NotifierStatus(name: queued.notifier)].refused += 1
                }
            }
            return statuses.values.sorted { $0.name < $1.name }
        }
    }
}
