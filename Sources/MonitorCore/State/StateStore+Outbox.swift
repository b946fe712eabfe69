import Foundation
import GRDB

/// The notifications outbox: what polls had to tell, written in the transaction of the poll, removed once
/// delivered.
extension StateStore {
    /// How long a notification its receiver refused (a 4xx) is kept, for `monitor status`, before it is dropped.
    public static let refusedNotificationLifetime: TimeInterval = 7 * 86_400

    /// Adds `notifications` to the outbox in the transaction `db`.
    static func enqueue(_ notifications: [FeedNotification], created: Date, _ db: Database) throws {
        guard !notifications.isEmpty else { return }
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
    }

    /// Every notification in the outbox, in the order the polls wrote them: those still to deliver, and (with
    /// `refused`) those their receiver refused.
    public func outbox(refused: Bool) async throws -> [OutboxEntry] {
        try await read { db in
            let decoder = JSONDecoder()
            let condition = refused ? "" : "WHERE failedPermanently IS NULL"
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT content, attempts, nextAttempt, lastError, failedPermanently FROM notification
                    \(condition) ORDER BY rowid
                    """
            ).compactMap { row -> OutboxEntry? in
                // A row that does not decode (written by a later version) is left for that version.
                guard
                    let notification = try? decoder.decode(
                        FeedNotification.self, from: Data((row[0] as String).utf8))
                else { return nil }
                return OutboxEntry(
                    notification: notification, attempts: row[1],
                    nextAttempt: (row[2] as Double?).map(Date.init(timeIntervalSince1970:)), lastError: row[3],
                    refusedAt: (row[4] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    /// Records that notification `id` of `notifier` was delivered at `time`: it leaves the outbox.
    public func delivered(_ id: String, notifier: String, at time: Date) async throws {
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
    public func failed(
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
    public func dropExpiredNotifications(now: Date) async throws -> Int {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM notification WHERE failedPermanently < ?",
                arguments: [now.timeIntervalSince1970 - Self.refusedNotificationLifetime])
            return db.changesCount
        }
    }

    /// What the outbox holds for each notifier that has or had notifications, by name.
    public func notifierStatuses() async throws -> [NotifierStatus] {
        try await read { db in
            var statuses: [String: NotifierStatus] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, lastError, lastErrorAt, lastDelivered FROM notifier") {
                var status = NotifierStatus(name: row[0])
                status.lastError = row[1]
                status.lastErrorAt = (row[2] as Double?).map(Date.init(timeIntervalSince1970:))
                status.lastDelivered = (row[3] as Double?).map(Date.init(timeIntervalSince1970:))
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
public struct OutboxEntry: Sendable, Hashable {
    /// The notification.
    public var notification: FeedNotification
    /// How many deliveries failed.
    public var attempts: Int
    /// Not to be tried again before this time; nil for at once.
    public var nextAttempt: Date?
    /// Why the last delivery failed.
    public var lastError: String?
    /// When its receiver refused it (it is not tried again); nil while it is to be delivered.
    public var refusedAt: Date?

    /// An entry.
    public init(
        notification: FeedNotification, attempts: Int = 0, nextAttempt: Date? = nil, lastError: String? = nil,
        refusedAt: Date? = nil
    ) {
        self.notification = notification
        self.attempts = attempts
        self.nextAttempt = nextAttempt
        self.lastError = lastError
        self.refusedAt = refusedAt
    }
}

/// What the state knows of one notifier's deliveries, for `monitor status`.
public struct NotifierStatus: Sendable, Hashable {
    /// The notifier's name.
    public var name: String
    /// Notifications still to deliver.
    public var pending = 0
    /// Notifications its receiver refused, kept for a while.
    public var refused = 0
    /// Why its last failed delivery failed.
    public var lastError: String?
    /// When that was.
    public var lastErrorAt: Date?
    /// When it last delivered one.
    public var lastDelivered: Date?

    /// The status of a notifier with nothing stored.
    public init(name: String) {
        self.name = name
    }
}
