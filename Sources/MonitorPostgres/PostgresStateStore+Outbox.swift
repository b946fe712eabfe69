import Foundation
import Logging
import MonitorCore
import PostgresNIO

/// The notifications outbox in PostgreSQL: the same rows and answers as the SQLite state's
/// (`SQLiteStateStore+Outbox.swift`), written by `commit` in the poll's transaction.
extension PostgresStateStore {
    /// The columns ``entry(_:)`` reads: `content, created, attempts, next_attempt, last_error, failed_permanently,
    /// seq`.
    private typealias EntryRow = (String, Double, Int, Double?, String?, Double?, Int64)

    /// The entry of an ``EntryRow``; nil for a row that does not decode (written by a later version).
    private static func entry(_ row: EntryRow) -> OutboxEntry? {
        OutboxEntry(
            content: row.0, created: row.1, attempts: row.2, nextAttempt: row.3, lastError: row.4, refusedAt: row.5,
            sequence: row.6)
    }

    package func outbox(refused: Bool) async throws -> [OutboxEntry] {
        let rows = try await transaction { connection in
            let query: PostgresQuery =
                if refused {
                    """
                    SELECT content, created, attempts, next_attempt, last_error, failed_permanently, seq
                    FROM notification
                    ORDER BY seq
                    """
                } else {
                    """
                    SELECT content, created, attempts, next_attempt, last_error, failed_permanently, seq
                    FROM notification
                    WHERE failed_permanently IS NULL ORDER BY seq
                    """
                }
            var rows: [EntryRow] = []
            for try await row in try await connection.query(query, logger: self.logger).decode(EntryRow.self) {
                rows.append(row)
            }
            return rows
        }
        return rows.compactMap(Self.entry)
    }

