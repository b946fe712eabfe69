import Foundation
import GRDB
import MonitorItems
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorSQLite

@Suite("A commit with the items' stored form prepared during the poll writes exactly what one without it writes")
struct PreparedCommitTests {
    /// `items` prepared as a poll prepares them, batch by batch.
    static func prepared(_ batches: [[Item]]) -> PreparedItems {
        var prepared = PreparedItems()
        for batch in batches { prepared.add(batch) }
        return prepared
    }

    static func commit(_ items: [Item], prepared: PreparedItems) -> PollCommit {
        var commit = StateWriteTests.commit(items)
        commit.prepared = prepared
        return commit
    }

    @Test(
        "rows written and items stored: a first poll of 5,000 prepared in batches, the same again, 10 new",
        arguments: StateBackend.databases)
    func sameRows(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let items = StateWriteTests.items(1...5000)
        // Three batches, as three categories' answers would come, in an order other than the commit's.
        let prepared = Self.prepared([
            Array(items[3000...]), Array(items[..<1000]), Array(items[1000..<3000]),
        ])
        #expect(prepared.count == 5000)
        let first = try await store.commit(Self.commit(items, prepared: prepared), feed: "planet")
        var expected = CommitStatistics()
        expected.itemsInserted = 5000
        expected.memberRows = 6000
        expected.groupRows = 3
        expected.validatorRows = 1
        expected.valueRows = 1
        expected.recordRows = 1
        #expect(first == expected)
        #expect(first.rows == 11_006)
        #expect(try await store.items(feed: "planet") == items)

        let same = try await store.commit(Self.commit(items, prepared: prepared), feed: "planet")
        #expect(same.rows == 1)
        #expect(same.recordRows == 1)

        let newer = StateWriteTests.items(11...5010)
        let fresh = try await store.commit(
            Self.commit(newer, prepared: Self.prepared([Array(newer[..<10])])), feed: "planet")
        #expect(fresh.itemsInserted == 10)
        #expect(fresh.itemsDeleted == 10)
        #expect(fresh.itemsUpdated == 0)
        #expect(fresh.memberRows == 24)
        #expect(try await store.items(feed: "planet") == newer)
    }

    @Test(
        "a prepared item that is not the one committed (replaced later in the poll) is not used: the committed item is stored, cleaned",
        arguments: StateBackend.databases)
    func staleEntries(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let items = StateWriteTests.items(1...10)
        try await store.commit(StateWriteTests.commit(items), feed: "planet")

        // The poll prepared an earlier version of e5 and e7 (a later batch replaced them), nothing of e9, and e3 as
        // committed; the commit stores what it is given.
        var committed = items
        let e5 = committed.firstIndex { $0.id == "e5" }!
        let e7 = committed.firstIndex { $0.id == "e7" }!
        committed[e5].title = "e5\u{1B}[31m renamed"
        committed[e7].details = [Detail("status", "closed")]
        var earlier5 = committed[e5]
        earlier5.title = "e5 as first found"
        var earlier7 = committed[e7]
        earlier7.details = [Detail("status", "open")]
        let e3 = committed.first { $0.id == "e3" }!
        let prepared = Self.prepared([[earlier5, earlier7, e3]])
        #expect(prepared.count == 3)

        let changed = try await store.commit(Self.commit(committed, prepared: prepared), feed: "planet")
        #expect(changed.itemsUpdated == 2)
        #expect(changed.itemsInserted == 0)
        #expect(changed.itemsDeleted == 0)
        let stored = try await store.items(feed: "planet")
        #expect(stored.first { $0.id == "e5" }?.title == "e5 renamed")
        #expect(stored.first { $0.id == "e7" }?.details == [Detail("status", "closed")])
        var expected = committed
        expected[e5].title = "e5 renamed"
        #expect(stored == expected)
        // And the same items again, prepared or not, write only the record.
        #expect(try await store.commit(StateWriteTests.commit(committed), feed: "planet").rows == 1)
    }

