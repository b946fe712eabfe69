import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import EONETSource
@testable import MonitorCore
@testable import MonitorJSON

/// The real EONET v3 responses captured in `../shared/api-samples` (next to the package), when that folder
/// exists: each must decode. They are read in place, never copied into the project.
@Suite(
    "Real EONET v3 captures decode",
    .enabled(if: SharedSamples.apiSamples != nil, "../shared/api-samples (beside the package) is absent"))
struct EONETCaptureTests {
    /// How many categories, events or GeoJSON features each known capture holds.
    static let sizes: [String: Int] = [
        "eonet-v3-categories.json": 13,
        "eonet-v3-events-open-excerpt.json": 6,
        "eonet-v3-geojson-closed-EONET_5165-excerpt.json": 7,
        "DERIVED-eonet-v3-events-closed-EONET_5165.json": 1,
        "DERIVED-eonet-v3-events-polygon-EONET_354.json": 1,
    ]

    static func body(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: try #require(SharedSamples.apiSamples).appendingPathComponent(name)))
    }

    static func items(_ name: String) throws -> [Item] {
        let list = try EONETJSON.decode(EONETEventList.self, from: try body(name))
        let all = Set(EONETFixtures.categories.map(\.id))
        return try list.events.map { event in
            try #require(event.item(requested: event.categories.first ?? "", selected: all), "\(event.id)")
        }
    }

    @Test("every EONET v3 capture is found")
    func found() {
        #expect(Set(Self.sizes.keys).isSubset(of: CaptureFolder.files))
    }

