import Foundation
import GRDB

/// The notifications outbox: what polls had to tell, written in the transaction of the poll, removed once
/// delivered. The delivery reads each notifier's queue through the index `notification_queue` (its pending rows in
/// the order written) and never the whole table.
extension StateStore {
    /// How long a notification its receiver refused (a 4xx) is kept, for `monitor status`, before it is dropped.
    package static let refusedNotificationLifetime: TimeInterval = 7 * 86_400

    /// Adds `notifications` to the outbox in the transaction `db`, then drops what the bounds of their notifiers no
    /// longer allow at `created`; returns the notifications dropped, oldest first.
    static func enqueue(
        _ notifications: [FeedNotification], bounds: [String: OutboxBounds], created: Date, _ db: Database
    ) throws -> [DroppedNotification] {
        guard !notifications.isEmpty else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for notification in notifications {
            try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO notification (id, notifier, feed, event, created, content)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(
                arguments: [
                    notification.id, notification.notifier, notification.feed, notification.event.rawValue,
                    created.timeIntervalSince1970,
                    String(decoding: try encoder.encode(notification), as: UTF8.self),
                ])
        }
        var dropped: [DroppedNotification] = []
        for notifier in Set(notifications.map(\.notifier)).sorted() {
            guard let bounds = bounds[notifier] else { continue }
            dropped += try drop(notifier, beyond: bounds, now: created, db)
        }
        return dropped
    }