    @Test(
        "a large batch prepared in slices at once is prepared exactly as in one piece: same entries, a later item of an id replacing an earlier one",
        arguments: [1, 2, 3, 8])
    func slices(parts: Int) async throws {
        // 2,000 items with control characters in some titles, and e7 met again at the end with another title.
        var items = StateWriteTests.items(1...2000)
        for index in stride(from: 0, to: items.count, by: 3) { items[index].title += "\u{1B}[31m" }
        var again = StateWriteTests.item(7)
        again.title = "e7 met again"
        items.append(again)
        let whole = Self.prepared([items])
        var sliced = PreparedItems()
        await sliced.add(items, parts: parts)
        #expect(sliced.count == 2000)
        #expect(sliced.count == whole.count)
        for item in items {
            let (stored, packed) = sliced.stored(item)
            let (expected, expectedPacked) = whole.stored(item)
            #expect(stored == expected)
            #expect(packed.fingerprint == expectedPacked.fingerprint)
            #expect(packed.groups == expectedPacked.groups)
            #expect(packed.details == expectedPacked.details)
        }
        // The later e7 is the one prepared, in slices as in one piece.
        #expect(sliced.stored(again).item.title == "e7 met again")
        #expect(sliced.stored(again).packed.fingerprint == whole.stored(again).packed.fingerprint)
        // And a commit of them writes the same rows as one of the batch prepared in one piece.
        let state = try await StateBackend.sqlite.makeState()
        let store = try await state.open()
        let committed = Array(items.dropLast())
        let statistics = try await store.commit(Self.commit(committed, prepared: sliced), feed: "planet")
        #expect(statistics.itemsInserted == 2000)
        #expect(statistics.memberRows == StateWriteTests.members(1...2000))
        #expect(try await store.items(feed: "planet") == committed.map(StoredItem.storable))
    }

    @Test(
        "a prepared item whose texts are the committed item's in another Unicode spelling is not used: the committed bytes are stored"
    )
    func otherSpelling() async throws {
        // "é" precomposed in what was prepared, "e" + U+0301 in what is committed: equal as Swift strings, not as bytes.
        let prepared = Item(
            id: "a", title: "Caf\u{E9}", date: Date(timeIntervalSince1970: 1), groups: ["g\u{E9}"],
            url: "https://x.test/caf\u{E9}", details: [Detail("status", "ferm\u{E9}")])
        for field in ["title", "group", "url", "detail"] {
            var committed = prepared
            switch field {
            case "title": committed.title = "Cafe\u{301}"
            case "group": committed.groups = ["ge\u{301}"]
            case "url": committed.url = "https://x.test/cafe\u{301}"
            default: committed.details = [Detail("status", "ferme\u{301}")]
            }
            #expect(committed == prepared)
            let (stored, packed) = Self.prepared([[prepared]]).stored(committed)
            #expect(Array(stored.title.utf8) == Array(committed.title.utf8), "\(field)")
            #expect(stored.groups.map { Array($0.utf8) } == committed.groups.map { Array($0.utf8) }, "\(field)")
            #expect(stored.url.map { Array($0.utf8) } == committed.url.map { Array($0.utf8) }, "\(field)")
            #expect(Array(stored.details[0].value.utf8) == Array(committed.details[0].value.utf8), "\(field)")
            #expect(packed.fingerprint == StoredItem(committed).fingerprint, "\(field)")
            #expect(packed.fingerprint != StoredItem(prepared).fingerprint, "\(field)")
        }
        // The same item, its texts copies of the prepared ones, is the one prepared.
        let copy = prepared
        #expect(Self.prepared([[prepared]]).stored(copy).packed.fingerprint == StoredItem(prepared).fingerprint)
    }

    @Test(
        "a prepared item that differs from the committed one only in its position or magnitude is not used: the committed numbers are stored"
    )
    func otherNumbers() throws {
        let prepared = Item(
            id: "a", title: "Storm", date: Date(timeIntervalSince1970: 1), groups: ["storms"],
            details: [Detail("status", "open")], location: Item.Position(latitude: 14.4, longitude: -99.4),
            magnitude: Item.Magnitude(value: 45, unit: "kts"))
        let changes: [(String, Item.Position?, Item.Magnitude?)] = [
            ("latitude", Item.Position(latitude: 14.5, longitude: -99.4), prepared.magnitude),
            ("longitude", Item.Position(latitude: 14.4, longitude: -99.5), prepared.magnitude),
            ("no position", nil, prepared.magnitude),
            ("magnitude", prepared.location, Item.Magnitude(value: 50, unit: "kts")),
            ("unit", prepared.location, Item.Magnitude(value: 45, unit: "kn")),
            ("no unit", prepared.location, Item.Magnitude(value: 45, unit: nil)),
            ("no magnitude", prepared.location, nil),
        ]
        for (change, location, magnitude) in changes {
            var committed = prepared
            committed.location = location
            committed.magnitude = magnitude
            let (stored, packed) = Self.prepared([[prepared]]).stored(committed)
            #expect(stored == committed, "\(change)")
            #expect(packed.details == StoredItem(committed).details, "\(change)")
            #expect(packed.fingerprint == StoredItem(committed).fingerprint, "\(change)")
            #expect(packed.fingerprint != StoredItem(prepared).fingerprint, "\(change)")
        }
        // The same numbers are the item prepared.
        let copy = prepared
        #expect(Self.prepared([[prepared]]).stored(copy).packed.details == StoredItem(prepared).details)
    }

