import Foundation
import Logging
import MonitorCore
import MonitorItems
import MonitorSQL
import PostgresNIO

/// One poll's results written inside an open transaction: ``SQLCommit``'s record and rest, and between them the items,
/// only what differs from what is stored, counted as the SQLite state counts them. Items go in a few statements
/// whatever their number: arrays unnested by the server.
struct PostgresCommit {
    /// The connection, inside a transaction.
    var connection: PostgresConnection
    /// The feed written.
    var feed: String
    /// The logger of the queries.
    var logger: Logger

    /// Writes `commit`; returns the rows written.
    func write(_ commit: PollCommit) async throws -> CommitStatistics {
        try await SQLCommit.record(commit.record, feed: feed).run(on: connection, logger: logger)
        var statistics = CommitStatistics()
        statistics.recordRows = 1
        if let items = commit.items {
            try await writeItems(
                items, prepared: commit.prepared, firstSeen: commit.firstSeen.timeIntervalSince1970, &statistics)
        }
        return try await SQLCommit.rest(commit, feed: feed, statistics: statistics, .postgres).run(
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
            var groups: [String] = []
            groups.reserveCapacity(item.groups.count)
            item.eachGroupOnce { groups.append($0) }
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
}