    @Test("every EONET v3 capture decodes, whole", arguments: CaptureFolder.files)
    func decodes(_ name: String) throws {
        let body = try Self.body(name)
        let top = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let size: Int
        if top["categories"] != nil {
            size = try EONETJSON.decode(EONETCategoryList.self, from: body).categories.count
        } else if top["events"] != nil {
            size = try Self.items(name).count
        } else {
            // The GeoJSON form (`/events/geojson`): one feature per observation.
            size = try JSONDecoder().decode(FeatureCollection.self, from: Data(body)).features.count
        }
        if let expected = Self.sizes[name] { #expect(size == expected) } else { #expect(size > 0) }
    }

    @Test("the 13 categories, in the server's order, are those the fixtures use")
    func categories() throws {
        let list = try EONETJSON.decode(EONETCategoryList.self, from: try Self.body("eonet-v3-categories.json"))
        #expect(list.categories.map(\.id) == EONETFixtures.categories.map(\.id))
        #expect(list.categories.map(\.title) == EONETFixtures.categories.map(\.title))
    }

    @Test("the open events: the storm's latest position has latitude and longitude the right way round")
    func openEvents() throws {
        let items = try Self.items("eonet-v3-events-open-excerpt.json")
        #expect(
            items.map(\.id) == [
                "EONET_15547", "EONET_15520", "EONET_15493", "EONET_15327", "EONET_13370", "EONET_12349",
            ])
        let narda = try #require(items.first)
        #expect(narda.title == "Tropical Storm Narda")
        #expect(narda.date == ISO8601.date("2025-09-23T06:00:00Z"))
        #expect(narda.groups == ["severeStorms"])
        #expect(narda.url == "https://www.metoc.navy.mil/jtwc/products/ep1425.tcw")
        #expect(
            narda.details == [
                Detail("status", "open"), Detail("magnitude", "60 kts"), Detail("position", "lat 15.7, lon -105.6"),
                Detail("geometry", "Point"),
            ])
        #expect(items.map { $0.detail("magnitude") } == ["60 kts", "800 acres", "209 NM^2", nil, nil, "10600 acres"])
        #expect(items.map { $0.detail("status") } == Array(repeating: "open", count: 6))
        #expect(
            items[1].detail("description") == "1 Miles SE from Arthur and Marshall Loxahatchee National wildlife, FL")
        #expect(items[4].detail("position") == "lat -17.1407, lon 127.8473")
        #expect(items[5].url == "https://www.gdacs.org/report.aspx?eventtype=WF&eventid=1023277")
    }

    @Test("the closed event: dated by its closing, its GDACS source URL's &amp; decoded")
    func closedEvent() throws {
        let body = try Self.body("DERIVED-eonet-v3-events-closed-EONET_5165.json")
        // Its second source is GDACS's, with an `&amp;`: made the item's URL once the first is left out.
        var document = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        var events = try #require(document["events"] as? [[String: Any]])
        events[0]["sources"] = (events[0]["sources"] as? [Any])?.dropFirst().map { $0 }
        document["events"] = events
        let second = try JSONSerialization.data(withJSONObject: document)
        let event = try #require(try EONETJSON.decode(EONETEventList.self, from: Array(second)).events.first)
        #expect(event.source == "https://www.gdacs.org/Cyclones/report.aspx?eventid=1000746&eventtype=TC")
        let item = try #require(try Self.items("DERIVED-eonet-v3-events-closed-EONET_5165.json").first)
        #expect(item.date == ISO8601.date("2020-11-28T00:00:00Z"))
        #expect(
            item.details == [
                Detail("status", "closed"), Detail("closed", "2020-11-28T00:00:00Z"), Detail("magnitude", "40 kts"),
                Detail("position", "lat 11.3, lon 49.3"), Detail("geometry", "Point"),
            ])
        #expect(item.url == "https://earthobservatory.nasa.gov/images/147576/gati-makes-historic-landfall-in-somalia")
    }

    @Test("the GeoJSON capture's features are the observations of the plain closed event")
    func geoJSONMatchesPlain() throws {
        let features = try JSONDecoder().decode(
            FeatureCollection.self, from: Data(try Self.body("eonet-v3-geojson-closed-EONET_5165-excerpt.json"))
        ).features
        let plain = try EONETJSON.decode(
            EONETEventList.self, from: try Self.body("DERIVED-eonet-v3-events-closed-EONET_5165.json")
        ).events[0]
        #expect(features.allSatisfy { $0.properties.id == "EONET_5165" })
        #expect(plain.observations == 7)
        #expect(features.count == plain.observations)
        // The newest feature is the observation the item shows, and the newest with a magnitude.
        let newest = try #require(
            features.max { ISO8601.date($0.properties.date)! < ISO8601.date($1.properties.date)! })
        let latest = try #require(plain.latest)
        #expect(ISO8601.date(newest.properties.date) == latest.date)
        #expect(newest.properties.magnitudeValue == plain.latestMagnitude?.magnitudeValue)
        #expect(newest.geometry.coordinates == latest.position.map { [$0.longitude, $0.latitude] })
    }

    @Test("the Polygon event: positioned at the centre of its ring")
    func polygonEvent() throws {
        let item = try #require(try Self.items("DERIVED-eonet-v3-events-polygon-EONET_354.json").first)
        #expect(item.id == "EONET_354")
        #expect(item.groups == ["volcanoes"])
        #expect(item.date == ISO8601.date("2016-03-16T00:00:00Z"))
        #expect(item.detail("position") == "lat 1.7006, lon 127.8796")
        #expect(item.detail("geometry") == "Polygon")
        #expect(item.detail("magnitude") == nil)
        #expect(item.url == "http://earthobservatory.nasa.gov/NaturalHazards/view.php?id=87762")
    }
}

/// The GeoJSON form of `/events`: one Point feature per observation.
private struct FeatureCollection: Decodable {
    struct Feature: Decodable {
        struct Properties: Decodable {
            var id: String
            var date: String
            var magnitudeValue: Double?
        }

        struct Geometry: Decodable {
            var type: String
            var coordinates: [Double]?
        }

        var properties: Properties
        var geometry: Geometry
    }

    var features: [Feature]
}

/// The EONET v3 captures in `../shared/api-samples` (`eonet-v3-*`, `DERIVED-eonet-v3-*`); v2.1 is another shape.
private enum CaptureFolder {
    static let files = SharedSamples.files(in: SharedSamples.apiSamples).filter {
        ($0.hasPrefix("eonet-v3-") || $0.hasPrefix("DERIVED-eonet-v3-")) && $0.hasSuffix(".json")
    }
}
