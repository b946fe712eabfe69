import Foundation
import MonitorItems
import MonitorRules
import TestSupport
import Testing

@testable import EONETSource
@testable import MonitorCore

@Suite("An EONET item's position and magnitude as numbers, from the geometry read, the text details as they were")
struct EONETNumbersTests {
    /// A response of two events: a storm (newest point last, a magnitude in kts) and one whose point is off the Earth.
    static let body = Array(
        """
        {"events": [
         {"id": "E1", "title": "Storm", "categories": [{"id": "severeStorms", "title": "Severe Storms"}],
          "geometry": [
           {"magnitudeValue": 35.00, "magnitudeUnit": "kts", "date": "2025-09-20T00:00:00Z", "type": "Point",
            "coordinates": [-99.4, 14.4]},
           {"magnitudeValue": 45.50, "magnitudeUnit": "kts", "date": "2025-09-21T00:00:00Z", "type": "Point",
            "coordinates": [-105.61234, 15.71234]}]},
         {"id": "E2", "title": "Nowhere", "categories": [{"id": "severeStorms", "title": "Severe Storms"}],
          "geometry": [{"magnitudeValue": null, "magnitudeUnit": null, "date": "2025-09-21T00:00:00Z", "type": "Point",
            "coordinates": [10, 95]}]}
        ]}
        """.utf8)

    @Test("the reader gives the numbers and the texts of a position and a magnitude")
    func numbers() throws {
        let items = try EONETJSON.items(in: Self.body, requested: "severeStorms", selected: ["severeStorms"]).items
        #expect(items.count == 2)
        let storm = try #require(items.first { $0.id == "E1" })
        #expect(storm.location == Item.Position(latitude: 15.71234, longitude: -105.61234))
        #expect(storm.magnitude == Item.Magnitude(value: 45.5, unit: "kts"))
        #expect(storm.detail("position") == "lat 15.7123, lon -105.6123")
        #expect(storm.detail("magnitude") == "45.5 kts")
        // A point off the Earth keeps its text and has no position as numbers: neither on the map nor in `near`.
        let nowhere = try #require(items.first { $0.id == "E2" })
        #expect(nowhere.detail("position") == "lat 95, lon 10")
        #expect(nowhere.location == nil)
        #expect(nowhere.position == nil)
        #expect(nowhere.magnitude == nil)
    }

    @Test("a rule on the magnitude and the position sees the numbers of an item read from a response")
    func rule() throws {
        let storm = try #require(
            try EONETJSON.items(in: Self.body, requested: "severeStorms", selected: ["severeStorms"]).items.first)
        let matching = try Rule(
            #"magnitude_unit == "kts" and magnitude_value >= 45.5 and lat > 15.7 and lon < -105.6 and near(15.7, -105.6, 5km)"#,
            details: EONETSource.detailNames)
        #expect(matching.matches(storm, now: Date(), source: EONETSource.self))
        let stronger = try Rule("magnitude_value > 45.5", details: EONETSource.detailNames)
        #expect(!stronger.matches(storm, now: Date(), source: EONETSource.self))
        #expect(
            EONETSource.ruleDetails(of: storm) == [
                Detail("magnitude_value", "45.5"), Detail("magnitude_unit", "kts"), Detail("lat", "15.71234"),
                Detail("lon", "-105.61234"),
            ])
    }
}
