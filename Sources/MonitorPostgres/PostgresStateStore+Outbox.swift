import Foundation
import Logging
import MonitorCore
import PostgresNIO

/// The notifications outbox in PostgreSQL is ``SQLOutbox``'s; a notification is claimed by the instance delivering
/// it, as several may share the database.
extension PostgresStateStore: OutboxClaiming {
    /// Claims notification `id` for `owner` until `now + lease`: true when it is still to deliver and no other
    /// instance's claim holds at `now` (a row another instance is claiming at the same moment is skipped, not
    /// waited for).
    package func claimNotification(_ id: String, owner: String, lease: Duration, now: Date) async throws -> Bool {
        let start = now.timeIntervalSince1970
        let until = start + lease.seconds
        return try await transaction { connection in
            var claimed = false
            for try await _ in try await connection.query(
                """
                WITH free AS (
                    SELECT id FROM notification
                    WHERE id = \(id) AND failed_permanently IS NULL
                        AND (claimed_until IS NULL OR claimed_until <= \(start) OR claimed_by = \(owner))
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE notification AS n SET claimed_by = \(owner), claimed_until = \(until)
                FROM free WHERE n.id = free.id
                RETURNING n.id
                """, logger: self.logger
            ).decode(String.self) {
                claimed = true
            }
            return claimed
        }
    }
}
