import Foundation
import GRDB
import MonitorCore
import MonitorItems
import MonitorSQL

/// One poll's results written inside an open transaction: ``SQLCommit``'s record and rest, and between them the items,
/// only what differs from what is stored, each row counted. New items and their group memberships go in several rows
/// per statement (``RowBatch``).
struct SQLiteCommit {
    /// The database, inside a transaction.
    var db: Database
    /// The feed written.
    var feed: String

    /// Writes `commit`; returns the rows written.
    func write(_ commit: PollCommit) throws -> CommitStatistics {
        try SQLCommit.record(commit.record, feed: feed).run(db)
        var statistics = CommitStatistics()
        statistics.recordRows = 1
        if let items = commit.items {
            try writeItems(
                items, prepared: commit.prepared, firstSeen: commit.firstSeen.timeIntervalSince1970, &statistics)
        }
        return try SQLCommit.rest(commit, feed: feed, statistics: statistics, .sqlite).run(db)
    }

    // MARK: - Items

    /// Makes `items` the feed's stored item set, writing only what differs from what is stored: new items and their
    /// group memberships inserted (several rows per statement), changed ones updated, those gone deleted.
    private func writeItems(
        _ items: [Item], prepared: PreparedItems, firstSeen: Double, _ statistics: inout CommitStatistics
    ) throws {
        // The stored fingerprints: an item whose fingerprint is unchanged is not written again.
        var stored: [String: Int64] = [:]
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT id, fingerprint FROM item WHERE feed = ?"), arguments: [feed])
        while let row = try rows.next() { stored[row[0]] = row[1] }
        // A feed with nothing stored yet (a first poll) has nothing to delete: the ids kept are not collected, and
        // `stored` only finds an id met twice in the poll.
        let fresh = stored.isEmpty
        stored.reserveCapacity(stored.count + items.count)
        var kept = Set<String>()
        if !fresh { kept.reserveCapacity(items.count) }
        // New items and their memberships go in several rows per statement (a first poll's thousands).
        var inserts = RowBatch(
            table: "item",
            columns: ["feed", "id", "title", "date", "groups", "url", "details", "firstSeen", "fingerprint"])
        var members = RowBatch(table: "itemGroupMember", columns: ["feed", "groupId", "id", "date"])
        for item in items {
            let (item, packed) = prepared.stored(item)
            if !fresh { kept.insert(item.id) }
            switch stored.updateValue(packed.fingerprint, forKey: item.id) {
            case nil:
                let date = item.date.timeIntervalSince1970
                try inserts.append(db) { row in
                    row.append(.text(feed))
                    row.append(.text(item.id))
                    row.append(.text(item.title))
                    row.append(.real(date))
                    row.append(.text(packed.groups))
                    row.append(SQLValue(item.url))
                    row.append(.text(packed.details))
                    row.append(.real(firstSeen))
                    row.append(.integer(packed.fingerprint))
                }
                statistics.itemsInserted += 1
                statistics.memberRows += try item.eachGroupOnce { group in
                    try members.append(db) { row in
                        row.append(.text(feed))
                        row.append(.text(group))
                        row.append(.text(item.id))
                        row.append(.real(date))
                    }
                }
                continue
            case packed.fingerprint?:
                continue
            default:
                // The item may be one of the rows not written yet (an id met twice in the poll).
                try inserts.flush(db)
                try members.flush(db)
                try db.cachedStatement(
                    sql: """
                        UPDATE item SET title = ?, date = ?, groups = ?, url = ?, details = ?, fingerprint = ?
                        WHERE feed = ? AND id = ?
                        """
                ).execute(
                    arguments: [
                        item.title, item.date.timeIntervalSince1970, packed.groups, item.url, packed.details,
                        packed.fingerprint, feed, item.id,
                    ])
                statistics.itemsUpdated += 1
                statistics.memberRows += try deleteMembers(of: item.id)
            }
            statistics.memberRows += try insertMembers(item)
        }
        try inserts.flush(db)
        try members.flush(db)
        if fresh { return }
        for id in stored.keys where !kept.contains(id) {
            try db.cachedStatement(sql: "DELETE FROM item WHERE feed = ? AND id = ?").execute(arguments: [feed, id])
            statistics.itemsDeleted += 1
            statistics.memberRows += try deleteMembers(of: id)
        }
    }

    /// Lists `item` under each of its groups (once each); returns the rows inserted.
    func insertMembers(_ item: Item) throws -> Int {
        try item.eachGroupOnce { group in
            try db.cachedStatement(sql: "INSERT INTO itemGroupMember (feed, groupId, id, date) VALUES (?, ?, ?, ?)")
                .execute(arguments: [feed, group, item.id, item.date.timeIntervalSince1970])
        }
    }

    /// Removes the item `id` from every group; returns the rows deleted.
    private func deleteMembers(of id: String) throws -> Int {
        try db.cachedStatement(sql: "DELETE FROM itemGroupMember WHERE feed = ? AND id = ?").execute(arguments: [
            feed, id,
        ])
        return db.changesCount
    }
}
