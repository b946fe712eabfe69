import Foundation
import GRDB
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorSQLite

@Suite("A new state's file has 16 KiB pages; a state made with other pages keeps them")
struct PageSizeTests {
    /// The page size of the state file in `directory`, read as SQLite reads it.
    static func pageSize(_ directory: TemporaryDirectory) throws -> Int {
        let queue = try DatabaseQueue(path: directory.url.appendingPathComponent(SQLiteStateStore.fileName).path)
        return try queue.read { try Int.fetchOne($0, sql: "PRAGMA page_size") ?? 0 }
    }

    @Test("a new state: 16,384-byte pages, a poll of 1,000 items stored and read back")
    func fresh() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url)
        let items = StateWriteTests.items(1...1000)
        try await store.commit(StateWriteTests.commit(items), feed: "planet")
        await store.finishWriting()
        #expect(try await store.items(feed: "planet") == items)
        #expect(try Self.pageSize(directory) == 16384)
    }

    @Test("a state whose file was made with 4,096-byte pages (as before) keeps them, and is read and written")
    func existing() async throws {
        let directory = try TemporaryDirectory()
        // The file as an earlier `monitor` left it: SQLite's default page size, every migration applied, a poll's
        // items stored.
        let before = StateWriteTests.items(1...500)
        do {
            let queue = try DatabaseQueue(path: directory.url.appendingPathComponent(SQLiteStateStore.fileName).path)
            try await queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA page_size = 4096")
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try SQLiteSchema.migrator.migrate(queue)
        }
        do {
            let store = try SQLiteStateStore(directory: directory.url)
            try await store.commit(StateWriteTests.commit(before), feed: "planet")
        }
        #expect(try Self.pageSize(directory) == 4096)
        let store = try SQLiteStateStore(directory: directory.url)
        #expect(try await store.items(feed: "planet") == before)
        let after = StateWriteTests.items(101...600)
        let written = try await store.commit(StateWriteTests.commit(after), feed: "planet")
        #expect((written.itemsInserted, written.itemsDeleted) == (100, 100))
        #expect(try await store.items(feed: "planet") == after)
        #expect(try Self.pageSize(directory) == 4096)
    }
}
