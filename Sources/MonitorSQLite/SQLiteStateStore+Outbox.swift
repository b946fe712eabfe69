import Foundation
import GRDB
import MonitorCore

/// The notifications outbox: what polls had to tell, written in the transaction of the poll, removed once
/// delivered. The delivery reads each notifier's queue through the index `notification_queue` (its pending rows in
/// the order written) and never the whole table.
extension SQLiteStateStore {
    /// Drops the notifications of `notifier` still to deliver that `bounds` no longer allow at `now`, in the
    /// transaction `db`: those older than its age, then its oldest beyond its count, each counted in the notifier's
    /// status. Read through the indexes of the notifier's queue: the rows that stay are counted, not read. Returns
    /// them, oldest first.
    static func drop(_ notifier: String, beyond bounds: OutboxBounds, now: Date, _ db: Database) throws
        -> [DroppedNotification]
    {
        let columns = "rowid, content"
        var rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT \(columns) FROM notification INDEXED BY notification_age
                    WHERE notifier = ? AND failedPermanently IS NULL AND created < ? ORDER BY rowid
                    """), arguments: [notifier, bounds.oldest(at: now).timeIntervalSince1970]
        ).map { (row: $0, reason: bounds.ageReason) }
        let count = try queueLength(notifier, db)
        let excess = count - rows.count - bounds.count
        if excess > 0 {
            let aged = Set(rows.map { $0.row[0] as Int64 })
            // The oldest beyond the count, past those already dropped for their age.
            rows += try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(columns) FROM notification INDEXED BY notification_queue
                        WHERE notifier = ? AND failedPermanently IS NULL ORDER BY rowid LIMIT ?
                        """), arguments: [notifier, excess + aged.count]
            ).filter { !aged.contains($0[0]) }.prefix(excess).map {
                (row: $0, reason: bounds.countReason(notifier: notifier))
            }
            rows.sort { ($0.row[0] as Int64) < ($1.row[0] as Int64) }
        }
        // A row that does not decode (written by a later version) is left for that version, as the reads leave it.
        let dropped = rows.compactMap { row, reason in
            StoredJSON.value(FeedNotification.self, from: row[1]).map {
                (rowid: row[0] as Int64, DroppedNotification(notification: $0, reason: reason))
            }
        }
        guard !dropped.isEmpty else { return [] }
        for (rowid, _) in dropped {
            try db.cachedStatement(sql: "DELETE FROM notification WHERE rowid = ?").execute(arguments: [rowid])
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO notifier (name, dropped) VALUES (?, ?)
                ON CONFLICT (name) DO UPDATE SET dropped = dropped + excluded.dropped
                """
        ).execute(arguments: [notifier, dropped.count])
        return dropped.map(\.1)
    }

    /// How many notifications `notifier` has still to deliver, counted on the index of its queue.
    private static func queueLength(_ notifier: String, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT COUNT(*) FROM notification INDEXED BY notification_queue
                    WHERE notifier = ? AND failedPermanently IS NULL
                    """), arguments: [notifier]) ?? 0
    }

    /// The columns ``entry(_:)`` reads.
    private static let entryColumns = "content, created, attempts, nextAttempt, lastError, failedPermanently, rowid"

    /// The entry of a row of ``entryColumns``; nil for a row that does not decode (written by a later version).
    private static func entry(_ row: Row) -> OutboxEntry? {
        OutboxEntry(
            content: row[0], created: row[1], attempts: row[2], nextAttempt: row[3], lastError: row[4],
            refusedAt: row[5], sequence: row[6])
    }

    package func outbox(refused: Bool) async throws -> [OutboxEntry] {
        try await read { db in
            let condition = refused ? "" : "WHERE failedPermanently IS NULL"
            return try Row.fetchAll(
                db, sql: "SELECT \(Self.entryColumns) FROM notification \(condition) ORDER BY rowid"
            ).compactMap(Self.entry)
        }
    }

    /// The oldest notification `notifier` has still to deliver, through the index of its queue: its rows are read
    /// one at a time, in order, until one decodes.
    package func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        try await read { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.entryColumns) FROM notification INDEXED BY notification_queue
                        WHERE notifier = ? AND failedPermanently IS NULL ORDER BY rowid
                        """), arguments: [notifier])
            while let row = try rows.next() {
                if let entry = Self.entry(row) { return entry }
            }
            return nil
        }
    }

    package func pendingNotifications(of notifier: String) async throws -> [OutboxEntry] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.entryColumns) FROM notification INDEXED BY notification_queue
                        WHERE notifier = ? AND failedPermanently IS NULL ORDER BY rowid
                        """), arguments: [notifier]
            ).compactMap(Self.entry)
        }
    }

    package func pendingCount(of notifier: String) async throws -> Int {
        try await read { db in try Self.queueLength(notifier, db) }
    }

    package func dropNotifications(beyond bounds: [String: OutboxBounds], now: Date) async throws
        -> [DroppedNotification]
    {
        guard !bounds.isEmpty else { return [] }
        return try await write { db in
            try bounds.sorted { $0.key < $1.key }.flatMap { try Self.drop($0.key, beyond: $0.value, now: now, db) }
        }
    }

    package func delivered(_ id: String, notifier: String, at time: Date) async throws {
        try await delivered([id], notifier: notifier, at: time)
    }

    package func delivered(_ ids: [String], notifier: String, at time: Date) async throws {
        try await write { db in
            for id in ids {
                try db.cachedStatement(sql: "DELETE FROM notification WHERE id = ?").execute(arguments: [id])
            }
            try db.execute(
                sql: """
                    INSERT INTO notifier (name, lastDelivered) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET lastDelivered = excluded.lastDelivered
                    """, arguments: [notifier, time.timeIntervalSince1970])
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
        try await write { db in
            for id in ids {
                try db.cachedStatement(
                    sql: """
                        UPDATE notification SET attempts = attempts + 1, lastError = ?, nextAttempt = ?,
                            failedPermanently = ?
                        WHERE id = ?
                        """
                ).execute(arguments: [
                    error, nextAttempt?.timeIntervalSince1970, refused ? time.timeIntervalSince1970 : nil, id,
                ])
            }
            try db.execute(
                sql: """
                    INSERT INTO notifier (name, lastError, lastErrorAt) VALUES (?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET lastError = excluded.lastError, lastErrorAt = excluded.lastErrorAt
                    """, arguments: [notifier, error, time.timeIntervalSince1970])
        }
    }

    @discardableResult
    package func dropExpiredNotifications(now: Date) async throws -> Int {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM notification INDEXED BY notification_refused WHERE failedPermanently < ?",
                arguments: [now.timeIntervalSince1970 - OutboxEntry.refusedLifetime])
            return db.changesCount
        }
    }

    package func clampOutbox(now: Date, longest: Duration) async throws {
        let start = now.timeIntervalSince1970
        let latest = start + longest.seconds
        try await write { db in
            try db.execute(sql: "UPDATE notification SET created = ? WHERE created > ?", arguments: [start, start])
            try db.execute(
                sql: "UPDATE notification SET nextAttempt = ? WHERE nextAttempt > ?", arguments: [latest, latest])
        }
    }

    package func notifierStatuses() async throws -> [NotifierStatus] {
        try await read { db in
            var statuses: [String: NotifierStatus] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT name, lastError, lastErrorAt, lastDelivered, dropped FROM notifier")
            {
                let status = NotifierStatus(
                    name: row[0], lastError: row[1], lastErrorAt: row[2], lastDelivered: row[3], dropped: row[4])
                statuses[status.name] = status
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT notifier, SUM(failedPermanently IS NULL), SUM(failedPermanently IS NOT NULL)
                    FROM notification GROUP BY notifier
                    """)
            {
                let name: String = row[0]
                statuses[name, default: NotifierStatus(name: name)].pending = row[1]
                statuses[name, default: NotifierStatus(name: name)].refused = row[2]
            }
            return statuses.values.sorted { $0.name < $1.name }
        }
    }
}
