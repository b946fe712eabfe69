import Foundation
import MonitorItems
import MonitorPostgres
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

/// A commit of feed `planet` (shared by the suites of this target).
func commit(items: [Item], failures: Int, value: String) -> PollCommit {
    var record = FeedRecord(name: "planet", type: "eonet")
    record.status = "ok"
    record.failures = failures
    record.itemCount = items.count
    return PollCommit(
        record: record, items: items, firstSeen: Date(timeIntervalSince1970: 1000),
        groups: [ItemGroup(id: "g", title: "G")],
        validators: [ValidatorKey(url: "http://x/events", credential: ""): Validators(etag: value, lastModified: nil)],
        values: ["cursor": value])
}

@Suite("The PostgreSQL state: its schema, its transactions, its errors", .timeLimit(.minutes(5)))
struct PostgresStateStoreTests {
    @Test("four stores opening a new database at once create the schema once, recorded as versions 1 to 6")
    func schemaOnce() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try await PostgresStateStore.open(url, deadline: .patientDeadline) } }
            try await group.waitForAll()
        }
        #expect(
            try await server.strings("SELECT version || ': ' || name FROM monitor_schema", database: url.database)
                == [
                    "1: feeds, items, group members, groups, validators, source values",
                    "2: feed schedule: due times, back-off, holds and leases",
                    "3: notifications outbox",
                    "4: notifications claimed by one instance",
                    "5: rate budgets shared by every instance using a token",
                    "6: each notifier's queue read through an index, and bounded",
                ])
        #expect(
            try await server.strings(
                "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
                database: url.database)
                == [
                    "feed", "feed_schedule", "item", "item_group", "item_group_member", "monitor_schema",
                    "notification", "notifier", "rate_budget", "rate_budget_flight", "source_value", "validator",
                ])
        // Opening again applies nothing more.
        _ = try await PostgresStateStore.open(url, deadline: .patientDeadline)
        #expect(try await server.strings("SELECT count(*)::text FROM monitor_schema", database: url.database) == ["6"])
    }

    @Test(
        "a database written by a later version of monitor is refused, for writing and for reading, saying so and what to do"
    )
    func laterVersion() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        _ = try await PostgresStateStore.open(url, deadline: .patientDeadline)
        try await server.execute(
            "INSERT INTO monitor_schema (version, name) VALUES (99, 'later')", database: url.database)
        let refused = StateError(
            "\(url) was written by a newer version of monitor (schema version 99; this monitor's is 6): upgrade "
                + "monitor to use it")
        await #expect(throws: refused) { _ = try await PostgresStateStore.open(url, deadline: .patientDeadline) }
        await #expect(throws: refused) { _ = try await PostgresStateStore.reading(url) }
    }

    @Test("a commit that fails half-way (a NUL in a source's value) changes nothing: record, items, validators, values")
    func failedCommit() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let store = try await PostgresStateStore.open(url, deadline: .patientDeadline)
        let items = (1...3).map {
            Item(id: "e\($0)", title: "event \($0)", date: Date(timeIntervalSince1970: Double($0)), groups: ["g"])
        }
        try await store.commit(commit(items: items, failures: 0, value: "1"), feed: "planet")
        let before = try await store.snapshot(feed: "planet")

        // Item ids are cleaned of control characters before they are written; a source's value is not.
        let broken = items.dropLast() + [Item(id: "e4", title: "bad", date: Date(), groups: ["g"])]
        await #expect(throws: StateError("\(url): invalid byte sequence for encoding \"UTF8\": 0x00")) {
            try await store.commit(commit(items: Array(broken), failures: 7, value: "2\u{0}"), feed: "planet")
        }
        let after = try await store.snapshot(feed: "planet")
        #expect(after.record == before.record)
        #expect(after.record?.failures == 0)
        #expect(after.items == items.reversed())
        #expect(after.validators == before.validators)
        #expect(after.values == ["cursor": "1"])
        // The store goes on: the next commit is whole.
        try await store.commit(commit(items: Array(items.dropLast()), failures: 1, value: "3"), feed: "planet")
        #expect(try await store.items(feed: "planet").map(\.id) == ["e2", "e1"])
        #expect(try await store.snapshot(feed: "planet").values == ["cursor": "3"])
    }

    @Test("connections the server ended are replaced: after them, at most one call fails and the next succeeds")
    func serverEndsConnections() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let store = try await PostgresStateStore.open(url, deadline: .patientDeadline)
        try await store.commit(commit(items: [], failures: 0, value: "1"), feed: "planet")
        // As a restart or an administrator would: every other connection to the database is ended (each backend
        // waited for until it is gone).
        try await server.execute(
            """
            SELECT pg_terminate_backend(pid, 60000) FROM pg_stat_activity
            WHERE datname = '\(url.database)' AND backend_type = 'client backend' AND pid <> pg_backend_pid()
            """)
        #expect(
            try await server.strings(
                """
                SELECT count(*)::text FROM pg_stat_activity
                WHERE datname = '\(url.database)' AND backend_type = 'client backend'
                """, database: "postgres") == ["0"])
        // The store's idle connection is dead. Whether the store finds out by the server's last word, by the socket's
        // end, or (an answer that never comes) by the deadline, at most this one call fails, and says where.
        do {
            _ = try await store.records()
        } catch let error as StateError {
            #expect(error.description.hasPrefix("\(url)"))
            #expect(!error.description.contains(PostgresServer.password))
        }
        #expect(try await store.records().map(\.name) == ["planet"])
        #expect(try await store.snapshot(feed: "planet").values == ["cursor": "1"])
    }

    @Test("sslmode: disable is clear; prefer and require encrypt, unchecked; verify-full refuses a self-signed server")
    func tlsModes() async throws {
        let server = try await PostgresServer.forTest()
        guard server.offersTLS else {
            let reason = "skipped: the test server has no certificate (openssl is not installed)"
            FileHandle.standardError.write(Data("⚠️ \(reason)\n".utf8))
            try Test.cancel(Comment(rawValue: reason))
        }
        var encrypted: [PostgresURL.TLSMode: [String]] = [:]
        for mode in [PostgresURL.TLSMode.disable, .prefer, .require] {
            var url = try await server.makeDatabase()
            url.tls = mode
            let store = try await PostgresStateStore.open(url, deadline: .patientDeadline)
            // The store's connection, idle in its pool, seen from the server.
            encrypted[mode] = try await server.strings(
                """
                SELECT ssl::text FROM pg_stat_ssl JOIN pg_stat_activity USING (pid)
                WHERE datname = '\(url.database)'
                """, database: "postgres")
            withExtendedLifetime(store) {}
        }
        #expect(encrypted == [.disable: ["false"], .prefer: ["true"], .require: ["true"]])
        var checked = try await server.makeDatabase()
        checked.tls = .verifyFull
        await #expect(
            throws: StateError(
                "cannot connect to \(checked): the TLS handshake failed (with sslmode=verify-full, the server's "
                    + "certificate must be signed by a trusted authority and name the host)")
        ) { _ = try await PostgresStateStore.open(checked) }
    }

    @Test("a wrong password, a missing database and a closed port are said without the password")
    func connectionErrors() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        var wrong = url
        wrong.password = "not-the-secret"
        let login = StateError(
            "cannot log in to postgres://monitor@127.0.0.1:\(server.port)/\(url.database): "
                + "password authentication failed for user \"monitor\"")
        await #expect(throws: login) { _ = try await PostgresStateStore.open(wrong) }
        await #expect(throws: login) { _ = try await PostgresStateStore.reading(wrong) }

        var missing = url
        missing.database = "nowhere"
        await #expect(
            throws: StateError(
                "cannot open postgres://monitor@127.0.0.1:\(server.port)/nowhere: database \"nowhere\" does not exist")
        ) { _ = try await PostgresStateStore.open(missing) }

        // A port held refusing (one that was freed could be given to another test's server meanwhile).
        let refusing = try #require(RefusingPort())
        defer { refusing.close() }
        let closed = try PostgresURL(parsing: "postgres://monitor:secret@127.0.0.1:\(refusing.number)/feeds")
        let refused = StateError.unreachable("cannot connect to \(closed): connection refused")
        await #expect(throws: refused) { _ = try await PostgresStateStore.open(closed) }
        await #expect(throws: refused) { _ = try await PostgresStateStore.reading(closed) }
    }
}
