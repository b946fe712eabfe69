import Foundation
import MonitorCore
import Synchronization

/// A value bound to a statement or read from a row, as both databases keep them.
package enum SQLValue: Sendable, Hashable {
    case text(String)
    case real(Double)
    case integer(Int64)
    case null

    /// The number, or NULL.
    package init(_ value: Double?) {
        self = value.map(SQLValue.real) ?? .null
    }

    /// The text, or NULL.
    package init(_ text: String?) {
        self = text.map(SQLValue.text) ?? .null
    }

    /// The time in seconds since 1970, or NULL.
    package init(_ time: Date?) {
        self = time.map { .real($0.timeIntervalSince1970) } ?? .null
    }
}

/// One row a statement answered, its values in the order of its columns.
package struct SQLRow: Sendable {
    package let values: [SQLValue]

    package init(_ values: [SQLValue]) { self.values = values }

    /// The text of column `index`, nil for NULL or a number.
    package func text(_ index: Int) -> String? {
        if case .text(let text) = values[index] { text } else { nil }
    }

    /// The number of column `index`, an integer one included; nil for NULL or text.
    package func real(_ index: Int) -> Double? {
        switch values[index] {
        case .real(let value): value
        case .integer(let value): Double(value)
        case .text, .null: nil
        }
    }

    /// The integer of column `index` (a whole real number included); nil for NULL, text or a fraction.
    package func integer(_ index: Int) -> Int? {
        switch values[index] {
        case .integer(let value): Int(exactly: value)
        case .real(let value): Int(exactly: value)
        case .text, .null: nil
        }
    }
}

/// Work on the state written once for both databases: statements run one after the other in one transaction, each
/// next one chosen from the rows of the one before. A backend runs it in a transaction of its own
/// (``SQLStateStore``), or inside one it has open (a commit's).
///
/// The statements are written in PostgreSQL's names, with a `?` for each value bound; ``SQLDialect/sql(_:)`` says
/// them in a backend's words.
package enum SQLWork<Value: Sendable>: Sendable {
    /// Nothing more to run: the work's value.
    case done(Value)
    /// Runs `sql` with `binds`, then what `next` makes of its rows.
    case statement(String, [SQLValue], next: @Sendable ([SQLRow]) throws -> SQLWork<Value>)

    /// Runs `sql` with `binds`, then what `next` makes of its rows.
    package init(_ sql: String, _ binds: [SQLValue] = [], next: @escaping @Sendable ([SQLRow]) throws -> SQLWork<Value>)
    {
        self = .statement(sql, binds, next: next)
    }

    /// This work, then the work `next` makes of its value.
    package func then<Next>(_ next: @escaping @Sendable (Value) throws -> SQLWork<Next>) throws -> SQLWork<Next> {
        switch self {
        case .done(let value): try next(value)
        case .statement(let sql, let binds, let rest): .statement(sql, binds) { try rest($0).then(next) }
        }
    }

    /// Runs the work, each statement by `rows` (the backend running it in the transaction it has open), each next
    /// step from what it answered. Swift has no `reasync`: GRDB's transactions need this synchronous form,
    /// PostgreSQL's the `async` one below.
    package func run(_ rows: (_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow]) throws -> Value {
        var work = self
        while case .statement(let sql, let binds, let next) = work { work = try next(rows(sql, binds)) }
        guard case .done(let value) = work else { preconditionFailure("a work is done or a statement") }
        return value
    }

    /// ``run(_:)-(…)`` for a backend whose statements are run `async`.
    package func run(_ rows: (_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]) async throws -> Value {
        var work = self
        while case .statement(let sql, let binds, let next) = work { work = try next(await rows(sql, binds)) }
        guard case .done(let value) = work else { preconditionFailure("a work is done or a statement") }
        return value
    }

    /// This work, its value made into another by `transform`.
    package func map<Next>(_ transform: @escaping @Sendable (Value) throws -> Next) throws -> SQLWork<Next> {
        try then { .done(try transform($0)) }
    }
}

extension SQLWork where Value == Void {
    /// Runs `sql` with `binds`, its rows left unread.
    package static func run(_ sql: String, _ binds: [SQLValue] = []) -> SQLWork<Void> {
        .statement(sql, binds) { _ in .done(()) }
    }

    /// Runs each of `statements` in order, their rows left unread.
    package static func run(_ statements: [(sql: String, binds: [SQLValue])]) -> SQLWork<Void> {
        @Sendable func from(_ index: Int) -> SQLWork<Void> {
            guard index < statements.count else { return .done(()) }
            return .statement(statements[index].sql, statements[index].binds) { _ in from(index + 1) }
        }
        return from(0)
    }
}

extension SQLWork {
    /// The work `body` makes of each of `elements`, one after the other, their values joined in order.
    package static func each<Element: Sendable, Part: Sendable>(
        _ elements: [Element], _ body: @escaping @Sendable (Element) throws -> SQLWork<[Part]>
    ) throws -> SQLWork<[Part]> where Value == [Part] {
        @Sendable func from(_ index: Int, _ joined: [Part]) throws -> SQLWork<[Part]> {
            guard index < elements.count else { return .done(joined) }
            return try body(elements[index]).then { try from(index + 1, joined + $0) }
        }
        return try from(0, [])
    }
}

