import Foundation
import MonitorItems

/// Where the state is kept: what the poll runner, the service and the commands read and write, whichever the
/// database (the SQLite file of `SQLiteStateStore`, or PostgreSQL).
///
/// Every implementation keeps the same guarantees: a poll's results are written in one transaction, so a poll that
/// fails or is interrupted changes nothing; items are read newest first, items of the same date by id descending;
/// text is stored without control characters; credentials are never written.
package protocol StateStoring: AnyObject, Sendable {
    /// The state named for people, in messages: a file's path, or a database's URL without its password.
    var location: String { get }

    /// Everything stored for `feed`, read in one transaction.
    func snapshot(feed: String) async throws -> FeedSnapshot

    /// Everything stored for `feed`, read in one transaction, handing `head` what a poll needs before its first
    /// request as soon as it is read: the snapshot without its items, and the ids of the items. The items are read
    /// after it (on a state that can, while the poll's first requests are in flight).
    func snapshot(
        feed: String, head: @escaping @Sendable (_ snapshot: FeedSnapshot, _ ids: Set<String>) -> Void
    ) async throws -> FeedSnapshot

    /// The record of `feed` alone (no items), nil when it was never polled.
    func record(feed: String) async throws -> FeedRecord?

    /// The records of every feed ever polled, by name.
    func records() async throws -> [FeedRecord]

    /// The names of the feeds ever polled, in order.
    func feedNames() async throws -> [String]

    /// The items of `feed`, newest first (items of the same date by id, descending): only those of `group` when
    /// given, dated at or after `since` when given, at most `limit`, selected by the database.
    func items(of feed: String, group: String?, since: Date?, limit: Int?) async throws -> [Item]

    /// The groups of `feed`'s last poll, in order.
    func groups(feed: String) async throws -> [ItemGroup]

    /// Writes a poll's results in one transaction: the feed's record, and of its items, groups, validators and
    /// values only what differs from what is stored. Returns the rows written.
    @discardableResult
    func commit(_ commit: PollCommit, feed: String) async throws -> CommitStatistics

    /// Removes everything stored of `feed` in one transaction: its record, items, groups, validators and values (and
    /// its place on a shared schedule). The notifications its polls wrote stay in their notifiers' outbox.
    func forget(feed: String) async throws

    // MARK: - The notifications outbox (written by `commit`, from `PollCommit.notifications`)

    /// Every notification in the outbox, in the order the polls wrote them: those still to deliver, and (with
    /// `refused`) those their receiver refused. For tests and tools: the delivery reads only each notifier's head.
    func outbox(refused: Bool) async throws -> [OutboxEntry]

    /// The oldest notification `notifier` has still to deliver (the next one it delivers; the others wait behind
    /// it), nil when it has none: one row read through an index, whatever the outbox holds.
    func nextNotification(of notifier: String) async throws -> OutboxEntry?

    /// Every notification `notifier` has still to deliver, in the order the polls wrote them, read through the index
    /// of its queue: what a digest combines (its `max_pending` bounds how many).
    func pendingNotifications(of notifier: String) async throws -> [OutboxEntry]

    /// How many notifications `notifier` has still to deliver, counted on an index.
    func pendingCount(of notifier: String) async throws -> Int

    /// Drops the notifications still to deliver that the bounds of their notifier (`bounds`, by name) no longer
    /// allow at `now`: those older than its age, then its oldest beyond its count. Each is counted in its notifier's
    /// status and returned, oldest first; notifiers without bounds keep theirs.
    func dropNotifications(beyond bounds: [String: OutboxBounds], now: Date) async throws -> [DroppedNotification]

    /// Records that notifications `ids` of `notifier` were delivered at `time`, in one transaction (one, or a
    /// digest's): they leave the outbox.
    func delivered(_ ids: [String], notifier: String, at time: Date) async throws

    /// Records that delivering notifications `ids` of `notifier` failed at `time` with `error` (never a secret), in
    /// one transaction (one, or a digest's): they are tried again from `nextAttempt`, or, when `refused`, kept for
    /// `OutboxEntry.refusedLifetime` and not tried again.
    func failed(
        _ ids: [String], notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws

    /// Drops the refused notifications older than `OutboxEntry.refusedLifetime` at `now`; returns how
    /// many.
    @discardableResult
    func dropExpiredNotifications(now: Date) async throws -> Int

    /// Brings the outbox back within reach after the clock was stepped back: a notification written after `now` is
    /// dated `now` (its digest period and `max_age` count from then), and a next attempt later than `now + longest`
    /// is moved there, so that nothing waits for a time the clock may take a year to reach again.
    func clampOutbox(now: Date, longest: Duration) async throws

    /// What the outbox holds for each notifier that has or had notifications, by name.
    func notifierStatuses() async throws -> [NotifierStatus]

    /// Called once a process has made its last commit (`run --once`, before it exits): every commit is then on disk,
    /// and what closing the state would still cost is skipped where it can be. The state stays readable and
    /// writable by any other process.
    func finishWriting() async
}

extension StateStoring {
    /// The whole snapshot read first, then handed to `head` without its items.
    package func snapshot(
        feed: String, head: @escaping @Sendable (_ snapshot: FeedSnapshot, _ ids: Set<String>) -> Void
    ) async throws -> FeedSnapshot {
        let snapshot = try await self.snapshot(feed: feed)
        var withoutItems = snapshot
        withoutItems.items = []
        head(withoutItems, Set(snapshot.items.map(\.id)))
        return snapshot
    }

    /// Nothing: each commit is durable by itself, and closing costs nothing (PostgreSQL).
    package func finishWriting() async {}

    /// The items of `feed`, newest first: only those of `group` when given, dated at or after `since` when given,
    /// at most `limit`.
    package func items(feed: String, group: String? = nil, since: Date? = nil, limit: Int? = nil) async throws
        -> [Item]
    {
        try await items(of: feed, group: group, since: since, limit: limit)
    }
}
