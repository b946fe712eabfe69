import CSQLiteOptions
import GRDB
import MonitorSQL

/// Rows to insert into one table, written several to a statement: a first poll's thousands of items cost a few
/// hundred statements instead of one each. The statement of a full batch is prepared once; a last, shorter one is
/// not cached.
///
/// The values are bound straight to SQLite (``SQLValue``: text from its UTF-8, copied by SQLite), with no
/// `DatabaseValueConvertible` existentials or `StatementArguments` made per row.
struct RowBatch {
    /// The rows per statement: `rowsPerStatement × columns` stays far below SQLite's limit of bound values.
    static let rowsPerStatement = 64

    let table: String
    let columns: [String]
    private var values: [SQLValue] = []
    private var rows = 0
    /// The statement of a full batch, once prepared.
    private var full: Statement?

    init(table: String, columns: [String]) {
        self.table = table
        self.columns = columns
        values.reserveCapacity(Self.rowsPerStatement * columns.count)
    }

    /// Adds a row, one value per column in order, given by `row` appending them to its argument; writes the batch when
    /// it is full.
    mutating func append(_ db: Database, _ row: (inout [SQLValue]) -> Void) throws {
        row(&values)
        rows += 1
        assert(values.count == rows * columns.count, "a row of \(table) needs \(columns.count) values")
        if rows == Self.rowsPerStatement { try flush(db) }
    }

    /// Writes the rows not written yet.
    mutating func flush(_ db: Database) throws {
        guard rows > 0 else { return }
        let statement: Statement
        if rows == Self.rowsPerStatement {
            if full == nil { full = try db.cachedStatement(sql: sql(rows: rows)) }
            statement = full!
        } else {
            statement = try db.makeStatement(sql: sql(rows: rows))
        }
        // The statement is kept until it has run: a statement not cached is finalized when released, and its last
        // use below would otherwise be the pointer taken from it.
        try withExtendedLifetime(statement) {
            let pointer = UnsafeMutableRawPointer(statement.sqliteStatement)
            for (index, value) in values.enumerated() {
                let code = value.bind(to: pointer, at: Int32(index + 1))
                guard code == 0 else {
                    // Bindings fail only when the statement does not have the parameter: a bug, said as SQLite says it.
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: code), message: "cannot bind value \(index + 1)",
                        sql: statement.sql)
                }
            }
            var message: UnsafeMutablePointer<CChar>?
            let code = monitor_sqlite3_run(pointer, &message)
            values.removeAll(keepingCapacity: true)
            rows = 0
            guard code == 101 else {  // SQLITE_DONE
                defer { monitor_sqlite3_free(message) }
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: message.map { String(cString: $0) },
                    sql: statement.sql)
            }
        }
    }

    /// `INSERT OR FAIL INTO table (columns) VALUES (?, …), (?, …)…` for `rows` rows.
    ///
    /// `OR FAIL` rather than the default `OR ABORT`: a statement that may abort halfway through its rows makes
    /// SQLite copy every page it touches into a statement journal (a temporary file) first, so as to undo that
    /// statement alone; a first poll's commit wrote ten thousand pages there. A failing statement fails the whole
    /// commit anyway, whose transaction is then rolled back, so nothing of it is kept either way.
    private func sql(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "INSERT OR FAIL INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }
}
