import GRDB

/// Rows to insert into one table, written several to a statement: a first poll's thousands of items cost a few
/// hundred statements instead of one each. The statement of a full batch is cached; a last, shorter one is not.
struct RowBatch {
    /// The rows per statement: `rowsPerStatement × columns` stays far below SQLite's limit of bound values.
    static let rowsPerStatement = 64

    let table: String
    let columns: [String]
    private var values: [(any DatabaseValueConvertible)?] = []
    private var rows = 0

    init(table: String, columns: [String]) {
        self.table = table
        self.columns = columns
        values.reserveCapacity(Self.rowsPerStatement * columns.count)
    }

    /// Adds a row (one value per column, in order); writes the batch when it is full.
    mutating func append(_ row: [(any DatabaseValueConvertible)?], _ db: Database) throws {
        values.append(contentsOf: row)
        rows += 1
        if rows == Self.rowsPerStatement { try flush(db) }
    }

    /// Writes the rows not written yet.
    mutating func flush(_ db: Database) throws {
        guard rows > 0 else { return }
        let sql = self.sql(rows: rows)
        let statement =
            rows == Self.rowsPerStatement ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        try statement.execute(arguments: StatementArguments(values))
        values.removeAll(keepingCapacity: true)
        rows = 0
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
