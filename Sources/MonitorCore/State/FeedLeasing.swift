import Foundation
import Synchronization

/// A state whose schedule is shared by several `monitor run` instances (PostgreSQL): a feed that is due is claimed
/// by one instance for a lease, renewed while it polls, and its results are stored only while the lease's term
/// still holds. The feed's next due time, back-off and server hold are written with its results, so they survive
/// restarts and move with the feed. A state without it (SQLite) is scheduled by each instance alone.
package protocol FeedLeasing: StateStoring {
    /// Adds `feeds` to the schedule, due at `now`; feeds already scheduled keep their times.
    func schedule(feeds: [String], now: Date) async throws

    /// The schedule's row of `feed`, nil when it is not scheduled.
    func slot(feed: String) async throws -> FeedSlot?

    /// The schedule's rows of every feed, by name.
    func slots() async throws -> [String: FeedSlot]

    /// Claims `feed` for `owner` until `now + lease` when it is due by `dueBy`, not held back at `now` and not
    /// leased at `now` (a lease that expired before `now` no longer counts): the claim raises the feed's term. The
    /// answer holds the feed's row either way (with the lease when claimed), so that a feed that was not to be
    /// claimed (another instance holds it, or it is not due) is known in the same round trip; nil when the feed is
    /// not scheduled.
    func claim(feed: String, owner: String, lease: Duration, now: Date, dueBy: Date) async throws -> FeedClaim?

    /// Extends `lease` until `now + duration`; nil when it no longer holds.
    func renew(_ lease: FeedLease, for duration: Duration, now: Date) async throws -> FeedLease?

    /// Writes a poll's results, in one transaction, only while `lease` holds, and releases the feed, due again at
    /// `nextDue`, held back until `heldUntil` when given. A lease that no longer holds throws a ``StateError`` and
    /// changes nothing.
    @discardableResult
    func commit(
        _ commit: PollCommit, lease: FeedLease, nextDue: Date, backoff: Duration, heldUntil: Date?
    ) async throws -> CommitStatistics

    /// Releases `lease` without results (its poll stored nothing), the feed due again at `nextDue`; false when the
    /// lease no longer held (nothing changed).
    @discardableResult
    func release(_ lease: FeedLease, nextDue: Date, backoff: Duration, heldUntil: Date?) async throws -> Bool
}

/// A feed's row in the shared schedule.
package struct FeedSlot: Sendable, Hashable {
    /// When it is due.
    var due: Date
    /// Until when the server holds it back, if it does.
    var heldUntil: Date?
    /// The instance that holds its lease, if one does (it may have expired: see `expires`).
    var owner: String?
    /// Until when that lease holds.
    package var expires: Date?
    /// The term of its latest claim.
    var term: Int64

    package init(due: Date, heldUntil: Date? = nil, owner: String? = nil, expires: Date? = nil, term: Int64 = 0) {
        self.due = due
        self.heldUntil = heldUntil
        self.owner = owner
        self.expires = expires
        self.term = term
    }

    /// The instance holding the feed at `now`: nil when no lease holds then.
    package func holder(at now: Date) -> String? {
        guard let owner, let expires, expires > now else { return nil }
        return owner
    }

    /// When the feed may be claimed next, seen at `now`: once due, not held back and not leased.
    func claimable(at now: Date) -> Date {
        var when = due
        if let heldUntil, heldUntil > when { when = heldUntil }
        if holder(at: now) != nil, let expires, expires > when { when = expires }
        return when
    }
}

/// How an instance schedules its feeds through a ``FeedLeasing`` state: the state, and the instance's owner id.
package struct FeedLeases: Sendable {
    var store: any FeedLeasing
    /// The instance, as its leases name it: `hostname:pid:random` by default.
    var owner: String
    /// How many feeds this instance holds now.
    private let count = LeaseCount()

    /// Leases of `store` for `owner`.
    package init(store: any FeedLeasing, owner: String = FeedLeases.makeOwner()) {
        self.store = store
        self.owner = owner
    }

    /// Counts `change` (1: taken, -1: released) more leases held, and records how many are in `metrics` (under the
    /// count's lock, so that two feeds claimed at once cannot record their counts in the wrong order).
    func held(_ change: Int, metrics: MonitorMetrics) {
        count.value.withLock {
            $0 += change
            metrics.leasesHeld($0)
        }
    }

    /// An owner id naming this process: `hostname:pid:random`.
    static func makeOwner() -> String {
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(random)"
    }
}

/// The number of leases an instance holds, shared by its feeds' loops.
private final class LeaseCount: Sendable {
    let value = Mutex(0)
}
