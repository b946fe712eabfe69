import Foundation
import MonitorCore
import TestSupport
import Testing

@Suite("The SQLite state")
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

    @Test("two stores on the same file (as two monitor processes) write concurrently without corrupting it")
    func twoWriters() async throws {
        let directory = try TemporaryDirectory()
        let first = try StateStore(directory: directory.url)
        let second = try StateStore(directory: directory.url)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (store, feed) in [(first, "a"), (second, "b"), (first, "c"), (second, "a")] {
                group.addTask {
                    for round in 1...25 { try await store.commit(commit(feed, items: 40, round: round), feed: feed) }
                }
            }
            try await group.waitForAll()
        }
        let reader = try StateStore(directory: directory.url)
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

    @Test("the default directory follows XDG_STATE_HOME, else ~/.local/state")
    func defaultDirectory() {
        #expect(
            StateStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/home/u"]).path
                == "/x/state/monitor")
        #expect(StateStore.defaultDirectory(environment: ["HOME": "/home/u"]).path == "/home/u/.local/state/monitor")
        #expect(
            StateStore.defaultDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/home/u"]).path
                == "/home/u/.local/state/monitor")
    }

    @Test("a feed's record is read alone, the same as in its snapshot; nil for a feed never polled")
    func recordAlone() async throws {
        let directory = try TemporaryDirectory()
        let store = try StateStore(directory: directory.url)
        #expect(try await store.record(feed: "a") == nil)
        try await store.commit(commit("a", items: 3, round: 2), feed: "a")
        let record = try #require(try await store.record(feed: "a"))
        #expect(record == (try await store.snapshot(feed: "a").record))
        #expect(record.failures == 2)
        #expect(record.itemCount == 3)
        #expect(record.status == "ok")
    }
}
