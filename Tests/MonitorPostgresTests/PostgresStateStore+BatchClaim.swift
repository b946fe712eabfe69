import Foundation
import PostgresNIO

@testable import MonitorCore
@testable import MonitorPostgres

extension PostgresStateStore {
    /// Claims for `owner`, until `now + lease`, at most `limit` of the feeds due at `now` (not held back, not leased
    /// by anyone or leased until before `now`), the longest due first; feeds another instance is claiming at the
    /// same moment are skipped, not waited for. Each claim raises the feed's term.
    func claim(owner: String, limit: Int, lease: Duration, now: Date) async throws -> [FeedLease] {
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
}
