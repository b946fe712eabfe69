import Foundation
import GRDB
import MonitorItems
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorSQLite

@Suite(
    "The state (SQLite and PostgreSQL): a commit writes only what changed, reads go through the indexes, v1 files migrate"
)
struct StateWriteTests {
    /// Item `number`: dated `number` minutes after the epoch, in group `g(number % 3)`, and every fifth also in `five`.
    static func item(_ number: Int, title: String? = nil) -> Item {
        Item(
            id: "e\(number)", title: title ?? "event \(number)", date: Date(timeIntervalSince1970: Double(number) * 60),
            groups: number % 5 == 0 ? ["g\(number % 3)", "five"] : ["g\(number % 3)"],
            url: number % 2 == 0 ? "https://example.org/\(number)" : nil,
            details: [Detail("status", number % 7 == 0 ? "closed" : "open"), Detail("magnitude", "\(number) acres")])
    }

    /// The items numbered `numbers`, newest first, as the poll runner commits them.
    static func items(_ numbers: ClosedRange<Int>) -> [Item] { numbers.reversed().map { item($0) } }

    /// The number of group memberships of the items numbered `numbers`.
    static func members(_ numbers: ClosedRange<Int>) -> Int { numbers.reduce(0) { $0 + item($1).groups.count } }

    static func commit(_ items: [Item], groups: [ItemGroup] = catalog, etag: String = "\"1\"") -> PollCommit {
        var record = FeedRecord(name: "planet", type: "eonet")
        record.status = "ok"
        record.itemCount = items.count
        return PollCommit(
            record: record, items: items, firstSeen: Date(timeIntervalSince1970: 1_000_000), groups: groups,
            validators: [
                ValidatorKey(url: "http://x/events", credential: ""): Validators(etag: etag, lastModified: nil)
            ],
            values: ["cursor": "1"])
    }

    static let catalog = [
        ItemGroup(id: "g0", title: "Zero"), ItemGroup(id: "g1", title: "One"), ItemGroup(id: "g2", title: "Two"),
    ]

    @Test(
        "rows written: a first poll of 5,000, the same 5,000 again, then 10 new with the oldest 10 dropped",
        arguments: StateBackend.databases)
    func rowsWritten(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()

        // (a) A first poll: every item, every membership, the catalog, the validator, the value and the record.
        let first = try await store.commit(Self.commit(Self.items(1...5000)), feed: "planet")
        var expected = CommitStatistics()
        expected.itemsInserted = 5000
        expected.memberRows = Self.members(1...5000)
        expected.groupRows = 3
        expected.validatorRows = 1
        expected.valueRows = 1
        expected.recordRows = 1
        #expect(first == expected)
        #expect(first.memberRows == 6000)
        #expect(try await store.items(feed: "planet") == Self.items(1...5000))
        #expect(
            try await store.items(feed: "planet", group: "five").map(\.id) == (0..<1000).map { "e\(5000 - 5 * $0)" })

        // (b) The same items again: only the record (it holds the time of the poll).
        let same = try await store.commit(Self.commit(Self.items(1...5000)), feed: "planet")
        expected = CommitStatistics()
        expected.recordRows = 1
        #expect(same == expected)
        #expect(same.rows == 1)

        // (c) 10 new events, kept to the newest 5,000: 10 inserted, the oldest 10 deleted, their memberships.
        let newer = try await store.commit(Self.commit(Self.items(11...5010)), feed: "planet")
        expected = CommitStatistics()
        expected.itemsInserted = 10
        expected.itemsDeleted = 10
        expected.memberRows = Self.members(5001...5010) + Self.members(1...10)
        expected.recordRows = 1
        #expect(newer == expected)
        #expect(newer.itemRows == 20)
        #expect(newer.memberRows == 24)

