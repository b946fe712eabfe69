import Foundation
import MonitorItems
import MonitorSQLite
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

@Suite("The state, in SQLite and in PostgreSQL")
struct StateStoreTests {
    func commit(_ feed: String, items: Int, round: Int) -> PollCommit {
        var record = FeedRecord(name: feed, type: "test")
        record.status = "ok"
        record.itemCount = items
        record.failures = round
        let list = (0..<items).map {
            Item(
                id: "\(feed)-\($0)", title: "round \(round)", date: Date(timeIntervalSince1970: Double($0)),
                groups: ["g"])
        }
        return PollCommit(
            record: record, items: list, firstSeen: Date(), groups: [ItemGroup(id: "g", title: "G")],
            validators: [
                ValidatorKey(url: "http://x/\(feed)", credential: ""): Validators(
                    etag: "\"\(round)\"", lastModified: nil)
            ],
            values: ["round": "\(round)"])
    }

    @Test(
        "two stores on the same state (as two monitor processes) write concurrently without corrupting it",
        arguments: StateBackend.allCases)
    func twoWriters(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let first = try await state.open()
        let second = try await state.open()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (store, feed) in [(first, "a"), (second, "b"), (first, "c"), (second, "a")] {
                group.addTask {
                    for round in 1...25 { try await store.commit(commit(feed, items: 40, round: round), feed: feed) }
                }
            }
            try await group.waitForAll()
        }
        let reader = try await state.open()
        for feed in ["a", "b", "c"] {
            let snapshot = try await reader.snapshot(feed: feed)
            // Every commit is whole: 40 items all of one round, and the record, validators and values of that round.
            #expect(snapshot.items.count == 40)
            #expect(Set(snapshot.items.map(\.title)).count == 1)
            let round = try #require(snapshot.values["round"])
            #expect(snapshot.items.first?.title == "round \(round)")
            #expect(snapshot.record?.failures == Int(round))
            #expect(snapshot.validators.values.first?.etag == "\"\(round)\"")
        }
        #expect(try await reader.records().map(\.name) == ["a", "b", "c"])
    }

    @Test(
        "control characters are removed from what is stored, and what is stored reads back whole",
        arguments: StateBackend.allCases)
    func controlCharacters(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        var record = FeedRecord(name: "planet", type: "eonet")
        record.status = "ok"
        let item = Item(
            id: "EONET_1", title: "nul\u{0}byte and\nbreak \u{1B}[31mred", date: Date(timeIntervalSince1970: 1),
            groups: ["wild\u{0}fires"], url: "https://x.example/\u{0}a\u{7}",
            details: [Detail("status", "open\u{0}ed"), Detail("position", "1.5, \u{0}2.5")])
        try await store.commit(
            PollCommit(
                record: record, items: [item], firstSeen: Date(),
                groups: [ItemGroup(id: "wild\u{0}fires", title: "Wild\u{0}fires")], validators: [:], values: [:]),
            feed: "planet")
        let reader = try #require(try await state.reading())
        let snapshot = try await reader.snapshot(feed: "planet")
        #expect(
            snapshot.items == [
                Item(
                    id: "EONET_1", title: "nulbyte and break red", date: Date(timeIntervalSince1970: 1),
                    groups: ["wildfires"], url: "https://x.example/a",
                    details: [Detail("status", "opened"), Detail("position", "1.5, 2.5")])
            ])
        #expect(snapshot.groups == [ItemGroup(id: "wildfires", title: "Wildfires")])
    }

    @Test("an item id is stored and listed without control characters; ids differing only by them are one item")
    func controlCharactersInIDs() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url)
        var record = FeedRecord(name: "planet", type: "eonet")
        record.status = "ok"
        let date = Date(timeIntervalSince1970: 1)
        let items = [
            Item(id: "EONET_\u{1B}[2J9", title: "first", date: date, groups: ["fires"]),
            Item(id: "EONET_9\u{7}", title: "second", date: date, groups: ["fires"]),
            Item(id: "EONET_10", title: "third", date: date, groups: ["fires"]),
        ]
        let statistics = try await store.commit(
            PollCommit(
                record: record, items: items, firstSeen: date, groups: [ItemGroup(id: "fires", title: "Fires")],
                validators: [:], values: [:]),
            feed: "planet")
        // One row for the two spellings of EONET_9 (inserted, then updated with the later one's title), one for
        // EONET_10.
        #expect((statistics.itemsInserted, statistics.itemsUpdated) == (2, 1))
        let cleaned = [
            Item(id: "EONET_10", title: "third", date: date, groups: ["fires"]),
            Item(id: "EONET_9", title: "second", date: date, groups: ["fires"]),
        ]
        let reader = try #require(try SQLiteStateStore.reading(directory: directory.url))
        #expect(try await reader.snapshot(feed: "planet").items.sorted { $0.id < $1.id } == cleaned)
        #expect(try await reader.items(feed: "planet").sorted { $0.id < $1.id } == cleaned)
        #expect(try await reader.items(feed: "planet", group: "fires").sorted { $0.id < $1.id } == cleaned)

        // The same items again, the id spelled with other control characters: nothing is written.
        let again = try await store.commit(
            PollCommit(
                record: record,
                items: [
                    Item(id: "\u{0}EONET_9\u{9B}1m", title: "second", date: date, groups: ["fires"]),
                    Item(id: "EONET_10", title: "third", date: date, groups: ["fires"]),
                ],
                firstSeen: date, groups: nil, validators: [:], values: [:]),
            feed: "planet")
        #expect((again.itemsInserted, again.itemsUpdated, again.itemsDeleted) == (0, 0, 0))
        #expect(try await reader.items(feed: "planet").sorted { $0.id < $1.id } == cleaned)
    }

    @Test(
        "a store opened for reading refuses to write, in words without SQL; a missing state is nil and not created",
        arguments: StateBackend.databases)
    func readingOnly(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        #expect(try await state.reading() == nil)
        if let directory = state.directory {
            #expect(
                !FileManager.default.fileExists(
                    atPath: directory.url.appendingPathComponent(SQLiteStateStore.fileName).path))
        }
        if let server = state.server, let url = state.url {
            #expect(
                try await server.strings(
                    "SELECT count(*)::text FROM pg_tables WHERE schemaname = 'public'", database: url.database) == ["0"]
            )
        }
        _ = try await state.open()
        let reader = try #require(try await state.reading())
        #expect(reader.location == state.location)
        #expect(try await reader.records().isEmpty)
        await #expect(throws: StateError("\(state.location) is read-only")) {
            try await reader.commit(commit("a", items: 1, round: 1), feed: "a")
        }
    }

    @Test("the default directory follows XDG_STATE_HOME, else ~/.local/state")
    func defaultDirectory() {
        #expect(
            SQLiteStateStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/home/u"]).path
                == "/x/state/monitor")
        #expect(
            SQLiteStateStore.defaultDirectory(environment: ["HOME": "/home/u"]).path == "/home/u/.local/state/monitor")
        #expect(
            SQLiteStateStore.defaultDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/home/u"]).path
                == "/home/u/.local/state/monitor")
    }

    @Test(
        "a feed's record is read alone, the same as in its snapshot; nil for a feed never polled",
        arguments: StateBackend.allCases)
    func recordAlone(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        #expect(try await store.record(feed: "a") == nil)
        try await store.commit(commit("a", items: 3, round: 2), feed: "a")
        let record = try #require(try await store.record(feed: "a"))
        #expect(record == (try await store.snapshot(feed: "a").record))
        #expect(record.failures == 2)
        #expect(record.itemCount == 3)
        #expect(record.status == "ok")
    }
}
