import Foundation
import MonitorCore
import MonitorItems

/// The reads of a feed's state, the same in both databases: its record, items, groups, validators and values.
package enum SQLFeeds {
    /// The columns ``record(_:)`` reads.
    static let recordColumns = """
        name, type, status, last_poll, last_success, last_new, last_error, failures, not_before, hold_reason, \
        minimum_interval, rate_limit, item_count
        """

    /// The record of a row of ``recordColumns``.
    static func record(_ row: SQLRow) -> FeedRecord? {
        guard let name = row.text(0), let type = row.text(1) else { return nil }
        return FeedRecord(
            name: name, type: type, status: row.text(2), lastPoll: row.real(3), lastSuccess: row.real(4),
            lastNew: row.real(5), lastError: row.text(6), failures: row.integer(7) ?? 0, notBefore: row.real(8),
            holdReason: row.text(9), minimumInterval: row.real(10), rateLimit: row.text(11),
            itemCount: row.integer(12) ?? 0)
    }

    /// The record of `feed`, nil when it has none.
    static func record(_ feed: String) -> SQLWork<FeedRecord?> {
        SQLWork("SELECT \(recordColumns) FROM feed WHERE name = ?", [.text(feed)]) {
            .done($0.first.flatMap(record))
        }
    }

    /// The items of `feed`, newest first (ties by id, descending), through the indexes: only the items returned are
    /// read. `expected` is how many are likely (the record's count), so that a whole feed's list is made at its size.
    package static func items(_ feed: String, group: String?, since: Date?, limit: Int?, expected: Int = 0)
        -> SQLWork<[Item]>
    {
        var sql = "SELECT id, title, date, groups, url, details FROM item WHERE feed = ?"
        var binds: [SQLValue] = [.text(feed)]
        var table = ""
        if let group {
            // Through the membership index, in its order: no sort, and no more rows read than are returned.
            sql = """
                SELECT item.id, item.title, item.date, item.groups, item.url, item.details
                FROM item_group_member AS member JOIN item ON item.feed = member.feed AND item.id = member.id
                WHERE member.feed = ? AND member.group_id = ?
                """
            binds.append(.text(group))
            table = "member."
        }
        if let since {
            sql += " AND \(table)date >= ?"
            binds.append(.real(since.timeIntervalSince1970))
        }
        sql += " ORDER BY \(table)date DESC, \(table)id DESC"
        if let limit {
            sql += " LIMIT ?"
            binds.append(.integer(Int64(limit)))
        }
        return SQLWork(sql, binds) { rows in
            var items: [Item] = []
            items.reserveCapacity(max(expected, rows.count))
            var groups = StoredItem.GroupReader()
            for row in rows {
                guard let id = row.text(0), let title = row.text(1), let date = row.real(2) else { continue }
                items.append(
                    StoredItem.item(
                        id: id, title: title, date: Date(timeIntervalSince1970: date),
                        groups: groups.unpack(row.text(3) ?? ""), url: row.text(4), details: row.text(5) ?? ""))
            }
            return .done(items)
        }
    }

    /// `head` with the items of `feed`.
    package static func withItems(_ head: FeedSnapshot, feed: String) throws -> SQLWork<FeedSnapshot> {
        try items(feed, group: nil, since: nil, limit: nil, expected: head.record?.itemCount ?? 0).map { items in
            var snapshot = head
            snapshot.items = items
            return snapshot
        }
    }

    /// The group catalog of `feed`, in its order.
    static func groups(_ feed: String) -> SQLWork<[ItemGroup]> {
        SQLWork("SELECT id, title FROM item_group WHERE feed = ? ORDER BY position", [.text(feed)]) { rows in
            .done(
                rows.compactMap { row in
                    guard let id = row.text(0), let title = row.text(1) else { return nil }
                    return ItemGroup(id: id, title: title)
                })
        }
    }

    /// What is stored for `feed` but its items.
    package static func head(_ feed: String) throws -> SQLWork<FeedSnapshot> {
        try record(feed).then { record in
            try groups(feed).then { groups in
                SQLWork(
                    "SELECT url, credential, etag, last_modified FROM validator WHERE feed = ?", [.text(feed)]
                ) { rows in
                    let validators = rows.compactMap { row -> (ValidatorKey, Validators)? in
                        guard let url = row.text(0), let credential = row.text(1) else { return nil }
                        return (
                            ValidatorKey(url: url, credential: credential),
                            Validators(etag: row.text(2), lastModified: row.text(3))
                        )
                    }
                    return SQLWork("SELECT key, value FROM source_value WHERE feed = ?", [.text(feed)]) { rows in
                        let values = rows.compactMap { row in
                            row.text(0).flatMap { key in row.text(1).map { (key, $0) } }
                        }
                        return .done(
                            FeedSnapshot(
                                record: record, groups: groups,
                                validators: Dictionary(validators, uniquingKeysWith: { $1 }),
                                values: Dictionary(values, uniquingKeysWith: { $1 })))
                    }
                }
            }
        }
    }
}

extension SQLStateStore {
    package func snapshot(feed: String) async throws -> FeedSnapshot {
        try await reading(
            try SQLFeeds.head(feed).then { try SQLFeeds.withItems($0, feed: feed) })
    }

    package func record(feed: String) async throws -> FeedRecord? {
        try await reading(SQLFeeds.record(feed))
    }

    package func records() async throws -> [FeedRecord] {
        try await reading(
            SQLWork("SELECT \(SQLFeeds.recordColumns) FROM feed ORDER BY name") {
                .done($0.compactMap(SQLFeeds.record))
            })
    }

    package func feedNames() async throws -> [String] {
        try await reading(SQLWork("SELECT name FROM feed ORDER BY name") { .done($0.compactMap { $0.text(0) }) })
    }

    package func items(of feed: String, group: String?, since: Date?, limit: Int?) async throws -> [Item] {
        try await reading(SQLFeeds.items(feed, group: group, since: since, limit: limit))
    }

    package func groups(feed: String) async throws -> [ItemGroup] {
        try await reading(SQLFeeds.groups(feed))
    }
}