    @Test(
        "the stored form is the one states already hold: fingerprints and packed texts as written before, control characters removed only where there are some"
    )
    func storedFormUnchanged() {
        // Fingerprints worked out apart (64-bit FNV-1a of the title, the date's bits, the packed groups, the URL and
        // the packed details, each text ended by 0xFF): a different value would make every stored item be rewritten.
        let odd = Item(
            id: "EONET_1", title: "Caf\u{E9} \u{1B}[31mfire", date: Date(timeIntervalSince1970: 1_756_000_000.5),
            groups: ["wildfires", "g\u{1F}x\u{1A}"], url: "https://x.test/\u{E9}",
            details: [Detail("status", "open"), Detail("position", "lat 1.5, lon -2")])
        #expect(StoredItem(odd).fingerprint == 8_631_861_957_857_726_546)
        #expect(StoredItem(odd).groups == "wildfires\u{1F}g\u{1A}\u{01}x\u{1A}\u{02}\u{1F}")
        let plain = Item(
            id: "EONET_2", title: "Plain title", date: Date(timeIntervalSince1970: 1_756_000_000.5), groups: ["snow"],
            details: [Detail("status", "closed")])
        #expect(StoredItem(plain).fingerprint == 5_511_966_243_757_361_230)
        #expect(StoredItem(plain).details == "status\u{1F}closed\u{1F}")
        var escaped = plain
        escaped.details = [Detail("a\u{1F}", "b\u{1A}c"), Detail("", "\u{E9}")]
        #expect(StoredItem(escaped).details == "a\u{1A}\u{01}\u{1F}b\u{1A}\u{02}c\u{1F}\u{1F}\u{E9}\u{1F}")

        #expect(StoredItem.storable(plain) == plain)
        let cleaned = StoredItem.storable(odd)
        #expect(cleaned.title == "Caf\u{E9} fire")
        #expect(cleaned.groups == ["wildfires", "gx"])
        #expect(cleaned.id == odd.id && cleaned.url == odd.url && cleaned.details == odd.details)
        var tabbed = plain
        tabbed.details = [Detail("status", "closed"), Detail("description", "a\tb\nc\u{7}")]
        #expect(StoredItem.storable(tabbed).details == [Detail("status", "closed"), Detail("description", "a b c")])
    }

    @Test("an item whose id has control characters is prepared under the id the state stores")
    func controlCharactersInIDs() {
        let item = Item(id: "\u{1B}[2Ja-1", title: "t", date: Date(timeIntervalSince1970: 1), groups: ["g\u{07}"])
        let prepared = Self.prepared([[item]])
        var asTallied = item
        asTallied.id = "a-1"
        let (stored, packed) = prepared.stored(asTallied)
        #expect(stored.id == "a-1")
        #expect(stored.groups == ["g"])
        #expect(packed.fingerprint == StoredItem(StoredItem.storable(asTallied)).fingerprint)
        #expect(packed.groups == StoredItem.pack(["g"]))
    }
}

@Suite("A fresh SQLite state")
struct FreshStateTests {
    /// `sqlite_master` of the database file in `directory`, read on a connection of its own.
    static func schema(_ directory: URL) throws -> [[String?]] {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(SQLiteStateStore.fileName).path)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
                .map { [$0[0], $0[1], $0[2], $0[3]] }
        }
    }

    @Test(
        "created without waiting for the disk, it has the schema and migrations of one made over an empty file, WAL, synchronous NORMAL"
    )
    func sameSchema() async throws {
        let fresh = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: fresh.url)
        #expect(try await store.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 1)
        #expect(try await store.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        try await store.commit(StateWriteTests.commit(StateWriteTests.items(1...3)), feed: "planet")

        // The other path: the file exists (empty) before the state opens it, so it is not taken as fresh.
        let existing = try TemporaryDirectory()
        #expect(
            FileManager.default.createFile(
                atPath: existing.url.appendingPathComponent(SQLiteStateStore.fileName).path, contents: Data()))
        let other = try SQLiteStateStore(directory: existing.url)
        #expect(try await other.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 1)

        let schema = try Self.schema(fresh.url)
        #expect(schema == (try Self.schema(existing.url)))
        #expect(schema.map { $0[1] ?? "" }.contains("item"))
        #expect(schema.map { $0[1] ?? "" }.contains("itemGroupMember_by_date"))
        let migrations = { (directory: URL) throws -> [String] in
            try DatabaseQueue(path: directory.appendingPathComponent(SQLiteStateStore.fileName).path).read {
                try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
            }
        }
        #expect(try migrations(fresh.url).count == 5)
        #expect(try migrations(fresh.url) == migrations(existing.url))
        // A fresh state opened again is no longer fresh: it keeps its items.
        let reopened = try SQLiteStateStore(directory: fresh.url)
        #expect(try await reopened.items(feed: "planet") == StateWriteTests.items(1...3))
        _ = other
        _ = store
    }
}
