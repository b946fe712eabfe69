import GRDB
import MonitorCore
import MonitorSQL

extension SQLDialect {
    /// SQLite's words: a `?` for each parameter, the schema's names in camel case (and the row's `rowid` for the order
    /// of the outbox), the index a statement reads through named, as the planner may not pick it.
    static let sqlite = SQLDialect(
        numbersParameters: false,
        names: [
            "seq": "rowid", "failed_permanently": "failedPermanently", "next_attempt": "nextAttempt",
            "last_error": "lastError", "last_error_at": "lastErrorAt", "last_delivered": "lastDelivered",
            "last_poll": "lastPoll", "last_success": "lastSuccess", "last_new": "lastNew", "not_before": "notBefore",
            "hold_reason": "holdReason", "minimum_interval": "minimumInterval", "rate_limit": "rateLimit",
            "item_count": "itemCount", "item_group": "itemGroup", "item_group_member": "itemGroupMember",
            "group_id": "groupId", "source_value": "sourceValue", "last_modified": "lastModified",
        ], namesIndexes: true, claimsNotifications: false)
}

extension SQLiteStateStore: SQLStateStore {
    package var dialect: SQLDialect { .sqlite }

    package func reading<Value: Sendable>(_ work: SQLWork<Value>) async throws -> Value {
        try await read { db in try work.run(db) }
    }

    package func writing<Value: Sendable>(_ work: SQLWork<Value>) async throws -> Value {
        try await write { db in try work.run(db) }
    }

    /// The items are read last, in the same transaction, once `head` has what the poll's first requests need.
    package func snapshot(
        feed: String, head: @escaping @Sendable (_ snapshot: FeedSnapshot, _ ids: Set<String>) -> Void
    ) async throws -> FeedSnapshot {
        try await reading(
            try SQLFeeds.head(feed).then { snapshot in
                SQLWork("SELECT id FROM item WHERE feed = ?", [.text(feed)]) { rows in
                    head(snapshot, Set(rows.compactMap { $0.text(0) }))
                    return try SQLFeeds.items(
                        feed, group: nil, since: nil, limit: nil, expected: snapshot.record?.itemCount ?? 0
                    ).map { items in
                        var snapshot = snapshot
                        snapshot.items = items
                        return snapshot
                    }
                }
            })
    }
}

extension SQLWork {
    /// Runs the work in the transaction open on `db`.
    func run(_ db: Database) throws -> Value {
        try run { sql, binds in
            let statement = try db.cachedStatement(sql: SQLDialect.sqlite.sql(sql))
            let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(binds.map(\.databaseValue)))
            let columns = CInt(statement.columnCount)
            var rows: [SQLRow] = []
            // The values are read off the statement by index: a row's `databaseValues` makes each column's name too,
            // and its generic subscript runs unspecialised.
            while try cursor.next() != nil {
                rows.append(
                    SQLRow(
                        (0..<columns).map {
                            SQLValue(DatabaseValue(sqliteStatement: statement.sqliteStatement, index: $0))
                        }))
            }
            return rows
        }
    }
}

extension SQLValue {
    /// The value as GRDB binds it.
    fileprivate var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .real(let value): value.databaseValue
        case .integer(let value): value.databaseValue
        case .null: .null
        }
    }

    /// The value SQLite read (a blob, which the state does not write, as its bytes in UTF-8).
    fileprivate init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let value): self = .integer(value)
        case .double(let value): self = .real(value)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .text(String(decoding: data, as: UTF8.self))
        }
    }
}
