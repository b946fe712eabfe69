import Foundation
import MonitorItems
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

@Suite("The state keeps an item's location and magnitude as numbers, in the packed details, without a migration")
struct ItemNumbersStateTests {
    /// A storm with its text details and, unless `numbers` is false, its numbers.
    static func storm(numbers: Bool = true) -> Item {
        Item(
            id: "EONET_1", title: "Tropical Storm Alpha", date: Date(timeIntervalSince1970: 1_758_499_200),
            groups: ["severeStorms"],
            details: [
                Detail("status", "open"), Detail("magnitude", "45.5 kts"), Detail("position", "lat 15.2, lon -101"),
            ],
            location: numbers ? Item.Position(latitude: 15.234567, longitude: -101) : nil,
            magnitude: numbers ? Item.Magnitude(value: 45.5, unit: "kts") : nil)
    }

    static func commit(_ items: [Item]) -> PollCommit {
        var record = FeedRecord(name: "planet", type: "eonet")
        record.status = "ok"
        record.itemCount = items.count
        return PollCommit(
            record: record, items: items, firstSeen: Date(timeIntervalSince1970: 1_000_000), groups: [],
            validators: [:], values: [:])
    }

    @Test(
        "an item's numbers read back exactly; an item without them (as older versions stored) reads without",
        arguments: StateBackend.allCases)
    func roundTrip(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        var plain = Self.storm(numbers: false)
        plain.id = "EONET_2"
        let unitless = Item(
            id: "EONET_3", title: "Quake", date: Date(timeIntervalSince1970: 1_758_400_000), groups: ["earthquakes"],
            details: [Detail("magnitude", "6.1")], magnitude: Item.Magnitude(value: 6.1, unit: nil))
        _ = try await store.commit(Self.commit([Self.storm(), plain, unitless]), feed: "planet")
        let items = Dictionary(uniqueKeysWithValues: try await store.items(feed: "planet").map { ($0.id, $0) })
        let storm = try #require(items["EONET_1"])
        #expect(storm.details == Self.storm().details)
        #expect(storm.location == Item.Position(latitude: 15.234567, longitude: -101))
        #expect(storm.magnitude == Item.Magnitude(value: 45.5, unit: "kts"))
        #expect(items["EONET_2"]?.location == nil)
        #expect(items["EONET_2"]?.magnitude == nil)
        #expect(items["EONET_2"]?.details == plain.details)
        #expect(items["EONET_3"]?.magnitude == Item.Magnitude(value: 6.1, unit: nil))
        #expect(items["EONET_3"]?.location == nil)
        #expect(items["EONET_3"]?.details == [Detail("magnitude", "6.1")])
    }

    @Test(
        "an item stored without its numbers is written again with them by the next poll that reports it",
        arguments: StateBackend.databases)
    func rewrittenWithNumbers(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        _ = try await store.commit(Self.commit([Self.storm(numbers: false)]), feed: "planet")
        #expect(try await store.items(feed: "planet").first?.location == nil)
        let statistics = try await store.commit(Self.commit([Self.storm()]), feed: "planet")
        #expect(statistics.itemsUpdated == 1)
        let item = try #require(try await store.items(feed: "planet").first)
        #expect(item.location == Item.Position(latitude: 15.234567, longitude: -101))
        #expect(item.magnitude == Item.Magnitude(value: 45.5, unit: "kts"))
        let again = try await store.commit(Self.commit([Self.storm()]), feed: "planet")
        #expect(again.itemsUpdated == 0)
    }

    @Test("the packed form: the numbers follow the details under names no detail has; damaged ones read as none")
    func packed() {
        let packed = StoredItem(Self.storm()).details
        #expect(
            packed == "status\u{1F}open\u{1F}magnitude\u{1F}45.5 kts\u{1F}position\u{1F}lat 15.2, lon -101\u{1F}"
                + "\u{1}lat\u{1F}15.234567\u{1F}\u{1}lon\u{1F}-101.0\u{1F}"
                + "\u{1}magnitude_value\u{1F}45.5\u{1F}\u{1}magnitude_unit\u{1F}kts\u{1F}")
        #expect(StoredItem(Self.storm()).fingerprint != StoredItem(Self.storm(numbers: false)).fingerprint)
        func read(_ details: String) -> Item {
            StoredItem.item(
                id: "a", title: "a", date: Date(timeIntervalSince1970: 0), groups: [], url: nil, details: details)
        }
        let item = read(packed)
        #expect(item.details == Self.storm().details)
        #expect(item.location == Self.storm().location)
        #expect(item.magnitude == Self.storm().magnitude)
        let damaged = read(
            "status\u{1F}open\u{1F}\u{1}lat\u{1F}95\u{1F}\u{1}lon\u{1F}1\u{1F}\u{1}magnitude_value\u{1F}nan\u{1F}")
        #expect(damaged.details == [Detail("status", "open")])
        #expect(damaged.location == nil)
        #expect(damaged.magnitude == nil)
    }
}