/// What a database's words differ in: the SQL of ``SQLWork`` is said in PostgreSQL's.
package struct SQLDialect: Sendable {
    /// Whether parameters are numbered (`$1`, `$2`…, PostgreSQL) rather than each a `?` (SQLite).
    let numbersParameters: Bool
    /// The tables and columns this database names otherwise, by PostgreSQL's name.
    let names: [String: String]
    /// Whether a statement names the index it is read through (SQLite's `INDEXED BY`).
    let namesIndexes: Bool
    /// Whether several instances share the database: a notification is claimed by the instance delivering it
    /// (`claimed_by`, `claimed_until`), and the feeds are scheduled in it (`feed_schedule`).
    let isShared: Bool
    /// The statements said so far, so that each is said once rather than at each run.
    private let said = SaidStatements()

    /// PostgreSQL's words, in which ``SQLWork`` is written: numbered parameters, a database shared by instances.
    package static let postgres = SQLDialect(numbersParameters: true, names: [:], namesIndexes: false, isShared: true)

    /// SQLite's words: a `?` for each parameter, the schema's names in camel case (and the row's `rowid` for the order
    /// of the outbox), the index a statement reads through named, as the planner may not pick it.
    package static let sqlite = SQLDialect(
        numbersParameters: false,
        names: [
            "seq": "rowid", "failed_permanently": "failedPermanently", "next_attempt": "nextAttempt",
            "last_error": "lastError", "last_error_at": "lastErrorAt", "last_delivered": "lastDelivered",
            "last_poll": "lastPoll", "last_success": "lastSuccess", "last_new": "lastNew", "not_before": "notBefore",
            "hold_reason": "holdReason", "minimum_interval": "minimumInterval", "rate_limit": "rateLimit",
            "item_count": "itemCount", "item_group": "itemGroup", "item_group_member": "itemGroupMember",
            "group_id": "groupId", "source_value": "sourceValue", "last_modified": "lastModified",
        ], namesIndexes: true, isShared: false)

    /// `INDEXED BY index` where the database takes it, else nothing.
    func indexed(by index: String) -> String {
        namesIndexes ? "INDEXED BY \(index)" : ""
    }

    /// `sql` in this database's words: its names for tables and columns, its parameters.
    package func sql(_ sql: String) -> String {
        guard numbersParameters || !names.isEmpty else { return sql }
        return said.statement(sql) { saying(sql) }
    }

    /// `sql(_:)`, worked out.
    private func saying(_ sql: String) -> String {
        var said = ""
        said.reserveCapacity(sql.utf8.count + 16)
        var parameter = 0
        var word = ""
        func endWord() {
            guard !word.isEmpty else { return }
            said += names[word] ?? word
            word = ""
        }
        for character in sql {
            if character == "_" || character.isLetter || (character.isNumber && !word.isEmpty) {
                word.append(character)
                continue
            }
            endWord()
            if character == "?" && numbersParameters {
                parameter += 1
                said += "$\(parameter)"
            } else {
                said.append(character)
            }
        }
        endWord()
        return said
    }
}

/// A state kept in a SQL database, whose logic is written once over ``SQLWork``: the backend gives its dialect and
/// runs the work in its transactions, mapping its errors.
package protocol SQLStateStore: StateStoring {
    /// How the database's words differ from PostgreSQL's.
    var dialect: SQLDialect { get }

    /// Runs `work` in one transaction that only reads.
    func reading<Value: Sendable>(_ work: SQLWork<Value>) async throws -> Value

    /// Runs `work` in one transaction: committed when it returns, rolled back when it throws.
    func writing<Value: Sendable>(_ work: SQLWork<Value>) async throws -> Value
}

extension SQLStateStore {
    package func forget(feed: String) async throws {
        // The feed's row first: in PostgreSQL its lock makes a commit of the feed in flight wait, or this wait for it.
        let tables = ["item", "item_group_member", "item_group", "validator", "source_value"]
        let deletes =
            ["DELETE FROM feed WHERE name = ?"]
            + (tables + (dialect.isShared ? ["feed_schedule"] : [])).map { "DELETE FROM \($0) WHERE feed = ?" }
        try await writing(.run(deletes.map { (sql: $0, binds: [.text(feed)]) }))
    }
}

/// The statements a dialect said, by their text in PostgreSQL's words. The state's statements are built from a few
/// shapes, so at most `limit` are kept; any beyond are said at each run.
private final class SaidStatements: Sendable {
    static let limit = 512
    private let said = Mutex<[String: String]>([:])

    /// The statement `sql` said, by `say` the first time.
    func statement(_ sql: String, _ say: () -> String) -> String {
        if let known = said.withLock({ $0[sql] }) { return known }
        let text = say()
        said.withLock { said in
            if said.count < Self.limit { said[sql] = text }
        }
        return text
    }
}
