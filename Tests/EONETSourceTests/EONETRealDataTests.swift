import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import EONETSource
@testable import MonitorCore

/// EONET's own answers captured in `../shared/realdata` and `../shared/api-samples` (beside the package), read in
/// place: each events capture decodes whole, with the counts per category that Python's `json` finds in it
/// (computed once, written here). Skipped, saying so, when the folders are absent.
@Suite(
    "Real EONET events captures decode with exact counts",
    .enabled(
        if: SharedSamples.folder != nil,
        "../shared/realdata or ../shared/api-samples is absent: the real captures are not checked"))
struct EONETRealDataTests {
    /// What Python's `json.load` counts in a capture: events, per category, closed ones.
    struct Capture: Sendable, CustomTestStringConvertible {
        var file: String
        var events: Int
        var categories: [String: Int]
        var closed: Int
        var testDescription: String { file }
    }

    static let captures: [Capture] = [
        Capture(
            file: "realdata/eonet-v3-events-2025-09.json", events: 5_641,
            categories: ["seaLakeIce": 47, "severeStorms": 4, "volcanoes": 35, "wildfires": 5_555], closed: 0),
        Capture(
            file: "realdata/DERIVED-eonet-v3-events-closed-2020-11.json", events: 20,
            categories: ["severeStorms": 19, "wildfires": 1], closed: 20),
        Capture(
            file: "realdata/eonet-v3-events-severeStorms-wildfires-limit1-2023-06.json", events: 1,
            categories: ["severeStorms": 1], closed: 0),
        Capture(
            file: "api-samples/eonet-v3-events-open-excerpt.json", events: 6,
            categories: ["seaLakeIce": 1, "severeStorms": 1, "volcanoes": 1, "wildfires": 3], closed: 0),
        Capture(
            file: "api-samples/DERIVED-eonet-v3-events-closed-EONET_5165.json", events: 1,
            categories: ["severeStorms": 1], closed: 1),
        Capture(
            file: "api-samples/DERIVED-eonet-v3-events-polygon-EONET_354.json", events: 1,
            categories: ["volcanoes": 1], closed: 0),
    ]

    static let all = Set(EONETFixtures.categories.map(\.id))

    /// The items of the capture `file`, each as met in the response of its first category.
    static func items(_ file: String) throws -> [Item] {
        let list = try EONETJSON.decode(EONETEventList.self, from: try SharedSamples.bytes(file))
        return try list.events.map { event in
            try #require(event.item(requested: event.categories.first ?? "", selected: all), "\(event.id)")
        }
    }

    @Test("every events capture beside the package is one of these")
    func listed() {
        #expect(
            (SharedSamples.captures { $0.contains("eonet-v3-events") && $0.hasSuffix(".json") })
                == Self.captures.map(\.file).sorted())
    }

    @Test("each capture gives one item per event, counted per category as Python counts", arguments: captures)
    func counts(_ capture: Capture) throws {
        let items = try Self.items(capture.file)
        #expect(items.count == capture.events)
        #expect(Set(items.map(\.id)).count == capture.events)
        var counts: [String: Int] = [:]
        for item in items { for group in item.groups { counts[group, default: 0] += 1 } }
        #expect(counts == capture.categories)
        #expect(items.filter { $0.detail("status") == "closed" }.count == capture.closed)
    }

    @Test("September 2025: entities decoded once in titles and descriptions, odd text and coordinates right")
    func september() throws {
        let items = try Self.items("realdata/eonet-v3-events-2025-09.json")
        let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
        #expect(byID["EONET_13433"]?.title == "Danny's Wildfire, Cumberland, New Jersey")
        #expect(byID["EONET_13523"]?.title == "Whelan Lake Block 1& 2 RX Wildfire, Mason, Michigan")
        #expect(byID["EONET_13440"]?.detail("description") == "NC 210 &amp; NC117")
        #expect(byID["EONET_10247"]?.title == "Wildfire in Türkiye 1021461")
        #expect(byID["EONET_13259"]?.title == "Holly Springs IU 140 1 141 1 RX Wildfire, Yalobusha, Mississippi")
        #expect(byID["EONET_13370"]?.detail("position") == "lat -17.1407, lon 127.8473")
        #expect(byID["EONET_13176"]?.detail("position") == "lat 30, lon -95")
        #expect(byID["EONET_13176"]?.detail("magnitude") == "1290 acres")
        // Python, decoding `&amp;` and `&#039;` once: 12 titles keep an `&`, 11 have an apostrophe, none a reference.
        #expect(items.filter { $0.title.contains("&") }.count == 12)
        #expect(items.filter { $0.title.contains("'") }.count == 11)
        #expect(items.filter { $0.title.contains("&amp;") || $0.title.contains("&#039;") }.count == 0)
        #expect(items.filter { $0.detail("magnitude") != nil }.count == 1_741)
        #expect(items.filter { $0.detail("description") != nil }.count == 832)
        #expect(items.filter { $0.detail("position") != nil }.count == 5_641)
    }
}
