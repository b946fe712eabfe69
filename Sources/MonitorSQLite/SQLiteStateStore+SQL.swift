import CSQLiteOptions
import GRDB
import MonitorCore
import MonitorSQL

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
                    return try SQLFeeds.withItems(snapshot, feed: feed)
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
    /// Binds the value to parameter `index` (from 1) of the `sqlite3_stmt` at `statement`; returns SQLite's code.
    func bind(to statement: UnsafeMutableRawPointer, at index: Int32) -> Int32 {
        switch self {
        case .text(var text):
            return text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    monitor_sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count))
                }
            }
        case .real(let value): return monitor_sqlite3_bind_double(statement, index, value)
        case .integer(let value): return monitor_sqlite3_bind_int64(statement, index, value)
        case .null: return monitor_sqlite3_bind_null(statement, index)
        }
    }

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
