import Foundation
import MonitorCore
import PostgresNIO

/// The schedule in the database, shared by every instance using it: a feed that is due is claimed by one instance
/// for a lease (rows claimed with `FOR UPDATE SKIP LOCKED`, so that instances claiming at once never wait for nor
/// take each other's), and its poll's results are committed only while the lease's term still holds.
///
/// Times are given by the caller (its clock), as seconds since 1970 in the table.
extension PostgresStateStore {
    /// Adds `feeds` to the schedule, due at `now`; feeds already scheduled keep their times.
    package func schedule(feeds: [String], now: Date) async throws {
        try await statement { connection in
            _ = try await connection.query(
                """
                INSERT INTO feed_schedule (feed, due_at)
                SELECT name, \(now.timeIntervalSince1970) FROM unnest(\(feeds)::text[]) AS t (name)
                ON CONFLICT (feed) DO NOTHING
                """, logger: self.logger)
        }
    }

    /// Extends `lease` until `now + duration`; nil when it no longer holds (it expired and another instance
    /// claimed the feed).
    package func renew(_ lease: FeedLease, for duration: Duration, now: Date) async throws -> FeedLease? {
        let expires = now.timeIntervalSince1970 + duration.seconds
        return try await statement { connection in
            var renewed: FeedLease?
            for try await (_) in try await connection.query(
                """
                UPDATE feed_schedule SET lease_expires = \(expires)
                WHERE feed = \(lease.feed) AND lease_owner = \(lease.owner) AND lease_term = \(lease.term)
                RETURNING lease_term
                """, logger: self.logger
            ).decode(Int64.self) {
                renewed = lease
                renewed?.expires = Date(timeIntervalSince1970: expires)
            }
            return renewed
        }
    }

    /// Writes a poll's results, in one transaction, only while `lease` holds, then releases the feed, due again at
    /// `nextDue` (held back until `heldUntil` when given, with `backoff` as its back-off). A lease that no longer
    /// holds (a later claim raised the term) throws a ``StateError`` and changes nothing.
    @discardableResult
    package func commit(
        _ commit: PollCommit, lease: FeedLease, nextDue: Date, backoff: Duration = .zero, heldUntil: Date? = nil
    ) async throws -> CommitStatistics {
        let url = self.url
        return try await transaction { connection in
            // The schedule's row is locked until the end: no claim can slip in between the check and the write.
            var current: (owner: String?, term: Int64)?
            for try await (owner, term) in try await connection.query(
                "SELECT lease_owner, lease_term FROM feed_schedule WHERE feed = \(lease.feed) FOR UPDATE",
                logger: self.logger
            ).decode((String?, Int64).self) {
                current = (owner, term)
            }
            guard let current, current.term == lease.term, current.owner == lease.owner else {
                throw StateError(
                    "the lease of '\(lease.feed)' in \(url) was lost (the feed's term is \(current?.term ?? 0), this "
                        + "poll held \(lease.term)): its results were not stored")
            }
            let statistics = try await PostgresCommit(connection: connection, feed: lease.feed, logger: self.logger)
                .write(commit)
            try await connection.query(
                """
                UPDATE feed_schedule SET lease_owner = NULL, lease_expires = NULL,
                    due_at = \(nextDue.timeIntervalSince1970), backoff = \(backoff.seconds),
                    held_until = \(heldUntil?.timeIntervalSince1970)
                WHERE feed = \(lease.feed)
                """, logger: self.logger)
            return statistics
        }
    }
}

extension PostgresStateStore: FeedLeasing {
    /// The schedule's row of `feed`, nil when it is not scheduled.
    package func slot(feed: String) async throws -> FeedSlot? {
        try await slots(only: feed)[feed]
    }

    /// The schedule's rows of every feed, by name.
    package func slots() async throws -> [String: FeedSlot] {
        try await slots(only: nil)
    }

