import Foundation
import MonitorCore

/// The notifications outbox of both databases: what polls had to tell, written in the transaction of the poll,
/// removed once delivered. The delivery reads each notifier's queue through its index (its pending rows in the order
/// written) and never the whole table.
package enum SQLOutbox {
    /// The most values one statement binds in a list (`IN (?, …)`), far below either database's limit.
    static let listLimit = 256

    /// The columns ``entry(_:)`` reads.
    static let entryColumns = "content, created, attempts, next_attempt, last_error, failed_permanently, seq"

    /// The entry of a row of ``entryColumns``; nil for a row that does not decode (written by a later version).
    static func entry(_ row: SQLRow) -> OutboxEntry? {
        guard let content = row.text(0), let created = row.real(1), let attempts = row.integer(2),
            let sequence = row.integer(6)
        else { return nil }
        return OutboxEntry(
            content: content, created: created, attempts: attempts, nextAttempt: row.real(3), lastError: row.text(4),
            refusedAt: row.real(5), sequence: Int64(sequence))
    }

    /// Writes `notifications` (those already stored kept as they are), then drops what the `bounds` of their
    /// notifiers no longer allow at `created`. Returns what was dropped.
    package static func write(
        _ notifications: [FeedNotification], bounds: [String: OutboxBounds], created: Date, _ dialect: SQLDialect
    ) throws -> SQLWork<[DroppedNotification]> {
        guard !notifications.isEmpty else { return .done([]) }
        let rows = try notifications.map { notification -> [SQLValue] in
            [
                .text(notification.id), .text(notification.notifier), .text(notification.feed),
                .text(notification.event.rawValue), .real(created.timeIntervalSince1970),
                .text(try StoredJSON.text(notification)),
            ]
        }
        let inserted = try SQLWork<[Never]>.each(rows) { row in
            try SQLWork.run(
                """
                INSERT INTO notification (id, notifier, feed, event, created, content) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO NOTHING
                """, row
            ).map { [] }
        }
        let notifiers = Set(notifications.map(\.notifier)).sorted().compactMap { notifier in
            bounds[notifier].map { (notifier, $0) }
        }
        return try inserted.then { _ in
            try SQLWork<[DroppedNotification]>.each(notifiers) {
                try drop($0.0, beyond: $0.1, now: created, dialect)
            }
        }
    }

    /// Drops the notifications of `notifier` still to deliver that `bounds` no longer allow at `now`: those older
    /// than its age, then its oldest beyond its count, each counted in the notifier's status. Read through the indexes
    /// of the notifier's queue: the rows that stay are counted, not read; a row another instance dropped meanwhile is
    /// not reported twice. Returns them, oldest first.
    static func drop(_ notifier: String, beyond bounds: OutboxBounds, now: Date, _ dialect: SQLDialect) throws
        -> SQLWork<[DroppedNotification]>
    {
        typealias Chosen = (sequence: Int64, content: String, reason: String)
        @Sendable func chosen(_ rows: [SQLRow], reason: String) -> [Chosen] {
            rows.compactMap { row in
                guard let sequence = row.integer(0), let content = row.text(1) else { return nil }
                return (Int64(sequence), content, reason)
            }
        }
        // Deletes the rows `chosen` that decode (one written by a later version is left for that version, as the
        // reads leave it) and counts those deleted in the notifier's status.
        @Sendable func delete(_ chosen: [Chosen], of notifier: String) throws -> SQLWork<[DroppedNotification]> {
            let decodable = chosen.compactMap { row in
                StoredJSON.value(FeedNotification.self, from: row.content).map {
                    (row.sequence, DroppedNotification(notification: $0, reason: row.reason))
                }
            }
            let chunks = stride(from: 0, to: decodable.count, by: listLimit).map {
                Array(decodable[$0..<min($0 + listLimit, decodable.count)])
            }
            return try SQLWork<[DroppedNotification]>.each(chunks) { chunk in
                SQLWork(
                    "DELETE FROM notification WHERE seq IN (\(list(chunk.count))) RETURNING seq",
                    chunk.map { .integer($0.0) }
                ) { rows in
                    let deleted = Set(rows.compactMap { $0.integer(0) })
                    return .done(chunk.filter { deleted.contains(Int($0.0)) }.map(\.1))
                }
            }.then { dropped in
                guard !dropped.isEmpty else { return .done([]) }
                return try SQLWork.run(
                    """
                    INSERT INTO notifier (name, dropped) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET dropped = notifier.dropped + EXCLUDED.dropped
                    """, [.text(notifier), .integer(Int64(dropped.count))]
                ).map { dropped }
            }
        }

        let aged = SQLWork(
            """
            SELECT seq, content FROM notification \(dialect.indexed(by: "notification_age"))
            WHERE notifier = ? AND failed_permanently IS NULL AND created < ? ORDER BY seq
            """, [.text(notifier), .real(bounds.oldest(at: now).timeIntervalSince1970)]
        ) { .done(chosen($0, reason: bounds.ageReason)) }
        return try aged.then { aged in
            try queueLength(notifier, dialect).then { count in
                let excess = count - aged.count - bounds.count
                guard excess > 0 else { return try delete(aged, of: notifier) }
                let agedSequences = Set(aged.map(\.sequence))
                // The oldest beyond the count, past those already dropped for their age.
                return SQLWork(
                    """
                    SELECT seq, content FROM notification \(dialect.indexed(by: "notification_queue"))
                    WHERE notifier = ? AND failed_permanently IS NULL ORDER BY seq LIMIT ?
                    """, [.text(notifier), .integer(Int64(excess + aged.count))]
                ) { rows in
                    let oldest = chosen(rows, reason: bounds.countReason(notifier: notifier))
                        .filter { !agedSequences.contains($0.sequence) }.prefix(excess)
                    return try delete((aged + oldest).sorted { $0.sequence < $1.sequence }, of: notifier)
                }
            }
        }
    }

    /// `?, ?, …`: `count` parameters.
    static func list(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// How many notifications `notifier` has still to deliver, counted on the index of its queue.
    static func queueLength(_ notifier: String, _ dialect: SQLDialect) -> SQLWork<Int> {
        SQLWork(
            """
            SELECT count(*) FROM notification \(dialect.indexed(by: "notification_queue"))
            WHERE notifier = ? AND failed_permanently IS NULL
            """, [.text(notifier)]
        ) { .done($0.first?.integer(0) ?? 0) }
    }

    /// The notifications `notifier` has still to deliver, oldest first, those after `sequence` only, at most `limit`.
    static func queue(_ notifier: String, after sequence: Int64, limit: Int?, _ dialect: SQLDialect)
        -> SQLWork<[SQLRow]>
    {
        var binds: [SQLValue] = [.text(notifier), .integer(sequence)]
        if let limit { binds.append(.integer(Int64(limit))) }
        return SQLWork(
            """
            SELECT \(entryColumns) FROM notification \(dialect.indexed(by: "notification_queue"))
            WHERE notifier = ? AND failed_permanently IS NULL AND seq > ? ORDER BY seq \(limit == nil ? "" : "LIMIT ?")
            """, binds
        ) { .done($0) }
    }

    /// The oldest notification `notifier` has still to deliver that decodes, read a few rows at a time from `after`.
    static func next(_ notifier: String, after sequence: Int64, _ dialect: SQLDialect) throws -> SQLWork<OutboxEntry?> {
        let page = 16
        return try queue(notifier, after: sequence, limit: page, dialect).then { rows in
            if let entry = rows.lazy.compactMap(entry).first { return .done(entry) }
            guard rows.count == page, let last = rows.last?.integer(6) else { return .done(nil) }
            return try next(notifier, after: Int64(last), dialect)
        }
    }

    /// The values binding `ids`, at most ``listLimit`` a statement.
    static func chunks(_ ids: [String]) -> [[SQLValue]] {
        stride(from: 0, to: ids.count, by: listLimit).map {
            ids[$0..<min($0 + listLimit, ids.count)].map(SQLValue.text)
        }
    }
}

extension SQLStateStore {
    package func outbox(refused: Bool) async throws -> [OutboxEntry] {
        let condition = refused ? "" : "WHERE failed_permanently IS NULL"
        return try await reading(
            SQLWork("SELECT \(SQLOutbox.entryColumns) FROM notification \(condition) ORDER BY seq") {
                .done($0.compactMap(SQLOutbox.entry))
            })
    }

    /// The oldest notification `notifier` has still to deliver, through the index of its queue: a few rows at a
    /// time, in order, until one decodes.
    package func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        try await reading(try SQLOutbox.next(notifier, after: 0, dialect))
    }

    package func pendingNotifications(of notifier: String) async throws -> [OutboxEntry] {
        try await reading(
            try SQLOutbox.queue(notifier, after: 0, limit: nil, dialect).map { $0.compactMap(SQLOutbox.entry) })
    }

    package func pendingCount(of notifier: String) async throws -> Int {
        try await reading(SQLOutbox.queueLength(notifier, dialect))
    }

    package func dropNotifications(beyond bounds: [String: OutboxBounds], now: Date) async throws
        -> [DroppedNotification]
    {
        guard !bounds.isEmpty else { return [] }
        let dialect = dialect
        return try await writing(
            try SQLWork<[DroppedNotification]>.each(bounds.sorted { $0.key < $1.key }) {
                try SQLOutbox.drop($0.key, beyond: $0.value, now: now, dialect)
            })
    }

    package func delivered(_ ids: [String], notifier: String, at time: Date) async throws {
        let deleted = try SQLWork<[Never]>.each(SQLOutbox.chunks(ids)) { ids in
            try SQLWork.run("DELETE FROM notification WHERE id IN (\(SQLOutbox.list(ids.count)))", ids).map { [] }
        }
        try await writing(
            try deleted.then { _ in
                .run(
                    """
                    INSERT INTO notifier (name, last_delivered) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET last_delivered = EXCLUDED.last_delivered
                    """, [.text(notifier), .real(time.timeIntervalSince1970)])
            })
    }

    package func failed(
        _ ids: [String], notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        // The attempt is over: its claim, where notifications are claimed, is released with it.
        let claim = dialect.isShared ? "claimed_by = NULL, claimed_until = NULL," : ""
        let set: [SQLValue] = [
            .text(error), SQLValue(nextAttempt?.timeIntervalSince1970),
            SQLValue(refused ? time.timeIntervalSince1970 : nil),
        ]
        let updated = try SQLWork<[Never]>.each(SQLOutbox.chunks(ids)) { ids in
            try SQLWork.run(
                """
                UPDATE notification SET attempts = attempts + 1, last_error = ?, \(claim)
                    next_attempt = ?, failed_permanently = ?
                WHERE id IN (\(SQLOutbox.list(ids.count)))
                """, set + ids
            ).map { [] }
        }
        try await writing(
            try updated.then { _ in
                .run(
                    """
                    INSERT INTO notifier (name, last_error, last_error_at) VALUES (?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET last_error = EXCLUDED.last_error,
                        last_error_at = EXCLUDED.last_error_at
                    """, [.text(notifier), .text(error), .real(time.timeIntervalSince1970)])
            })
    }

    @discardableResult
    package func dropExpiredNotifications(now: Date) async throws -> Int {
        try await writing(
            SQLWork(
                """
                DELETE FROM notification \(dialect.indexed(by: "notification_refused"))
                WHERE failed_permanently < ? RETURNING id
                """, [.real(now.timeIntervalSince1970 - OutboxEntry.refusedLifetime)]
            ) { .done($0.count) })
    }

    package func clampOutbox(now: Date, longest: Duration) async throws {
        let start = now.timeIntervalSince1970
        let latest = start + longest.seconds
        try await writing(
            try SQLWork.run("UPDATE notification SET created = ? WHERE created > ?", [.real(start), .real(start)])
                .then { _ in
                    .run(
                        "UPDATE notification SET next_attempt = ? WHERE next_attempt > ?",
                        [.real(latest), .real(latest)])
                })
    }

    package func notifierStatuses() async throws -> [NotifierStatus] {
        let notifiers = SQLWork("SELECT name, last_error, last_error_at, last_delivered, dropped FROM notifier") {
            rows in
            .done(
                rows.compactMap { row in
                    row.text(0).map {
                        NotifierStatus(
                            name: $0, lastError: row.text(1), lastErrorAt: row.real(2), lastDelivered: row.real(3),
                            dropped: row.integer(4) ?? 0)
                    }
                })
        }
        return try await reading(
            try notifiers.then { notifiers in
                SQLWork(
                    """
                    SELECT notifier, count(CASE WHEN failed_permanently IS NULL THEN 1 END),
                        count(CASE WHEN failed_permanently IS NOT NULL THEN 1 END)
                    FROM notification GROUP BY notifier
                    """
                ) { rows in
                    var statuses = Dictionary(notifiers.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
                    for row in rows {
                        guard let name = row.text(0) else { continue }
                        statuses[name, default: NotifierStatus(name: name)].pending = row.integer(1) ?? 0
                        statuses[name, default: NotifierStatus(name: name)].refused = row.integer(2) ?? 0
                    }
                    return .done(statuses.values.sorted { $0.name < $1.name })
                }
            })
    }
}