        #expect(try await store.items(feed: "planet") == Self.items(11...5010))
        #expect(
            try await store.items(feed: "planet", group: "five").map(\.id) == (0..<1000).map { "e\(5010 - 5 * $0)" })
    }

    @Test(
        "a first poll's new items go in several rows per statement: every count around a full batch is stored whole",
        arguments: [
            1, RowBatch.rowsPerStatement - 1, RowBatch.rowsPerStatement, RowBatch.rowsPerStatement + 1,
            2 * RowBatch.rowsPerStatement + 3,
        ])
    func batchedInserts(count: Int) async throws {
        let state = try await StateBackend.sqlite.makeState()
        let store = try await state.open()
        let items = Self.items(1...count)
        let first = try await store.commit(Self.commit(items), feed: "planet")
        #expect(first.itemsInserted == count)
        #expect(first.memberRows == Self.members(1...count))
        #expect(try await store.items(feed: "planet") == items)
        for group in ["g0", "g1", "g2", "five"] {
            #expect(
                try await store.items(feed: "planet", group: group).map(\.id)
                    == items.filter { $0.groups.contains(group) }.map(\.id))
        }
        // An id met twice in one poll (the second one wins) is one row, whichever batch held the first.
        var twice = Self.items(1...count)
        twice.append(Self.item(count, title: "again"))
        let again = try await store.commit(Self.commit(twice), feed: "other")
        #expect(again.itemsInserted == count)
        #expect(again.itemsUpdated == 1)
        #expect(try await store.items(feed: "other").first { $0.id == "e\(count)" }?.title == "again")
        #expect(try await store.items(feed: "other").count == count)
    }

    @Test("a changed item, catalog, validator or value is rewritten alone", arguments: StateBackend.databases)
    func changes(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        try await store.commit(Self.commit(Self.items(1...100)), feed: "planet")

        var items = Self.items(1...100)
        items[10].title = "renamed"  // e90: groups g0 and five
        items[20].details[0].value = "closed"  // e80: groups g2 and five
        let renamedCatalog = [Self.catalog[0], ItemGroup(id: "g1", title: "Uno"), ItemGroup(id: "g3", title: "New")]
        let changed = try await store.commit(
            Self.commit(items, groups: renamedCatalog, etag: "\"2\""), feed: "planet")
        var expected = CommitStatistics()
        expected.itemsUpdated = 2
        expected.memberRows = 2 * 2 + 2 * 2  // each updated item's memberships deleted and inserted again
        expected.groupRows = 3  // g1 renamed, g3 added, g2 deleted
        expected.validatorRows = 1
        expected.recordRows = 1
        #expect(changed == expected)
        #expect(try await store.items(feed: "planet") == items)
        #expect(try await store.groups(feed: "planet") == renamedCatalog)
        #expect(try await store.snapshot(feed: "planet").validators.values.first?.etag == "\"2\"")

        // A source value removed, an empty validator deleting the stored one: one row each.
        var record = FeedRecord(name: "planet", type: "eonet")
        record.status = "not_modified"
        let removal = try await store.commit(
            PollCommit(
                record: record, items: nil, firstSeen: Date(), groups: nil,
                validators: [
                    ValidatorKey(url: "http://x/events", credential: ""): Validators(etag: nil, lastModified: nil)
                ],
                values: ["cursor": nil, "never-stored": nil]),
            feed: "planet")
        expected = CommitStatistics()
        expected.validatorRows = 1
        expected.valueRows = 1
        expected.recordRows = 1
        #expect(removal == expected)
        let snapshot = try await store.snapshot(feed: "planet")
        #expect(snapshot.validators.isEmpty)
        #expect(snapshot.values.isEmpty)
        #expect(snapshot.items == items)
    }

    @Test(
        "forgetting a feed removes its record, items, memberships, catalog, validators and values, and nothing else",
        arguments: StateBackend.allCases)
    func forget(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        for feed in ["planet", "other"] {
            var commit = Self.commit(Self.items(1...100))
            commit.record.name = feed
            try await store.commit(commit, feed: feed)
        }
        let other = try await store.snapshot(feed: "other")

        try await store.forget(feed: "planet")
        #expect(try await store.record(feed: "planet") == nil)
        #expect(try await store.feedNames() == ["other"])
        let forgotten = try await store.snapshot(feed: "planet")
        #expect(forgotten.items.isEmpty && forgotten.groups.isEmpty)
        #expect(forgotten.validators.isEmpty && forgotten.values.isEmpty)
        #expect(try await store.items(feed: "planet", group: "g1").isEmpty)
        let kept = try await store.snapshot(feed: "other")
        #expect(kept.record == other.record && kept.items == other.items && kept.groups == other.groups)
        #expect(kept.validators == other.validators && kept.values == other.values && kept.items.count == 100)
        // Polled again, it starts afresh: every row written anew, as for a feed never polled (rows counted by a database).
        guard backend != .memory else { return }
        let again = try await store.commit(Self.commit(Self.items(1...100)), feed: "planet")
        #expect(again.itemsInserted == 100)
        #expect(again.memberRows == Self.members(1...100))
        #expect(again.groupRows == 3 && again.validatorRows == 1 && again.valueRows == 1)
    }

    @Test(
        "the packing keeps separators and escapes; the store removes control characters and reads back the rest",
        arguments: StateBackend.allCases)
    func packing(backend: StateBackend) async throws {
        // The packed form itself round-trips any text, its own separator and escape bytes included.
        let elements = ["a\u{1F}b", "", "\u{1A}\u{01}", "\u{1A}", "é🙂", "x\u{1A}\u{02}\u{1F}"]
        #expect(StoredItem.unpack(StoredItem.pack(elements)) == elements)

        let state = try await backend.makeState()
        let store = try await state.open()
        let odd = [
            Item(
                id: "odd", title: "t", date: Date(timeIntervalSince1970: 5),
                groups: ["a\u{1F}b", "", "\u{1A}\u{01}", "\u{1A}", "é🙂"],
                details: [Detail("x\u{1A}", "\u{1F}"), Detail("", ""), Detail("name", "v\u{1A}\u{02}\u{1F}")]),
            Item(id: "none", title: "", date: Date(timeIntervalSince1970: 4), groups: [], details: []),
            Item(id: "one-empty", title: "", date: Date(timeIntervalSince1970: 3), groups: [""], details: []),
        ]
        try await store.commit(Self.commit(odd), feed: "planet")
        // Control characters are removed before storing (issue #10 item 8); what is stored reads back whole.
        let stored = [
            Item(
                id: "odd", title: "t", date: Date(timeIntervalSince1970: 5), groups: ["ab", "", "", "", "é🙂"],
                details: [Detail("x", ""), Detail("", ""), Detail("name", "v")]),
            odd[1], odd[2],
        ]
        #expect(try await store.items(feed: "planet") == stored)
        #expect(try await store.items(feed: "planet", group: "ab").map(\.id) == ["odd"])
        #expect(try await store.items(feed: "planet", group: "").map(\.id) == ["odd", "one-empty"])
        #expect(try await store.commit(Self.commit(odd), feed: "planet").itemRows == 0)
    }

    @Test(
        "--limit, --group and --days are answered in the order newest first, ties by id descending",
        arguments: StateBackend.databases)
    func queries(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let day: Double = 86_400
        func make(_ id: String, _ days: Double, _ groups: [String]) -> Item {
            Item(id: id, title: id, date: Date(timeIntervalSince1970: 100 * day - days * day), groups: groups)
        }
        // b, a and c share a date; so do e and d.
        let items = [
            make("b", 1, ["fires"]), make("c", 1, ["storms"]), make("a", 1, ["fires", "storms"]),
            make("e", 5, ["fires"]), make("d", 5, ["fires"]), make("f", 40, ["fires"]),
        ]
        try await store.commit(Self.commit(items), feed: "planet")
        let since = Date(timeIntervalSince1970: 100 * day - 30 * day)
        #expect(try await store.items(feed: "planet").map(\.id) == ["c", "b", "a", "e", "d", "f"])
        #expect(try await store.items(feed: "planet", limit: 2).map(\.id) == ["c", "b"])
        #expect(try await store.items(feed: "planet", limit: 4).map(\.id) == ["c", "b", "a", "e"])
        #expect(try await store.items(feed: "planet", group: "fires").map(\.id) == ["b", "a", "e", "d", "f"])
        #expect(try await store.items(feed: "planet", group: "fires", limit: 3).map(\.id) == ["b", "a", "e"])
        #expect(try await store.items(feed: "planet", group: "storms").map(\.id) == ["c", "a"])
        #expect(try await store.items(feed: "planet", since: since).map(\.id) == ["c", "b", "a", "e", "d"])
        #expect(
            try await store.items(feed: "planet", group: "fires", since: since, limit: 3).map(\.id) == ["b", "a", "e"])
        #expect(try await store.items(feed: "planet", group: "floods").isEmpty)
        #expect(try await store.items(feed: "other").isEmpty)
        // Each is one index range, read in order: SQLite needs no sort (no "USE TEMP B-TREE FOR ORDER BY").
        let columns = "id, title, date, groups, url, details"
        guard let directory = state.directory else {
            // PostgreSQL: an index scan in the order asked, no Sort node (sequential scans off, as the tables are tiny).
            let server = try #require(state.server)
            let database = try #require(state.url).database
            let plans = try await [
                "SELECT \(columns) FROM item WHERE feed = 'planet' AND date >= 1 ORDER BY date DESC, id DESC LIMIT 20",
                """
                SELECT \(columns.split(separator: ", ").map { "item.\($0)" }.joined(separator: ", "))
                FROM item_group_member AS member JOIN item ON item.feed = member.feed AND item.id = member.id
                WHERE member.feed = 'planet' AND member.group_id = 'fires' AND member.date >= 1
                ORDER BY member.date DESC, member.id DESC LIMIT 20
                """,
            ].asyncMap { sql in
                try await server.strings(
                    "EXPLAIN (COSTS OFF) " + sql, database: database, setup: ["SET enable_seqscan = off"]
                ).map { $0.trimmingCharacters(in: .whitespaces) }
            }
            for plan in plans { #expect(!plan.contains { $0.contains("Sort") }, "\(plan)") }
            #expect(plans[0].contains("->  Index Scan using item_by_date on item"), "\(plans[0])")
            #expect(
                plans[1].contains {
                    $0.contains("Index Only Scan using item_group_member_by_date on item_group_member member")
                },
                "\(plans[1])")
            return
        }
        let plans = try await DatabaseQueue(path: directory.url.appendingPathComponent(SQLiteStateStore.fileName).path)
            .read {
                db in
                try [
                    "SELECT \(columns) FROM item WHERE feed = 'planet' AND date >= 1 ORDER BY date DESC, id DESC LIMIT 20",
                    """
                    SELECT \(columns.split(separator: ", ").map { "item.\($0)" }.joined(separator: ", "))
                    FROM itemGroupMember AS member JOIN item ON item.feed = member.feed AND item.id = member.id
                    WHERE member.feed = 'planet' AND member.groupId = 'fires' AND member.date >= 1
                    ORDER BY member.date DESC, member.id DESC LIMIT 20
                    """,
                ].map { sql in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String } }
            }
        #expect(plans[0] == ["SEARCH item USING INDEX item_by_date (feed=? AND date>?)"])
        #expect(
            plans[1] == [
                "SEARCH member USING COVERING INDEX itemGroupMember_by_date (feed=? AND groupId=? AND date>?)",
                "SEARCH item USING INDEX sqlite_autoindex_item_1 (feed=? AND id=?)",
            ])
    }

    @Test("a v1 state file migrates to v2 and keeps its items, record, catalog, validators and values")
    func migration() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent(SQLiteStateStore.fileName).path
        // The v1 schema and rows, as the v1 store wrote them (JSON groups and details).
        try await DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1');
                    CREATE TABLE feed (
                        name TEXT PRIMARY KEY NOT NULL, type TEXT NOT NULL, status TEXT, lastPoll DOUBLE,
                        lastSuccess DOUBLE, lastNew DOUBLE, lastError TEXT, failures INTEGER NOT NULL DEFAULT 0,
                        notBefore DOUBLE, minimumInterval DOUBLE, rateLimit TEXT, itemCount INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE item (
                        feed TEXT NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL, date DOUBLE NOT NULL,
                        groups TEXT NOT NULL, url TEXT, details TEXT NOT NULL, firstSeen DOUBLE NOT NULL,
                        PRIMARY KEY (feed, id));
                    CREATE INDEX item_by_date ON item (feed, date DESC);
                    CREATE TABLE validator (
                        feed TEXT NOT NULL, url TEXT NOT NULL, credential TEXT NOT NULL, etag TEXT, lastModified TEXT,
                        PRIMARY KEY (feed, url, credential));
                    CREATE TABLE itemGroup (
                        feed TEXT NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL, position INTEGER NOT NULL,
                        PRIMARY KEY (feed, id));
                    CREATE TABLE sourceValue (
                        feed TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (feed, key));
                    INSERT INTO feed VALUES ('planet', 'eonet', 'ok', 1000, 1000, 900, NULL, 0, NULL, NULL,
                        '{"limit":60,"remaining":59}', 3);
                    INSERT INTO item VALUES
                        ('planet', 'EONET_1', 'Fire &amp; smoke', 300, '["wildfires"]', 'https://e/1',
                         '[{"name":"status","value":"open"},{"name":"magnitude","value":"5 acres"}]', 111),
                        ('planet', 'EONET_2', 'Storm "Ana"', 200, '["severeStorms","floods"]', NULL, '[]', 222),
                        ('planet', 'EONET_3', 'Broken row', 100, 'not json', NULL, '[{', 333);
                    INSERT INTO itemGroup VALUES ('planet', 'wildfires', 'Wildfires', 0),
                        ('planet', 'severeStorms', 'Severe Storms', 1);
                    INSERT INTO validator VALUES ('planet', 'https://e/events', '', 'W/"1"', NULL);
                    INSERT INTO sourceValue VALUES ('planet', 'k', 'v');
                    """)
        }
        let store = try SQLiteStateStore(directory: directory.url)
        let expected = [
            Item(
                id: "EONET_1", title: "Fire &amp; smoke", date: Date(timeIntervalSince1970: 300), groups: ["wildfires"],
                url: "https://e/1", details: [Detail("status", "open"), Detail("magnitude", "5 acres")]),
            Item(
                id: "EONET_2", title: "Storm \"Ana\"", date: Date(timeIntervalSince1970: 200),
                groups: ["severeStorms", "floods"]),
            // A row whose JSON did not decode keeps its other fields.
            Item(id: "EONET_3", title: "Broken row", date: Date(timeIntervalSince1970: 100), groups: []),
        ]
        #expect(try await store.items(feed: "planet") == expected)
        #expect(try await store.items(feed: "planet", group: "floods").map(\.id) == ["EONET_2"])
        let snapshot = try await store.snapshot(feed: "planet")
        #expect(snapshot.record?.itemCount == 3)
        #expect(snapshot.record?.lastNew == Date(timeIntervalSince1970: 900))
        #expect(snapshot.record?.rateLimit?.remaining == 59)
        #expect(snapshot.groups.map(\.title) == ["Wildfires", "Severe Storms"])
        #expect(snapshot.validators.values.map(\.etag) == ["W/\"1\""])
        #expect(snapshot.values == ["k": "v"])
        let firstSeen = try await DatabaseQueue(path: path).read { db in
            try Double.fetchAll(db, sql: "SELECT firstSeen FROM item ORDER BY id")
        }
        #expect(firstSeen == [111, 222, 333])

        // The migrated fingerprints match: the same items again write no item row.
        var record = FeedRecord(name: "planet", type: "eonet")
        record.itemCount = 3
        let again = try await store.commit(
            PollCommit(
                record: record, items: expected, firstSeen: Date(), groups: nil, validators: [:], values: [:]),
            feed: "planet")
        #expect(again.rows == 1)
        // Opening it again migrates nothing more.
        #expect(try await SQLiteStateStore(directory: directory.url).items(feed: "planet") == expected)
    }
}
