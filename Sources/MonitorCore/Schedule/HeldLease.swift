import Foundation
import Synchronization

/// A lease held while its feed is polled: renewed next to the poll, and used by the poll's commit, which writes the
/// feed's next schedule (from `next`) with the results only while the lease's term still holds.
final class HeldLease: Sendable {
    /// Where the feed's next poll stands after a poll: when it is due, its back-off, the server's hold, and how many
    /// slots of its interval the poll overran.
    struct Next: Sendable, Hashable {
        var due: Date
        /// The back-off included in `due`, after failures.
        var backoff: Duration
        var hold: FeedHTTP.Hold?
        var skipped: Int
    }

    /// What became of the poll's results.
    enum Outcome: Sendable, Hashable {
        /// Not committed yet (or the poll stored nothing).
        case pending
        /// Committed under the lease, with the next schedule.
        case committed(Next)
        /// Refused: the lease no longer held; nothing was stored.
        case refused
    }

    /// The state.
    let store: any FeedLeasing
    /// The next schedule after the poll that made `report`.
    let next: @Sendable (PollReport) -> Next
    private let state: Mutex<(lease: FeedLease, outcome: Outcome)>

    /// `lease` of `store`, the next schedule computed by `next`.
    init(_ lease: FeedLease, store: any FeedLeasing, next: @escaping @Sendable (PollReport) -> Next) {
        self.store = store
        self.next = next
        state = Mutex((lease, .pending))
    }

    /// The lease as last renewed.
    var lease: FeedLease {
        get { state.withLock { $0.lease } }
        set { state.withLock { $0.lease = newValue } }
    }

    /// What became of the poll's results.
    var outcome: Outcome {
        get { state.withLock { $0.outcome } }
        set { state.withLock { $0.outcome = newValue } }
    }

    /// Commits `commit` (the poll that made `report`) under the lease with the next schedule; a refusal is
    /// recorded in `outcome` and thrown.
    @discardableResult
    func commit(_ commit: PollCommit, report: PollReport) async throws -> CommitStatistics {
        let next = next(report)
        let lease = self.lease
        do {
            let statistics = try await store.commit(
                commit, lease: lease, nextDue: next.due, backoff: next.backoff, heldUntil: next.hold?.until)
            outcome = .committed(next)
            return statistics
        } catch {
            // Whether the term moved on or the database failed, nothing was stored; a lease still held is
            // released by the scheduler.
            if let slot = try? await store.slot(feed: lease.feed), slot.term != lease.term || slot.owner != lease.owner
            {
                outcome = .refused
            }
            throw error
        }
    }
}
