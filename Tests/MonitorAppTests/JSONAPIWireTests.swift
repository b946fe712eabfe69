import Foundation
import JSONAPISource
import LoopbackHTTP
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorOptions
import TestSupport
import Testing

/// The `json` source on the wire, on a real document: EONET's events of September 2025 (`../shared/realdata/`),
/// read as any JSON API through paths, served by a real server on 127.0.0.1 into a SQLite state.
@Suite("json: a real API's document on the wire")
struct JSONAPIWireTests {
    @Test(
        "EONET's 5,641 events read through paths: one item each, counted per category as Foundation's reader counts them",
        .enabled(if: SharedSamples.folder != nil, "../shared is absent"))
    func eonetThroughPaths() async throws {
        let bytes = try SharedSamples.bytes("realdata/eonet-v3-events-2025-09.json")
        // The expected counts, by another reader: each event once in each of its categories.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let events = try #require(object["events"] as? [[String: Any]])
        var expected: [String: Int] = [:]
        for event in events {
            let ids = Set(((event["categories"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
            for id in ids { expected[id, default: 0] += 1 }
        }
        let wire = try Wire()
        try await withTestHTTPServer({ request in
            TestResponse(headers: [("Content-Type", "application/json"), ("ETag", "\"e\"")], body: bytes)
        }) { server in
            let feed = PollHarness.feed(
                JSONAPISource.self, name: "events",
                options: [
                    "url": .string("\(server.baseURL)/api/v3/events"), "items": .string("events[*]"),
                    "date": .string("geometry[-1].date"), "link": .string("link"), "group": .string("categories[*].id"),
                    "details": .mapping(["magnitude": "geometry[-1].magnitudeValue", "closed": "closed"]),
                    "keep": .integer(10_000),
                ])
            let report = await wire.poll(JSONAPISource.self, feed)
            #expect(report.status == .ok, "\(report.error ?? "")")
            #expect(report.items == 5_641)
            #expect(report.new == 5_641)
            #expect(Dictionary(uniqueKeysWithValues: report.groups.map { ($0.id, $0.count) }) == expected)
            #expect(expected == ["wildfires": 5_555, "seaLakeIce": 47, "volcanoes": 35, "severeStorms": 4])
            let newest = try await wire.harness.store.items(feed: "events", limit: 1)
            #expect(
                newest == [
                    Item(
                        id: "EONET_15510", title: "Tropical Storm Gabrielle",
                        date: ISO8601.date("2025-09-23T09:00:00Z")!,
                        groups: ["severeStorms"], url: "https://eonet.gsfc.nasa.gov/api/v3/events/EONET_15510",
                        details: [Detail("magnitude", "120")])
                ])
            // Answered the whole document again (this server never answers 304): nothing is new.
            let again = await wire.poll(JSONAPISource.self, feed)
            #expect((again.status, again.new, again.items) == (.ok, 0, 5_641))
        }
        try await wire.shutdown()
    }
}
