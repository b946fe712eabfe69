import Logging
import MonitorCore
import MonitorSQL
import PostgresNIO

extension PostgresStateStore: SQLStateStore {
    package var dialect: SQLDialect { .postgres }

    package func reading<Value: Sendable>(_ work: SQLWork<Value>) async throws -> Value {
        try await transaction { connection in try await work.run(on: connection, logger: self.logger) }
    }

    package func writing<Value: Sendable>(_ work: SQLWork<Value>) async throws -> Value {
        try await transaction { connection in try await work.run(on: connection, logger: self.logger) }
    }
}

extension SQLWork {
    /// Runs the work in the transaction open on `connection`.
    func run(on connection: PostgresConnection, logger: Logger) async throws -> Value {
        try await run { sql, binds in
            var bindings = PostgresBindings(capacity: binds.count)
            for bind in binds {
                switch bind {
                case .text(let text): bindings.append(text)
                case .real(let value): bindings.append(value)
                case .integer(let value): bindings.append(value)
                case .null: bindings.appendNull()
                }
            }
            var rows: [SQLRow] = []
            let query = PostgresQuery(unsafeSQL: SQLDialect.postgres.sql(sql), binds: bindings)
            for try await row in try await connection.query(query, logger: logger) {
                rows.append(SQLRow(try row.map(SQLValue.init)))
            }
            return rows
        }
    }
}

extension SQLValue {
    /// The value of `cell`, of a type the state's schema uses (text, a floating-point number, an integer).
    fileprivate init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8: self = .integer(try cell.decode(Int64.self))
        case .float4, .float8: self = .real(try cell.decode(Double.self))
        default: self = .text(try cell.decode(String.self))
        }
    }
}
