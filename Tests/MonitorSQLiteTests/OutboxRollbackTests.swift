import Foundation
import GRDB
import MonitorSQLite
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

@Suite("A poll's commit that fails leaves none of its notifications in the outbox, in SQLite and in PostgreSQL")
struct OutboxRollbackTests {
    static let now = Fixtures.at
    static let later = now.addingTimeInterval(60)

    /// A commit of `rx` polled at `at` with `notifications` and the source values `values`.
    static func commit(_ notifications: [FeedNotification], at: Date, values: [String: String?] = [:]) -> PollCommit {
        var record = FeedRecord(name: "rx", type: "github")
        record.lastPoll = at
        return PollCommit(
            record: record, items: [], firstSeen: at, groups: [], validators: [:], values: values,
            notifications: notifications)
    }

    /// Makes the state refuse to store a notification whose id is `boom`, after the rows written before it in the
    /// same transaction.
    static func refuseBoom(in state: TestState) async throws {
        if let server = state.server, let url = state.url {
            try await server.execute(
                """
                CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'refused by the test'; END $$
                """, database: url.database)
            try await server.execute(
                """
                CREATE TRIGGER refuse_boom AFTER INSERT ON notification FOR EACH ROW WHEN (NEW.id = 'boom')
                EXECUTE FUNCTION refuse_boom()
                """, database: url.database)
        } else if let directory = state.directory {
            let queue = try DatabaseQueue(path: directory.url.appendingPathComponent(SQLiteStateStore.fileName).path)
            try await queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TRIGGER refuse_boom AFTER INSERT ON notification WHEN NEW.id = 'boom'
                        BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                        """)
            }
            try queue.close()
        }
    }

    @Test(
        "the second of two notifications is refused: the first, already written, is rolled back with the poll",
        arguments: StateBackend.databases)
    func failedInsertRollsBack(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        try await store.commit(Self.commit([Fixtures.notification("a")], at: Self.now), feed: "rx")
        try await Self.refuseBoom(in: state)
        await #expect(throws: (any Error).self) {
            try await store.commit(
                Self.commit(
                    [Fixtures.notification("b"), Fixtures.notification("boom")], at: Self.later,
                    values: ["cursor": "c2"]), feed: "rx")
        }
        #expect(try await store.outbox(refused: true).map(\.notification.id) == ["a"])
        #expect(try await store.record(feed: "rx")?.lastPoll == Self.now)
        #expect(try await store.snapshot(feed: "rx").values == [:])
        // Another process opening the state sees the same.
        let other = try await state.open()
        #expect(try await other.outbox(refused: true).map(\.notification.id) == ["a"])
    }

    @Test("PostgreSQL: a NUL in a source value fails the commit; its notification is not in the outbox")
    func nulInValue() async throws {
        let state = try await StateBackend.postgres.makeState()
        let store = try await state.open()
        try await store.commit(Self.commit([Fixtures.notification("a")], at: Self.now), feed: "rx")
        await #expect(throws: (any Error).self) {
            try await store.commit(
                Self.commit([Fixtures.notification("b")], at: Self.later, values: ["cursor": "c\u{0}2"]),
                feed: "rx")
        }
        #expect(try await store.outbox(refused: true).map(\.notification.id) == ["a"])
        #expect(try await store.record(feed: "rx")?.lastPoll == Self.now)
    }

    @Test("SQLite: a read-only state fails the commit; its notification is not in the outbox")
    func readOnly() async throws {
        let state = try await StateBackend.sqlite.makeState()
        let store = try await state.open()
        try await store.commit(Self.commit([Fixtures.notification("a")], at: Self.now), feed: "rx")
        let reader = try #require(try await state.reading())
        await #expect(throws: (any Error).self) {
            try await reader.commit(
                Self.commit([Fixtures.notification("b")], at: Self.later), feed: "rx")
        }
        #expect(try await store.outbox(refused: true).map(\.notification.id) == ["a"])
    }
}
