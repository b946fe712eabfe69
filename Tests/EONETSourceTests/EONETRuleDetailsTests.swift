import Foundation
import MonitorItems
import MonitorRules
import TestSupport
import Testing

@testable import EONETSource
@testable import MonitorCore

@Suite("EONET's details for rules: magnitude_value, magnitude_unit, lat and lon, from the item's numbers")
struct EONETRuleDetailsTests {
    static func item(
        _ details: [Detail], at location: (Double, Double)? = nil, magnitude: (Double, String?)? = nil
    ) -> Item {
        Item(
            id: "E", title: "E", date: Date(timeIntervalSince1970: 0), groups: ["wildfires"], details: details,
            location: location.flatMap { Item.Position(latitude: $0.0, longitude: $0.1) },
            magnitude: magnitude.flatMap { Item.Magnitude(value: $0.0, unit: $0.1) })
    }

    @Test("from the magnitude and the position the item has as numbers")
    func derived() {
        #expect(
            EONETSource.ruleDetails(
                of: Self.item(
                    [
                        Detail("status", "open"), Detail("magnitude", "100.25 NM^2"),
                        Detail("position", "lat -52.37, lon -37.11"), Detail("geometry", "Point"),
                    ], at: (-52.37, -37.11), magnitude: (100.25, "NM^2"))) == [
                    Detail("magnitude_value", "100.25"), Detail("magnitude_unit", "NM^2"), Detail("lat", "-52.37"),
                    Detail("lon", "-37.11"),
                ])
        #expect(
            EONETSource.ruleDetails(of: Self.item([Detail("magnitude", "6.1")], magnitude: (6.1, nil))) == [
                Detail("magnitude_value", "6.1")
            ])
        #expect(EONETSource.ruleDetails(of: Self.item([Detail("status", "closed")])) == [])
    }

    @Test("a rule on them matches, and the item and what is shown of it are unchanged")
    func rule() throws {
        let item = Self.item(
            [Detail("magnitude", "1250 acres"), Detail("position", "lat 34.1916, lon -118.1054")],
            at: (34.1916, -118.1054), magnitude: (1250, "acres"))
        let rule = try Rule(
            #"magnitude_value >= 1000 and magnitude_unit == "acres" and near(34.05, -118.25, 25km)"#,
            details: EONETSource.detailNames)
        #expect(rule.matches(item, now: Date(), source: EONETSource.self))
        #expect(!rule.matches(item, now: Date()))
        #expect(item.details.map(\.name) == ["magnitude", "position"])
    }

    @Test(
        "every item of the real captures with a position or a magnitude has them as numbers",
        .enabled(if: SharedSamples.folder != nil, "../shared/realdata or ../shared/api-samples is absent"))
    func realCaptures() throws {
        for file in SharedSamples.captures(where: { $0.contains("eonet-v3-events") && $0.hasSuffix(".json") }) {
            let items = try EONETJSON.items(
                in: try SharedSamples.bytes(file), requested: "wildfires", selected: EONETRealDataTests.all
            ).items
            for item in items {
                let derived = Dictionary(
                    uniqueKeysWithValues: EONETSource.ruleDetails(of: item).map { ($0.name, $0.value) })
                #expect((derived["lat"].flatMap(Double.init) != nil) == (item.detail("position") != nil), "\(file)")
                #expect((derived["lon"].flatMap(Double.init) != nil) == (item.detail("position") != nil), "\(file)")
                #expect(
                    (derived["magnitude_value"].flatMap(Double.init) != nil) == (item.detail("magnitude") != nil),
                    "\(file)")
            }
        }
    }
}
