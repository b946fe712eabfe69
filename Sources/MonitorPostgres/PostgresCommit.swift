import Foundation
import Logging
import MonitorCore
import PostgresNIO

/// One poll's results written inside an open transaction: the feed's record first (its row lock orders two writers
/// of one feed), then of its items, groups, validators and values only what differs from what is stored, counted as
/// the SQLite state counts them. Items go in a few statements whatever their number: arrays unnested by the server.
struct PostgresCommit {
    /// The connection, inside a transaction.
    var connection: PostgresConnection
    /// The feed written.
    var feed: String
    /// The logger of the queries.
    var logger: Logger

    /// Writes `commit`; returns the rows written.
    func write(_ commit: PollCommit) async throws -> CommitStatistics {
        var statistics = CommitStatistics()
        let record = commit.record
        let rateLimit = try record.storedRateLimit()
        try await connection.query(
            """
            INSERT INTO feed (name, type, status, last_poll, last_success, last_new, last_error, failures, not_before,
                hold_reason, minimum_interval, rate_limit, item_count)
            VALUES (\(feed), \(record.type), \(record.status), \(record.lastPoll?.timeIntervalSince1970),
                \(record.lastSuccess?.timeIntervalSince1970), \(record.lastNew?.timeIntervalSince1970),
                \(record.lastError), \(record.failures), \(record.notBefore?.timeIntervalSince1970),
                \(record.holdReason), \(record.minimumInterval?.seconds), \(rateLimit), \(record.itemCount))
            ON CONFLICT (name) DO UPDATE SET type = EXCLUDED.type, status = EXCLUDED.status,
                last_poll = EXCLUDED.last_poll, last_success = EXCLUDED.last_success, last_new = EXCLUDED.last_new,
                last_error = EXCLUDED.last_error, failures = EXCLUDED.failures, not_before = EXCLUDED.not_before,
                hold_reason = EXCLUDED.hold_reason, minimum_interval = EXCLUDED.minimum_interval,
                rate_limit = EXCLUDED.rate_limit, item_count = EXCLUDED.item_count
            """, logger: logger)
        statistics.recordRows = 1
        if let items = commit.items {
            try await writeItems(
                items, prepared: commit.prepared, firstSeen: commit.firstSeen.timeIntervalSince1970, &statistics)
        }
        if let groups = commit.groups {
            statistics.groupRows = try await writeCatalog(groups)
        }
        for (key, validators) in commit.validators where try await writeValidators(validators, key) {
            statistics.validatorRows += 1
        }
        for (key, value) in commit.values where try await writeValue(value, key) {
            statistics.valueRows += 1
        }
        statistics.dropped = try await enqueue(
            commit.notifications, bounds: commit.bounds, created: commit.record.lastPoll ?? commit.firstSeen)
        return statistics
    }

    // MARK: - Notifications

    /// Adds `notifications` to the outbox, in this transaction: delivered only once the poll is committed. Then drops
    /// what the bounds of their notifiers no longer allow at `created`; returns the notifications dropped.
    private func enqueue(_ notifications: [FeedNotification], bounds: [String: OutboxBounds], created: Date)
        async throws -> [DroppedNotification]
    {
        try await SQLOutbox.write(notifications, bounds: bounds, created: created, .postgres).run(
            on: connection, logger: logger)
    }

    // MARK: - Items

    /// Items in columns, for `unnest`.
    private struct Columns {
        var ids: [String] = []
        var titles: [String] = []
        var dates: [Double] = []
        var groups: [String] = []
        var urls: [String] = []
        var hasURL: [Bool] = []
        var details: [String] = []
        var fingerprints: [Int64] = []
        var positions: [String: Int] = [:]

