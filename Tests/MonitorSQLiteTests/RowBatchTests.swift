import Foundation
import GRDB
import MonitorItems
import MonitorSQL
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorSQLite

@Suite("Rows bound straight to SQLite (RowBatch) are stored exactly as given")
struct RowBatchTests {
    /// Texts that must come back byte for byte: empty, emoji (4-byte UTF-8, a ZWJ sequence, a flag), combining marks,
    /// non-Latin scripts, long, the packing separators, a lone space.
    static let texts = [
        "", " ", "plain", "émoji 🔥🌊 and 👩‍👩‍👧‍👦 and 🇫🇷", "e\u{301}", "日本語のテキスト", "Ελληνικά", "עברית",
        String(repeating: "long ", count: 2000), "\u{1F}\u{1A}\u{2}", "x",
    ]

    static let numbers: [Double] = [
        0, -0.5, 1_700_000_000.123_456_7, -62_135_596_800, .ulpOfOne, 1e300, -1e-300, 42,
    ]

    static let integers: [Int64] = [0, 1, -1, .max, .min, 0x0123_4567_89AB_CDEF, -7_046_029_254_386_353_131]

    /// Row `n` of the table: a text, an optional text (NULL every third row), a real and an integer.
    static func row(_ n: Int) -> (text: String, optional: String?, real: Double, integer: Int64) {
        (
            texts[n % texts.count], n % 3 == 0 ? nil : texts[(n + 5) % texts.count],
            numbers[n % numbers.count] + Double(n), integers[n % integers.count]
        )
    }

    static func table(_ directory: TemporaryDirectory) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: directory.url.appendingPathComponent("rows.sqlite").path)
        try queue.write { db in
            try db.execute(
                sql:
                    "CREATE TABLE t (n INTEGER PRIMARY KEY, text TEXT NOT NULL, optional TEXT, real REAL, integer INTEGER)"
            )
        }
        return queue
    }

    @Test(
        "text (empty, emoji, non-Latin, 10,000 bytes), NULL, doubles and 64-bit integers round-trip, at every count around a full statement",
        arguments: [1, RowBatch.rowsPerStatement - 1, RowBatch.rowsPerStatement, 2 * RowBatch.rowsPerStatement + 5])
    func roundTrip(count: Int) throws {
        let directory = try TemporaryDirectory()
        let queue = try Self.table(directory)
        try queue.write { db in
            var batch = RowBatch(table: "t", columns: ["n", "text", "optional", "real", "integer"])
            for n in 0..<count {
                let row = Self.row(n)
                try batch.append(db) { values in
                    values.append(.integer(Int64(n)))
                    values.append(.text(row.text))
                    values.append(row.optional.map(SQLValue.text) ?? .null)
                    values.append(.real(row.real))
                    values.append(.integer(row.integer))
                }
            }
            try batch.flush(db)
        }
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT n, text, optional, real, integer, typeof(optional) FROM t ORDER BY n")
        }
        #expect(rows.count == count)
        for (n, stored) in rows.enumerated() {
            let row = Self.row(n)
            #expect(stored[0] as Int64 == Int64(n))
            #expect(stored[1] as String == row.text)
            #expect(Array((stored[1] as String).utf8) == Array(row.text.utf8))
            #expect(stored[2] as String? == row.optional)
            #expect(stored[5] as String == (row.optional == nil ? "null" : "text"))
            #expect((stored[3] as Double).bitPattern == row.real.bitPattern)
            #expect(stored[4] as Int64 == row.integer)
        }
    }

    @Test("a row SQLite refuses fails the batch with SQLite's own error and message")
    func refusedRow() throws {
        let directory = try TemporaryDirectory()
        let queue = try Self.table(directory)
        #expect {
            try queue.write { db in
                var batch = RowBatch(table: "t", columns: ["n", "text"])
                for n in [1, 2, 1] {
                    try batch.append(db) { values in
                        values.append(.integer(Int64(n)))
                        values.append(.text("row \(n)"))
                    }
                }
                try batch.flush(db)
            }
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
                && error.message == "UNIQUE constraint failed: t.n"
                && error.sql == "INSERT OR FAIL INTO t (n, text) VALUES (?, ?), (?, ?), (?, ?)"
        }
        // The failed transaction left nothing.
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 0)
        // A NOT NULL column given NULL, in a full statement: refused the same way.
        #expect {
            try queue.write { db in
                var batch = RowBatch(table: "t", columns: ["n", "text"])
                for n in 0..<RowBatch.rowsPerStatement {
                    try batch.append(db) { values in
                        values.append(.integer(Int64(n)))
                        values.append(n == 10 ? .null : .text("row \(n)"))
                    }
                }
            }
        } throws: { error in
            (error as? DatabaseError)?.message == "NOT NULL constraint failed: t.text"
        }
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 0)
    }

    @Test("items with empty, emoji and non-Latin text, no URL and exact dates are committed and read back unchanged")
    func itemsRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url)
        // Without the packing separators: the state removes control characters from what it stores.
        let texts = Self.texts.filter { !$0.unicodeScalars.contains { $0.value < 0x20 } }
        let items = (0..<150).map { n in
            let row = (text: texts[n % texts.count], optional: n % 3 == 0 ? nil : texts[(n + 5) % texts.count])
            return Item(
                id: "id \(n) \(row.text.prefix(8))", title: row.text,
                date: Date(timeIntervalSince1970: 1_700_000_000 - Double(n) * 60.25),
                groups: n % 4 == 0 ? [] : n % 4 == 1 ? [row.text] : ["🔥", "g\(n % 3)"],
                url: row.optional, details: n % 2 == 0 ? [] : [Detail(row.text, row.optional ?? "")])
        }
        var record = FeedRecord(name: "planet", type: "eonet")
        record.itemCount = items.count
        let statistics = try await store.commit(
            PollCommit(
                record: record, items: items, firstSeen: Date(timeIntervalSince1970: 1_000.5), groups: nil,
                validators: [:], values: [:]),
            feed: "planet")
        #expect(statistics.itemsInserted == 150)
        #expect(statistics.memberRows == items.reduce(0) { $0 + Set($1.groups).count })
        let stored = try await store.items(feed: "planet")
        // Every date differs (and each is a multiple of 1/4 s, exact through `Date`): newest first is the order made.
        #expect(stored == items)
        #expect(
            try await store.items(feed: "planet", group: "🔥").count == items.filter { $0.groups.contains("🔥") }.count)
    }
}
