import Foundation
import MonitorCore
import PostgresNIO

/// The notifications outbox in PostgreSQL: the same rows and answers as the SQLite state's
/// (`StateStore+Outbox.swift`), written by `commit` in the poll's transaction.
extension PostgresStateStore {
    public func outbox(refused: Bool) async throws -> [OutboxEntry] {
        let rows = try await transaction { connection in
            let query: PostgresQuery =
                if refused {
                    """
                    SELECT content, attempts, next_attempt, last_error, failed_permanently FROM notification
                    ORDER BY seq
                    """
                } else {
                    """
                    SELECT content, attempts, next_attempt, last_error, failed_permanently FROM notification
                    WHERE failed_permanently IS NULL ORDER BY seq
                    """
                }
            var rows: [(String, Int, Double?, String?, Double?)] = []
            for try await row in try await connection.query(query, logger: self.logger).decode(
                (String, Int, Double?, String?, Double?).self)
            {
                rows.append(row)
            }
            return rows
        }
        let decoder = JSONDecoder()
        return rows.compactMap { content, attempts, nextAttempt, lastError, refusedAt in
            // A row that does not decode (written by a later version) is left for that version.
            guard let notification = try? decoder.decode(FeedNotification.self, from: Data(content.utf8)) else {
                return nil
            }
            return OutboxEntry(
                notification: notification, attempts: attempts,
                nextAttempt: nextAttempt.map(Date.init(timeIntervalSince1970:)), lastError: lastError,
                refusedAt: refusedAt.map(Date.init(timeIntervalSince1970:)))
        }
    }

    public func delivered(_ id: String, notifier: String, at time: Date) async throws {
        try await transaction { connection in
            try await connection.query("DELETE FROM notification WHERE id = \(id)", logger: self.logger)
            try await connection.query(
                """
                INSERT INTO notifier (name, last_delivered) VALUES (\(notifier), \(time.timeIntervalSince1970))
                ON CONFLICT (name) DO UPDATE SET last_delivered = EXCLUDED.last_delivered
                """, logger: self.logger)
        }
    }

    public func failed(
        _ id: String, notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        let refusedAt = refused ? time.timeIntervalSince1970 : nil
        try await transaction { connection in
            // The attempt is over: its claim is released with it.
            try await connection.query(
                """
                UPDATE notification SET attempts = attempts + 1, last_error = \(error),
                    claimed_by = NULL, claimed_until = NULL,
                    next_attempt = \(nextAttempt?.timeIntervalSince1970), failed_permanently = \(refusedAt)
                WHERE id = \(id)
                """, logger: self.logger)
            try await connection.query(
                """
                INSERT INTO notifier (name, last_error, last_error_at)
                VALUES (\(notifier), \(error), \(time.timeIntervalSince1970))
                ON CONFLICT (name) DO UPDATE SET last_error = EXCLUDED.last_error,
                    last_error_at = EXCLUDED.last_error_at
                """, logger: self.logger)
        }
    }

    @discardableResult
    public func dropExpiredNotifications(now: Date) async throws -> Int {
        let before = now.timeIntervalSince1970 - StateStore.refusedNotificationLifetime
        return try await transaction { connection in
            var dropped = 0
            for try await _ in try await connection.query(
                "DELETE FROM notification WHERE failed_permanently < \(before) RETURNING id", logger: self.logger)
            {
                dropped += 1
            }
            return dropped
        }
    }

    public func notifierStatuses() async throws -> [NotifierStatus] {
        try await transaction { connection in
            var statuses: [String: NotifierStatus] = [:]
            for try await (name, lastError, lastErrorAt, lastDelivered) in try await connection.query(
                "SELECT name, last_error, last_error_at, last_delivered FROM notifier", logger: self.logger
            ).decode((String, String?, Double?, Double?).self) {
                var status = NotifierStatus(name: name)
                status.lastError = lastError
                status.lastErrorAt = lastErrorAt.map(Date.init(timeIntervalSince1970:))
                status.lastDelivered = lastDelivered.map(Date.init(timeIntervalSince1970:))
                statuses[name] = status
            }
            for try await (name, pending, refused) in try await connection.query(
                """
                SELECT notifier, count(*) FILTER (WHERE failed_permanently IS NULL),
                    count(*) FILTER (WHERE failed_permanently IS NOT NULL)
                FROM notification GROUP BY notifier
                """, logger: self.logger
            ).decode((String, Int, Int).self) {
                statuses[name, default: NotifierStatus(name: name)].pending = pending
                statuses[name, default: NotifierStatus(name: name)].refused = refused
            }
            return statuses.values.sorted { $0.name < $1.name }
        }
    }
}

extension PostgresStateStore: OutboxClaiming {
    /// Claims notification `id` for `owner` until `now + lease`: true when it is still to deliver and no other
    /// instance's claim holds at `now` (a row another instance is claiming at the same moment is skipped, not
    /// waited for).
    public func claimNotification(_ id: String, owner: String, lease: Duration, now: Date) async throws -> Bool {
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