    private func slots(only feed: String?) async throws -> [String: FeedSlot] {
        try await statement { connection in
            let rows = try await connection.query(
                """
                SELECT feed, due_at, held_until, lease_owner, lease_expires, lease_term FROM feed_schedule
                WHERE \(feed)::text IS NULL OR feed = \(feed)
                """, logger: self.logger)
            var slots: [String: FeedSlot] = [:]
            for try await (name, due, held, owner, expires, term) in rows.decode(
                (String, Double, Double?, String?, Double?, Int64).self)
            {
                slots[name] = FeedSlot(
                    due: Date(timeIntervalSince1970: due), heldUntil: held.map(Date.init(timeIntervalSince1970:)),
                    owner: owner, expires: expires.map(Date.init(timeIntervalSince1970:)), term: term)
            }
            return slots
        }
    }

    /// Claims `feed` for `owner` until `now + lease` when it is due by `dueBy`, not held back and not leased at
    /// `now`; the claim raises its term. One statement, one round trip: the answer is the feed's row as the claim
    /// left it, with the lease when it claimed; nil when the feed is not scheduled.
    package func claim(feed: String, owner: String, lease: Duration, now: Date, dueBy: Date) async throws
        -> FeedClaim?
    {
        let start = now.timeIntervalSince1970
        let expires = start + lease.seconds
        // An instance claiming at the same moment waits for this row's lock, then finds it leased (and this
        // statement's second half, reading as of its start, the row before: the loop asks again).
        let due = dueBy == .distantFuture ? Double.greatestFiniteMagnitude : dueBy.timeIntervalSince1970
        return try await statement { connection in
            var answer: FeedClaim?
            for try await (claimed, dueAt, held, leaseOwner, leaseExpires, term) in try await connection.query(
                """
                WITH claimed AS (
                    UPDATE feed_schedule SET lease_owner = \(owner), lease_term = lease_term + 1,
                        lease_expires = \(expires)
                    WHERE feed = \(feed) AND due_at <= \(due) AND (held_until IS NULL OR held_until <= \(start))
                        AND (lease_expires IS NULL OR lease_expires <= \(start))
                    RETURNING due_at, held_until, lease_owner, lease_expires, lease_term
                )
                SELECT true, due_at, held_until, lease_owner, lease_expires, lease_term FROM claimed
                UNION ALL
                SELECT false, due_at, held_until, lease_owner, lease_expires, lease_term FROM feed_schedule
                WHERE feed = \(feed) AND NOT EXISTS (SELECT FROM claimed)
                """, logger: self.logger
            ).decode((Bool, Double, Double?, String?, Double?, Int64).self) {
                let slot = FeedSlot(
                    due: Date(timeIntervalSince1970: dueAt), heldUntil: held.map(Date.init(timeIntervalSince1970:)),
                    owner: leaseOwner, expires: leaseExpires.map(Date.init(timeIntervalSince1970:)), term: term)
                let lease =
                    claimed
                    ? FeedLease(feed: feed, owner: owner, term: term, expires: Date(timeIntervalSince1970: expires))
                    : nil
                answer = FeedClaim(slot: slot, lease: lease)
            }
            return answer
        }
    }

    /// Releases `lease` without results, the feed due again at `nextDue`; false when it no longer held.
    @discardableResult
    package func release(_ lease: FeedLease, nextDue: Date, backoff: Duration, heldUntil: Date?) async throws
        -> Bool
    {
        try await statement { connection in
            var released = false
            for try await _ in try await connection.query(
                """
                UPDATE feed_schedule SET lease_owner = NULL, lease_expires = NULL,
                    due_at = \(nextDue.timeIntervalSince1970), backoff = \(backoff.seconds),
                    held_until = \(heldUntil?.timeIntervalSince1970)
                WHERE feed = \(lease.feed) AND lease_owner = \(lease.owner) AND lease_term = \(lease.term)
                RETURNING lease_term
                """, logger: self.logger
            ).decode(Int64.self) {
                released = true
            }
            return released
        }
    }
}