    /// Drops the notifications of `notifier` still to deliver that `bounds` no longer allow at `now`, in the
    /// transaction `db`: those older than its age, then its oldest beyond its count, each counted in the notifier's
    /// status. Read through the indexes of the notifier's queue: the rows that stay are counted, not read. Returns
    /// them, oldest first.
    private static func drop(_ notifier: String, beyond bounds: OutboxBounds, now: Date, _ db: Database) throws
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
        let decoder = JSONDecoder()
        let dropped = rows.compactMap { row, reason in
            decoded(row[1], decoder).map {
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

    /// The notification stored as `content`, nil when it does not decode (written by a later version).
    private static func decoded(_ content: String, _ decoder: JSONDecoder) -> FeedNotification? {
        try? decoder.decode(FeedNotification.self, from: Data(content.utf8))
    }

    /// The columns ``entry(_:_:)`` reads.
    private static let entryColumns = "content, attempts, nextAttempt, lastError, failedPermanently, rowid"

    /// The entry of a row of ``entryColumns``; nil for a row that does not decode (written by a later version),
    /// which is left for that version.
    private static func entry(_ row: Row, _ decoder: JSONDecoder) -> OutboxEntry? {
        guard let notification = decoded(row[0], decoder) else { return nil }
        return OutboxEntry(
            notification: notification, attempts: row[1],
            nextAttempt: (row[2] as Double?).map(Date.init(timeIntervalSince1970:)), lastError: row[3],
            refusedAt: (row[4] as Double?).map(Date.init(timeIntervalSince1970:)), sequence: row[5])
    }

    /// Every notification in the outbox, in the order the polls wrote them: those still to deliver, and (with
    /// `refused`) those their receiver refused.
    package func outbox(refused: Bool) async throws -> [OutboxEntry] {
        try await read { db in
            let decoder = JSONDecoder()
            let condition = refused ? "" : "WHERE failedPermanently IS NULL"
            return try Row.fetchAll(
                db, sql: "SELECT \(Self.entryColumns) FROM notification \(condition) ORDER BY rowid"
            ).compactMap { Self.entry($0, decoder) }
        }
    }

    /// The oldest notification `notifier` has still to deliver, through the index of its queue: its rows are read
    /// one at a time, in order, until one decodes.
    package func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        try await read { db in
            let decoder = JSONDecoder()
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.entryColumns) FROM notification INDEXED BY notification_queue
                        WHERE notifier = ? AND failedPermanently IS NULL ORDER BY rowid
                        """), arguments: [notifier])
            while let row = try rows.next() {
                if let entry = Self.entry(row, decoder) { return entry }
            }
            return nil
        }
    }

    /// How many notifications `notifier` has still to deliver, counted on the index of its queue.
    package func pendingCount(of notifier: String) async throws -> Int {
        try await read { db in try Self.queueLength(notifier, db) }
    }

    /// Drops what the bounds of each notifier of `bounds` no longer allow at `now`, in one transaction.
    package func dropNotifications(beyond bounds: [String: OutboxBounds], now: Date) async throws
        -> [DroppedNotification]
    {
        guard !bounds.isEmpty else { return [] }
        return try await write { db in
            try bounds.sorted { $0.key < $1.key }.flatMap { try Self.drop($0.key, beyond: $0.value, now: now, db) }
        }
    }

    /// Records that notification `id` of `notifier` was delivered at `time`: it leaves the outbox.
    package func delivered(_ id: String, notifier: String, at time: Date) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM notification WHERE id = ?", arguments: [id])
            try db.execute(
                sql: """
                    INSERT INTO notifier (name, lastDelivered) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET lastDelivered = excluded.lastDelivered
                    """, arguments: [notifier, time.timeIntervalSince1970])
        }
    }

    /// Records that delivering notification `id` of `notifier` failed at `time` with `error` (never a secret):
    /// it is tried again from `nextAttempt`, or, when `refused`, kept for
    /// ``refusedNotificationLifetime`` and not tried again.
    package func failed(
        _ id: String, notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE notification SET attempts = attempts + 1, lastError = ?, nextAttempt = ?,
                        failedPermanently = ?
                    WHERE id = ?
                    """,
                arguments: [
                    error, nextAttempt?.timeIntervalSince1970, refused ? time.timeIntervalSince1970 : nil, id,
                ])
            try db.execute(
                sql: """
                    INSERT INTO notifier (name, lastError, lastErrorAt) VALUES (?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET lastError = excluded.lastError, lastErrorAt = excluded.lastErrorAt
                    """, arguments: [notifier, error, time.timeIntervalSince1970])
        }
    }

    /// Drops the refused notifications older than ``refusedNotificationLifetime`` at `now`; returns how many.
    @discardableResult
    package func dropExpiredNotifications(now: Date) async throws -> Int {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM notification INDEXED BY notification_refused WHERE failedPermanently < ?",
                arguments: [now.timeIntervalSince1970 - Self.refusedNotificationLifetime])
            return db.changesCount
        }
    }

    /// What the outbox holds for each notifier that has or had notifications, by name.
    package func notifierStatuses() async throws -> [NotifierStatus] {
        try await read { db in
            var statuses: [String: NotifierStatus] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT name, lastError, lastErrorAt, lastDelivered, dropped FROM notifier")
            {
                var status = NotifierStatus(name: row[0])
                status.lastError = row[1]
                status.lastErrorAt = (row[2] as Double?).map(Date.init(timeIntervalSince1970:))
                status.lastDelivered = (row[3] as Double?).map(Date.init(timeIntervalSince1970:))
                status.dropped = row[4]
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

/// One notification of the outbox, with how its deliveries went.
package struct OutboxEntry: Sendable, Hashable {
    /// The notification.
    package var notification: FeedNotification
    /// How many deliveries failed.
    package var attempts: Int
    /// Not to be tried again before this time; nil for at once.
    package var nextAttempt: Date?
    /// Why the last delivery failed.
    package var lastError: String?
    /// When its receiver refused it (it is not tried again); nil while it is to be delivered.
    package var refusedAt: Date?
    /// Its place in the outbox: a notification written later has a larger one.
    package var sequence: Int64

    /// An entry.
    package init(
        notification: FeedNotification, attempts: Int = 0, nextAttempt: Date? = nil, lastError: String? = nil,
        refusedAt: Date? = nil, sequence: Int64 = 0
    ) {
        self.notification = notification
        self.attempts = attempts
        self.nextAttempt = nextAttempt
        self.lastError = lastError
        self.refusedAt = refusedAt
        self.sequence = sequence
    }
}

/// What the state knows of one notifier's deliveries, for `monitor status`.
package struct NotifierStatus: Sendable, Hashable {
    /// The notifier's name.
    package var name: String
    /// Notifications still to deliver.
    package var pending = 0
    /// Notifications its receiver refused, kept for a while.
    package var refused = 0
    /// Notifications dropped undelivered, its bounds exceeded (`max_pending`, `max_age`), ever.
    package var dropped = 0
    /// Why its last failed delivery failed.
    package var lastError: String?
    /// When that was.
    package var lastErrorAt: Date?
    /// When it last delivered one.
    package var lastDelivered: Date?

    /// The status of a notifier with nothing stored.
    package init(name: String) {
        self.name = name
    }
}
