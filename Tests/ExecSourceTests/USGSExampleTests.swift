import ExecSource
import Foundation
import LoopbackHTTP
import MonitorItems
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorJSON

/// The package's root, where `examples/` is.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The summary feed's path for magnitude 4.5+ over a week.
private let feedPath = "/earthquakes/feed/v1.0/summary/4.5_week.geojson"

/// Quakes as the USGS GeoJSON summary feed lists them: id, magnitude (nil: not yet computed), place.
private let quakes: [(id: String, magnitude: Double?, place: String)] = [
    ("us7000q1", 7.1, "120 km SSW of Suva, Fiji"), ("us7000q2", 6.5, "Kermadec Islands region"),
    ("us7000q3", 6.0, "south of the Fiji Islands"), ("us7000q4", 5.9, "45 km E of Hualien City, Taiwan"),
    ("us7000q5", 5.2, "Mid-Atlantic Ridge"), ("us7000q6", 5.0, "20 km N of Ishinomaki, Japan"),
    ("us7000q7", 4.8, "Tonga"), ("us7000q8", 4.5, "Molucca Sea"), ("us7000q9", 4.4, "Banda Sea"),
    ("us7000qa", nil, "central Alaska"),
]

/// The feed document, shaped like the real one (metadata, features with properties and geometry, bbox).
private func geoJSON() -> String {
    let start = 1_758_477_600_000  // 2025-09-21T18:00:00Z
    let features = quakes.enumerated().map { index, quake in
        """
        {"type":"Feature","properties":{"mag":\(quake.magnitude.map { "\($0)" } ?? "null"),"place":"\(quake.place)",\
        "time":\(start - index * 3_600_000),"updated":\(start),"tz":null,\
        "url":"https://earthquake.usgs.gov/earthquakes/eventpage/\(quake.id)",\
        "detail":"https://earthquake.usgs.gov/earthquakes/feed/v1.0/detail/\(quake.id).geojson","felt":null,"cdi":null,\
        "mmi":null,"alert":\(index == 0 ? "\"yellow\"" : "null"),"status":"reviewed","tsunami":\(index == 0 ? 1 : 0),\
        "sig":400,"net":"us","code":"\(quake.id.dropFirst(2))","ids":",\(quake.id),","sources":",us,",\
        "types":",origin,phase-data,","nst":null,"dmin":1.2,"rms":0.7,"gap":35,"magType":"mww","type":"earthquake",\
        "title":"M \(quake.magnitude.map { "\($0)" } ?? "?") - \(quake.place)"},\
        "geometry":{"type":"Point","coordinates":[178.1,-18.9,\(10 + index).5]},"id":"\(quake.id)"}
        """
    }
    return """
        {"type":"FeatureCollection","metadata":{"generated":1758477900000,\
        "url":"https://earthquake.usgs.gov\(feedPath)","title":"USGS Magnitude 4.5+ Earthquakes, Past Week",\
        "status":200,"api":"1.14.1","count":\(quakes.count)},"features":[\(features.joined(separator: ","))],\
        "bbox":[-180,-60,0,180,60,600]}
        """
}

@Suite("examples/sources/usgs_quakes.py against a loopback server serving USGS-shaped GeoJSON")
struct USGSExampleTests {
    @Test("counts per magnitude band; the second poll sends the cursor's validators and keeps the quakes on 304")
    func quakesByBand() async throws {
        let etag = "\"usgs-v1\""
        let lastModified = "Sun, 21 Sep 2025 18:05:00 GMT"
        let document = geoJSON()
        try await withTestHTTPServer({ request in
            guard request.path == feedPath else { return .text("no such feed", status: 404) }
            if request.header("If-None-Match") == etag { return TestResponse(status: 304, headers: [("ETag", etag)]) }
            return .json(document, headers: [("ETag", etag), ("Last-Modified", lastModified)])
        }) { server in
            let script = packageRoot.appendingPathComponent("examples/sources/usgs_quakes.py").path
            let feed = PollHarness.feed(
                ExecSource.self, name: "quakes",
                options: [
                    "command": .list(["python3", script, "--min-magnitude", "4.5"]),
                    "retention": .string("replace"), "env": .mapping(["USGS_API": server.baseURL]),
                ])
            let harness = PollHarness()
            let transport = StubTransport { _ in throw CancellationError() }

            let first = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
            #expect(first.status == .ok, "\(first.error ?? "")")
            #expect(first.groups.map(\.id) == ["m7", "m6", "m5", "m4"])
            #expect(
                first.groups.map(\.title) == [
                    "Magnitude 7+", "Magnitude 6 to 7", "Magnitude 5 to 6", "Magnitude 4 to 5",
                ])
            #expect(first.counts == ["m7": 1, "m6": 2, "m5": 3, "m4": 2])
            #expect(first.items == 8)
            #expect(first.new == 8)
            let stored = try await harness.store.items(feed: "quakes")
            let strongest = try #require(stored.first { $0.id == "us7000q1" })
            #expect(strongest.title == "M 7.1 - 120 km SSW of Suva, Fiji")
            #expect(strongest.date == ISO8601.date("2025-09-21T18:00:00Z"))
            #expect(strongest.url == "https://earthquake.usgs.gov/earthquakes/eventpage/us7000q1")
            #expect(
                strongest.details == [
                    Detail("alert", "yellow"), Detail("depth", "10.5 km"), Detail("lat", "-18.9"),
                    Detail("lon", "178.1"), Detail("mag", "7.1"), Detail("place", "120 km SSW of Suva, Fiji"),
                    Detail("tsunami", "yes"),
                ])
            #expect(server.requests.count == 1)
            #expect(server.requests[0].header("If-None-Match") == nil)
            #expect(server.requests[0].header("If-Modified-Since") == nil)
            #expect(server.requests[0].header("User-Agent") == "monitor-usgs-example/1")

            let second = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
            #expect(second.status == .notModified, "\(second.error ?? "")")
            #expect(server.requests.count == 2)
            #expect(server.requests[1].header("If-None-Match") == etag)
            #expect(server.requests[1].header("If-Modified-Since") == lastModified)
            #expect(second.items == 8)
            #expect(second.new == 0)
            #expect(second.counts == ["m7": 1, "m6": 2, "m5": 3, "m4": 2])
            #expect(try await harness.store.items(feed: "quakes").map(\.id) == stored.map(\.id))
        }
    }

    @Test("a server error fails the poll with the program's message")
    func serverError() async throws {
        try await withTestHTTPServer({ _ in .text("down", status: 503) }) { server in
            let script = packageRoot.appendingPathComponent("examples/sources/usgs_quakes.py").path
            let url = server.baseURL + "/feed.geojson"
            let feed = PollHarness.feed(
                ExecSource.self, name: "quakes", options: ["command": .list(["python3", script, "--url", url])])
            let harness = PollHarness()
            let transport = StubTransport { _ in throw CancellationError() }
            let report = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
            #expect(report.status == .failed)
            #expect(report.error == "'python3' exited with status 1: GET \(url): HTTP 503 Service Unavailable")
        }
    }
}