    /// The oldest notification `notifier` has still to deliver, through the index of its queue: a few rows at a
    /// time, in order, until one decodes.
    package func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        let page = 16
        var after: Int64 = 0
        while true {
            let start = after
            let rows = try await transaction { connection in
                var rows: [EntryRow] = []
                for try await row in try await connection.query(
                    """
                    SELECT content, created, attempts, next_attempt, last_error, failed_permanently, seq
                    FROM notification
                    WHERE notifier = \(notifier) AND failed_permanently IS NULL AND seq > \(start)
                    ORDER BY seq LIMIT \(page)
                    """, logger: self.logger
                ).decode(EntryRow.self) {
                    rows.append(row)
                }
                return rows
            }
            if let entry = rows.lazy.compactMap(Self.entry).first { return entry }
            guard rows.count == page, let last = rows.last else { return nil }
            after = last.6
        }
    }

    package func pendingNotifications(of notifier: String) async throws -> [OutboxEntry] {
        let rows = try await transaction { connection in
            var rows: [EntryRow] = []
            for try await row in try await connection.query(
                """
                SELECT content, created, attempts, next_attempt, last_error, failed_permanently, seq
                FROM notification
                WHERE notifier = \(notifier) AND failed_permanently IS NULL ORDER BY seq
                """, logger: self.logger
            ).decode(EntryRow.self) {
                rows.append(row)
            }
            return rows
        }
        return rows.compactMap(Self.entry)
    }

    package func pendingCount(of notifier: String) async throws -> Int {
        try await transaction { connection in
            try await Self.queueLength(notifier, connection: connection, logger: self.logger)
        }
    }

    package func dropNotifications(beyond bounds: [String: OutboxBounds], now: Date) async throws
        -> [DroppedNotification]
    {
        guard !bounds.isEmpty else { return [] }
        return try await transaction { connection in
            var dropped: [DroppedNotification] = []
            for (notifier, bounds) in bounds.sorted(by: { $0.key < $1.key }) {
                dropped += try await Self.drop(
                    notifier, beyond: bounds, now: now, connection: connection, logger: self.logger)
            }
            return dropped
        }
    }

    /// How many notifications `notifier` has still to deliver, counted on the index of its queue.
    static func queueLength(_ notifier: String, connection: PostgresConnection, logger: Logger) async throws -> Int {
        var count = 0
        for try await (found) in try await connection.query(
            "SELECT count(*) FROM notification WHERE notifier = \(notifier) AND failed_permanently IS NULL",
            logger: logger
        ).decode(Int.self) {
            count = found
        }
        return count
    }

    /// Drops the notifications of `notifier` still to deliver that `bounds` no longer allow at `now`, inside the
    /// transaction open on `connection`: those older than its age, then its oldest beyond its count, each counted in
    /// the notifier's status, as the SQLite state does. Only the rows dropped are read; a row another instance
    /// dropped meanwhile is not reported twice. Returns them, oldest first.
    static func drop(
        _ notifier: String, beyond bounds: OutboxBounds, now: Date, connection: PostgresConnection, logger: Logger
    ) async throws -> [DroppedNotification] {
        var chosen: [(seq: Int64, notification: FeedNotification?, reason: String)] = []
        for try await (seq, content) in try await connection.query(
            """
            SELECT seq, content FROM notification
            WHERE notifier = \(notifier) AND failed_permanently IS NULL
                AND created < \(bounds.oldest(at: now).timeIntervalSince1970)
            ORDER BY seq
            """, logger: logger
        ).decode((Int64, String).self) {
            chosen.append((seq, StoredJSON.value(FeedNotification.self, from: content), bounds.ageReason))
        }
        let excess =
            try await queueLength(notifier, connection: connection, logger: logger) - chosen.count
            - bounds.count
        if excess > 0 {
            let aged = Set(chosen.map(\.seq))
            var oldest: [(seq: Int64, notification: FeedNotification?, reason: String)] = []
            // The oldest beyond the count, past those already dropped for their age.
            for try await (seq, content) in try await connection.query(
                """
                SELECT seq, content FROM notification
                WHERE notifier = \(notifier) AND failed_permanently IS NULL
                ORDER BY seq LIMIT \(excess + aged.count)
                """, logger: logger
            ).decode((Int64, String).self) where !aged.contains(seq) && oldest.count < excess {
                oldest.append(
                    (
                        seq, StoredJSON.value(FeedNotification.self, from: content),
                        bounds.countReason(notifier: notifier)
                    ))
            }
            chosen = (chosen + oldest).sorted { $0.seq < $1.seq }
        }
        // A row that does not decode (written by a later version) is left for that version, as the reads leave it.
        let decodable = chosen.filter { $0.notification != nil }
        guard !decodable.isEmpty else { return [] }
        var deleted = Set<Int64>()
        for try await (seq) in try await connection.query(
            "DELETE FROM notification WHERE seq = ANY(\(decodable.map(\.seq))) RETURNING seq", logger: logger
        ).decode(Int64.self) {
            deleted.insert(seq)
        }
        let dropped = decodable.filter { deleted.contains($0.seq) }.compactMap { row in
            row.notification.map { DroppedNotification(notification: $0, reason: row.reason) }
        }
        guard !dropped.isEmpty else { return [] }
        try await connection.query(
            """
            INSERT INTO notifier (name, dropped) VALUES (\(notifier), \(dropped.count))
            ON CONFLICT (name) DO UPDATE SET dropped = notifier.dropped + EXCLUDED.dropped
            """, logger: logger)
        return dropped
    }

    package func delivered(_ id: String, notifier: String, at time: Date) async throws {
        try await delivered([id], notifier: notifier, at: time)
    }

    package func delivered(_ ids: [String], notifier: String, at time: Date) async throws {
        try await transaction { connection in
            try await connection.query("DELETE FROM notification WHERE id = ANY(\(ids))", logger: self.logger)
            try await connection.query(
                """
                INSERT INTO notifier (name, last_delivered) VALUES (\(notifier), \(time.timeIntervalSince1970))
                ON CONFLICT (name) DO UPDATE SET last_delivered = EXCLUDED.last_delivered
                """, logger: self.logger)
        }
    }

    package func failed(
        _ id: String, notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        try await failed([id], notifier: notifier, error: error, at: time, nextAttempt: nextAttempt, refused: refused)
    }

    package func failed(
        _ ids: [String], notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        let refusedAt = refused ? time.timeIntervalSince1970 : nil
        try await transaction { connection in
            // The attempt is over: its claim is released with it.
            try await connection.query(
                """
                UPDATE notification SET attempts = attempts + 1, last_error = \(error),
                    claimed_by = NULL, claimed_until = NULL,
                    next_attempt = \(nextAttempt?.timeIntervalSince1970), failed_permanently = \(refusedAt)
                WHERE id = ANY(\(ids))
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
    package func dropExpiredNotifications(now: Date) async throws -> Int {
        let before = now.timeIntervalSince1970 - OutboxEntry.refusedLifetime
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

    package func clampOutbox(now: Date, longest: Duration) async throws {
        let start = now.timeIntervalSince1970
        let latest = start + longest.seconds
        try await transaction { connection in
            try await connection.query(
                "UPDATE notification SET created = \(start) WHERE created > \(start)", logger: self.logger)
            try await connection.query(
                "UPDATE notification SET next_attempt = \(latest) WHERE next_attempt > \(latest)", logger: self.logger)
        }
    }

    package func notifierStatuses() async throws -> [NotifierStatus] {
        try await transaction { connection in
            var statuses: [String: NotifierStatus] = [:]
            for try await (name, lastError, lastErrorAt, lastDelivered, dropped) in try await connection.query(
                "SELECT name, last_error, last_error_at, last_delivered, dropped FROM notifier", logger: self.logger
            ).decode((String, String?, Double?, Double?, Int).self) {
                statuses[name] = NotifierStatus(
                    name: name, lastError: lastError, lastErrorAt: lastErrorAt, lastDelivered: lastDelivered,
                    dropped: dropped)
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
