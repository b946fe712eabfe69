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
    public func schedule(feeds: [String], now: Date) async throws {
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO feed_schedule (feed, due_at)
                SELECT name, \(now.timeIntervalSince1970) FROM unnest(\(feeds)::text[]) AS t (name)
                ON CONFLICT (feed) DO NOTHING
                """, logger: self.logger)
        }
    }

    /// Claims for `owner`, until `now + lease`, at most `limit` of the feeds due at `now` (not held back, not leased
    /// by anyone or leased until before `now`), the longest due first; feeds another instance is claiming at the
    /// same moment are skipped, not waited for. Each claim raises the feed's term.
    public func claim(owner: String, limit: Int, lease: Duration, now: Date) async throws -> [FeedLease] {
        let start = now.timeIntervalSince1970
        let expires = start + lease.seconds
        return try await transaction { connection in
            let rows = try await connection.query(
                """
                WITH due AS (
                    SELECT feed FROM feed_schedule
                    WHERE due_at <= \(start) AND (held_until IS NULL OR held_until <= \(start))
                        AND (lease_expires IS NULL OR lease_expires <= \(start))
                    ORDER BY due_at, feed
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE feed_schedule AS s
                SET lease_owner = \(owner), lease_term = s.lease_term + 1, lease_expires = \(expires)
                FROM due WHERE s.feed = due.feed
                RETURNING s.feed, s.lease_term
                """, logger: self.logger)
            var leases: [FeedLease] = []
            for try await (feed, term) in rows.decode((String, Int64).self) {
                leases.append(
                    FeedLease(feed: feed, owner: owner, term: term, expires: Date(timeIntervalSince1970: expires)))
            }
            return leases.sorted { $0.feed < $1.feed }
        }
    }

    /// Extends `lease` until `now + duration`; nil when it no longer holds (it expired and another instance
    /// claimed the feed).
    public func renew(_ lease: FeedLease, for duration: Duration, now: Date) async throws -> FeedLease? {
        let expires = now.timeIntervalSince1970 + duration.seconds
        return try await transaction { connection in
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
    public func commit(
        _ commit: PollCommit, lease: FeedLease, nextDue: Date, backoff: Duration = .zero, heldUntil: Date? = nil
    ) async throws -> CommitStatistics {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let rateLimit = try commit.record.rateLimit.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
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
                .write(commit, rateLimit: rateLimit)
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