        /// Adds `item`, or replaces the one of the same id.
        mutating func put(_ item: Item, _ packed: StoredItem) {
            if let position = positions[item.id] {
                titles[position] = item.title
                dates[position] = item.date.timeIntervalSince1970
                groups[position] = packed.groups
                urls[position] = item.url ?? ""
                hasURL[position] = item.url != nil
                details[position] = packed.details
                fingerprints[position] = packed.fingerprint
                return
            }
            positions[item.id] = ids.count
            ids.append(item.id)
            titles.append(item.title)
            dates.append(item.date.timeIntervalSince1970)
            groups.append(packed.groups)
            urls.append(item.url ?? "")
            hasURL.append(item.url != nil)
            details.append(packed.details)
            fingerprints.append(packed.fingerprint)
        }
    }

    private func writeItems(
        _ items: [Item], prepared: PreparedItems, firstSeen: Double, _ statistics: inout CommitStatistics
    ) async throws {
        // The stored fingerprints: an item whose fingerprint is unchanged is not written again.
        var stored: [String: Int64] = [:]
        for try await (id, fingerprint) in try await connection.query(
            "SELECT id, fingerprint FROM item WHERE feed = \(feed)", logger: logger
        ).decode((String, Int64).self) {
            stored[id] = fingerprint
        }
        var inserted = Columns()
        var updated = Columns()
        var members: [String: [String]] = [:]
        var kept = Set<String>()
        kept.reserveCapacity(items.count)
        for item in items {
            let (item, packed) = prepared.stored(item)
            kept.insert(item.id)
            switch stored.updateValue(packed.fingerprint, forKey: item.id) {
            case nil:
                inserted.put(item, packed)
                statistics.itemsInserted += 1
            case packed.fingerprint?:
                continue
            default:
                if inserted.positions[item.id] != nil {
                    inserted.put(item, packed)
                } else {
                    updated.put(item, packed)
                }
                statistics.itemsUpdated += 1
            }
            let groups = item.distinctGroups
            members[item.id] = groups
            statistics.memberRows += groups.count
        }
        let deleted = stored.keys.filter { !kept.contains($0) }
        statistics.itemsDeleted = deleted.count

        // The memberships of the items rewritten or deleted go first.
        let rewritten = updated.ids + deleted
        if !rewritten.isEmpty {
            let rows = try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM item_group_member WHERE feed = \(feed) AND id = ANY(\(rewritten)::text[]) RETURNING 1
                )
                SELECT count(*) FROM gone
                """, logger: logger)
            for try await (count) in rows.decode(Int.self) { statistics.memberRows += count }
        }
        if !deleted.isEmpty {
            try await connection.query(
                "DELETE FROM item WHERE feed = \(feed) AND id = ANY(\(deleted)::text[])", logger: logger)
        }
        if !inserted.ids.isEmpty {
            let t = inserted
            try await connection.query(
                """
                INSERT INTO item (feed, id, title, date, groups, url, details, first_seen, fingerprint)
                SELECT \(feed), t.id, t.title, t.date, t.groups, CASE WHEN t.has_url THEN t.url END, t.details,
                    \(firstSeen), t.fingerprint
                FROM unnest(\(t.ids)::text[], \(t.titles)::text[], \(t.dates)::float8[], \(t.groups)::text[],
                    \(t.urls)::text[], \(t.hasURL)::bool[], \(t.details)::text[], \(t.fingerprints)::int8[])
                    AS t (id, title, date, groups, url, has_url, details, fingerprint)
                """, logger: logger)
        }
        if !updated.ids.isEmpty {
            let t = updated
            try await connection.query(
                """
                UPDATE item SET title = t.title, date = t.date, groups = t.groups,
                    url = CASE WHEN t.has_url THEN t.url END, details = t.details, fingerprint = t.fingerprint
                FROM unnest(\(t.ids)::text[], \(t.titles)::text[], \(t.dates)::float8[], \(t.groups)::text[],
                    \(t.urls)::text[], \(t.hasURL)::bool[], \(t.details)::text[], \(t.fingerprints)::int8[])
                    AS t (id, title, date, groups, url, has_url, details, fingerprint)
                WHERE item.feed = \(feed) AND item.id = t.id
                """, logger: logger)
        }
        var memberIDs: [String] = []
        var memberGroups: [String] = []
        var memberDates: [Double] = []
        for (ids, columns) in [(inserted.ids, inserted), (updated.ids, updated)] {
            for (position, id) in ids.enumerated() {
                for group in members[id] ?? [] {
                    memberIDs.append(id)
                    memberGroups.append(group)
                    memberDates.append(columns.dates[position])
                }
            }
        }
        if !memberIDs.isEmpty {
            try await connection.query(
                """
                INSERT INTO item_group_member (feed, group_id, id, date)
                SELECT \(feed), t.group_id, t.id, t.date
                FROM unnest(\(memberGroups)::text[], \(memberIDs)::text[], \(memberDates)::float8[]) AS t (group_id, id, date)
                """, logger: logger)
        }
    }

    // MARK: - Groups, validators, values

    /// Makes the stored catalog the poll's `groups`, writing only the groups that differ; returns the rows written.
    private func writeCatalog(_ groups: [ItemGroup]) async throws -> Int {
        var stored: [String: (title: String, position: Int)] = [:]
        for try await (id, title, position) in try await connection.query(
            "SELECT id, title, position FROM item_group WHERE feed = \(feed)", logger: logger
        ).decode((String, String, Int).self) {
            stored[id] = (title, position)
        }
        let changes = StoredItem.catalogChanges(stored: stored, to: groups)
        for (group, position) in changes.written {
            try await connection.query(
                """
                INSERT INTO item_group (feed, id, title, position) VALUES (\(feed), \(group.id), \(group.title), \(position))
                ON CONFLICT (feed, id) DO UPDATE SET title = EXCLUDED.title, position = EXCLUDED.position
                """, logger: logger)
        }
        for id in changes.deleted {
            try await connection.query("DELETE FROM item_group WHERE feed = \(feed) AND id = \(id)", logger: logger)
        }
        return changes.written.count + changes.deleted.count
    }

    /// Stores `validators` for `key` (deletes them when empty); returns whether a row was written.
    private func writeValidators(_ validators: Validators, _ key: ValidatorKey) async throws -> Bool {
        var current: Validators?
        for try await (etag, lastModified) in try await connection.query(
            """
            SELECT etag, last_modified FROM validator
            WHERE feed = \(feed) AND url = \(key.url) AND credential = \(key.credential)
            """, logger: logger
        ).decode((String?, String?).self) {
            current = Validators(etag: etag, lastModified: lastModified)
        }
        if validators.isEmpty {
            guard current != nil else { return false }
            try await connection.query(
                "DELETE FROM validator WHERE feed = \(feed) AND url = \(key.url) AND credential = \(key.credential)",
                logger: logger)
        } else {
            guard current != validators else { return false }
            try await connection.query(
                """
                INSERT INTO validator (feed, url, credential, etag, last_modified)
                VALUES (\(feed), \(key.url), \(key.credential), \(validators.etag), \(validators.lastModified))
                ON CONFLICT (feed, url, credential) DO UPDATE
                    SET etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified
                """, logger: logger)
        }
        return true
    }

    /// Stores the source value `key` (deletes it when nil); returns whether a row was written.
    private func writeValue(_ value: String?, _ key: String) async throws -> Bool {
        var current: String?
        for try await (found) in try await connection.query(
            "SELECT value FROM source_value WHERE feed = \(feed) AND key = \(key)", logger: logger
        ).decode(String.self) {
            current = found
        }
        guard current != value else { return false }
        if let value {
            try await connection.query(
                """
                INSERT INTO source_value (feed, key, value) VALUES (\(feed), \(key), \(value))
                ON CONFLICT (feed, key) DO UPDATE SET value = EXCLUDED.value
                """, logger: logger)
        } else {
            try await connection.query(
                "DELETE FROM source_value WHERE feed = \(feed) AND key = \(key)", logger: logger)
        }
        return true
    }
}
