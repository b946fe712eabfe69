import CSQLiteOptions

/// One value of a row a ``RowBatch`` writes, bound to SQLite as it is.
enum RowValue {
    case text(String)
    case real(Double)
    case integer(Int64)
    case null

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
}
