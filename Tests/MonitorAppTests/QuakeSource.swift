import Foundation
import MonitorItems
import MonitorOptions
import TestSupport

@testable import MonitorCore

/// A third source, written from "Adding a source" in docs/architecture.md alone: the earthquakes of a USGS-style
/// GeoJSON feed, grouped by magnitude band. It keeps the whole set (`.replace`) and says `unchanged` on a 304, so
/// that the core carries its stored quakes into the poll.
struct QuakeSource: FeedSource {
    static let type = "quakes"
    static let summary = "Earthquakes of a USGS GeoJSON feed, grouped by magnitude band"

    /// `api`: the feed's root.
    static let api = FeedOption<String>(
        "api", .url, default: "https://earthquake.usgs.gov/earthquakes/feed/v1.0/summary", doc: "The feeds' root")
    /// `min_magnitude`: the smallest magnitude kept.
    static let minimum = FeedOption<Int>(
        "min_magnitude", .integer(0...10), default: 4, doc: "Smallest magnitude kept")
    static let options: [any OptionDeclaration] = [api, minimum]

    let url: String
    let minimum: Int

    init(options: FeedOptions) {
        url = options[Self.api] + "/all_week.geojson"
        minimum = options[Self.minimum]
    }

    var retention: ItemRetention { .replace }

    func poll(_ context: PollContext, _ found: Findings) async throws {
        let response = try await context.http.get(url)
        guard response.status != 304 else { return found.unchanged() }
        guard let list = try? JSONDecoder().decode(QuakeList.self, from: Data(response.body)) else {
            throw SourceError("GET \(url): not a GeoJSON feature collection")
        }
        for quake in list.features where quake.properties.mag >= Double(minimum) {
            found.item(quake.item)
        }
    }

    static let examples: [SourceExample] = {
        let url = "http://quakes.example/all_week.geojson"
        let quakes = QuakeList.json([
            ("us1", 4.6, "2026-11-01T00:00:00Z"), ("us2", 5.2, "2026-11-02T00:00:00Z"),
            ("us3", 2.1, "2026-11-03T00:00:00Z"),
        ])
        let kept = ["us2", "us1"]
        return [
            SourceExample(
                "a week of quakes, then a 304 that keeps them",
                options: ["api": .string("http://quakes.example")],
                polls: [
                    SourceExample.Poll(
                        answers: [url: SourceExample.json(quakes, etag: #""q1""#)],
                        expect: .init(status: .ok, items: kept, groups: ["M4": 1, "M5": 1], new: 2)),
                    SourceExample.Poll(
                        answers: [url: SourceExample.notModified],
                        expect: .init(status: .notModified, items: kept, groups: ["M4": 1, "M5": 1], new: 0)),
                ])
        ]
    }()
}

/// A GeoJSON feature collection of quakes.
struct QuakeList: Decodable {
    struct Quake: Decodable {
        struct Properties: Decodable {
            var mag: Double
            var time: String
        }

        var id: String
        var properties: Properties

        /// The quake as an item in its magnitude band, `M4`.
        var item: Item {
            Item(
                id: id, title: "M\(properties.mag) quake",
                date: ISO8601DateFormatter().date(from: properties.time) ?? Date(timeIntervalSince1970: 0),
                groups: ["M\(Int(properties.mag))"])
        }
    }

    var features: [Quake]

    /// A collection of `(id, magnitude, time)` quakes as the server writes it.
    static func json(_ quakes: [(String, Double, String)]) -> String {
        let features = quakes.map { id, magnitude, time in
            #"{"id":"\#(id)","properties":{"mag":\#(magnitude),"time":"\#(time)"}}"#
        }
        return #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
    }
}
