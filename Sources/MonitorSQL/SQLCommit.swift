import Foundation
import MonitorCore
import MonitorItems

/// A poll's commit as both databases write it, inside their transaction: the feed's record first (in PostgreSQL its
/// row lock orders two writers of one feed), then, after the items each backend writes in its own batches, of the
/// groups, validators and values only what differs from what is stored, each row counted, and the notifications.
package enum SQLCommit {
    /// Writes the record of `feed`.
    package static func record(_ record: FeedRecord, feed: String) throws -> SQLWork<Void> {
        .run(
            """
            INSERT INTO feed (name, type, status, last_poll, last_success, last_new, last_error, failures, not_before,
                hold_reason, minimum_interval, rate_limit, item_count)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET type = EXCLUDED.type, status = EXCLUDED.status,
                last_poll = EXCLUDED.last_poll, last_success = EXCLUDED.last_success, last_new = EXCLUDED.last_new,
                last_error = EXCLUDED.last_error, failures = EXCLUDED.failures, not_before = EXCLUDED.not_before,
                hold_reason = EXCLUDED.hold_reason, minimum_interval = EXCLUDED.minimum_interval,
                rate_limit = EXCLUDED.rate_limit, item_count = EXCLUDED.item_count
            """,
            [
                .text(feed), .text(record.type), SQLValue(record.status), SQLValue(record.lastPoll),
                SQLValue(record.lastSuccess), SQLValue(record.lastNew), SQLValue(record.lastError),
                .integer(Int64(record.failures)), SQLValue(record.notBefore), SQLValue(record.holdReason),
                SQLValue(record.minimumInterval?.seconds), SQLValue(try record.storedRateLimit()),
                .integer(Int64(record.itemCount)),
            ])
    }

    /// Writes what `commit` holds besides its record and items, counting the rows in `statistics`; returns them.
    package static func rest(
        _ commit: PollCommit, feed: String, statistics: CommitStatistics, _ dialect: SQLDialect
    ) throws -> SQLWork<CommitStatistics> {
        let catalog = try commit.groups.map { try self.catalog($0, feed: feed) } ?? .done(statistics.groupRows)
        let validators = try SQLWork<[Bool]>.each(Array(commit.validators)) { key, validators in
            try write(validators, key, feed: feed).map { [$0] }
        }
        let values = try SQLWork<[Bool]>.each(Array(commit.values)) { key, value in
            try write(value, key, feed: feed).map { [$0] }
        }
        return try catalog.then { groupRows in
            try validators.then { validatorRows in
                try values.then { valueRows in
                    try SQLOutbox.write(
                        commit.notifications, bounds: commit.bounds,
                        created: commit.record.lastPoll ?? commit.firstSeen, dialect
                    ).map { dropped in
                        var statistics = statistics
                        statistics.groupRows = groupRows
                        statistics.validatorRows += validatorRows.count { $0 }
                        statistics.valueRows += valueRows.count { $0 }
                        statistics.dropped = dropped
                        return statistics
                    }
                }
            }
        }
    }

    /// Makes the stored catalog the poll's `groups`, writing only the groups that differ; returns the rows written.
    static func catalog(_ groups: [ItemGroup], feed: String) throws -> SQLWork<Int> {
        SQLWork("SELECT id, title, position FROM item_group WHERE feed = ?", [.text(feed)]) { rows in
            var stored: [String: (title: String, position: Int)] = [:]
            for row in rows {
                guard let id = row.text(0), let title = row.text(1), let position = row.integer(2) else { continue }
                stored[id] = (title, position)
            }
            let changes = StoredItem.catalogChanges(stored: stored, to: groups)
            let written = changes.written.map { group, position -> (sql: String, binds: [SQLValue]) in
                (
                    """
                    INSERT INTO item_group (feed, id, title, position) VALUES (?, ?, ?, ?)
                    ON CONFLICT (feed, id) DO UPDATE SET title = EXCLUDED.title, position = EXCLUDED.position
                    """, [.text(feed), .text(group.id), .text(group.title), .integer(Int64(position))]
                )
            }
            let deleted = changes.deleted.map { id -> (sql: String, binds: [SQLValue]) in
                ("DELETE FROM item_group WHERE feed = ? AND id = ?", [.text(feed), .text(id)])
            }
            return try SQLWork.run(written + deleted).map { written.count + deleted.count }
        }
    }

    /// Stores `validators` under `key` (empty ones delete the stored ones); returns whether a row was written.
    static func write(_ validators: Validators, _ key: ValidatorKey, feed: String) throws -> SQLWork<Bool> {
        let row: [SQLValue] = [.text(feed), .text(key.url), .text(key.credential)]
        return SQLWork(
            "SELECT etag, last_modified FROM validator WHERE feed = ? AND url = ? AND credential = ?", row
        ) { rows in
            let current = rows.first.map { Validators(etag: $0.text(0), lastModified: $0.text(1)) }
            if validators.isEmpty {
                guard current != nil else { return .done(false) }
                return try SQLWork.run("DELETE FROM validator WHERE feed = ? AND url = ? AND credential = ?", row)
                    .map { true }
            }
            guard current != validators else { return .done(false) }
            return try SQLWork.run(
                """
                INSERT INTO validator (feed, url, credential, etag, last_modified) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (feed, url, credential) DO UPDATE
                    SET etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified
                """, row + [SQLValue(validators.etag), SQLValue(validators.lastModified)]
            ).map { true }
        }
    }

    /// Stores the source value `value` under `key` (nil deletes it); returns whether a row was written.
    static func write(_ value: String?, _ key: String, feed: String) throws -> SQLWork<Bool> {
        SQLWork("SELECT value FROM source_value WHERE feed = ? AND key = ?", [.text(feed), .text(key)]) { rows in
            guard rows.first?.text(0) != value else { return .done(false) }
            guard let value else {
                return try SQLWork.run(
                    "DELETE FROM source_value WHERE feed = ? AND key = ?", [.text(feed), .text(key)]
                ).map { true }
            }
            return try SQLWork.run(
                """
                INSERT INTO source_value (feed, key, value) VALUES (?, ?, ?)
                ON CONFLICT (feed, key) DO UPDATE SET value = EXCLUDED.value
                """, [.text(feed), .text(key), .text(value)]
            ).map { true }
        }
    }
}
