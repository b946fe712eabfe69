import Foundation
import LoopbackHTTP
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore

/// A server playing both GitHub (at its root) and EONET (under /api/v3), with a repository of 30 events, the newest
/// on 2024-06-01 at 12:00 UTC (a fixed day in a past year: what `run --once` prints of them is the same any day).
private func planetAndGitHub() -> @Sendable (RecordedRequest) -> TestResponse {
    let github = GitHubFixtures.API()
    let now = Date(timeIntervalSince1970: 1_717_243_200)
    github.setEvents(
        (0..<30).map { index in
            GitHubFixtures.Event(
                id: "\(5_000_000 + 30 - index)", type: index % 3 == 0 ? "WatchEvent" : "PushEvent",
                actor: "kzaher", repo: "ReactiveX/RxSwift", date: now.addingTimeInterval(-Double(index) * 3600),
                payload: index % 3 == 0
                    ? .object([("action", "started")])
                    : GitHubFixtures.pushPayload(repo: "ReactiveX/RxSwift", id: index))
        }, of: "repos/ReactiveX/RxSwift")
    return { request in
        if request.path.hasPrefix("/api/v3/") { return eonetAnswer(request) }
        return TestResponse(github.serve(HTTPRequest(request)))
    }
}

private func feeds(_ server: TestHTTPServer, interval: String = "15m") -> String {
    """
    settings:
      concurrency: 4
      timeout: 1h
    feeds:
      - name: rxswift
        type: github
        repo: ReactiveX/RxSwift
        api: \(server.baseURL)
        interval: \(interval)
        details: false
      - name: planet
        type: eonet
        api: \(server.baseURL)/api/v3
        interval: \(interval)
    """
}

/// `output` of a `run --once` with what varies from one run to the next masked, so that the rest is compared whole:
/// when each poll started and how long it took (`"started"` and `"durationMs"` in JSON, `350ms` or `1.2s` in text), and
/// the order in which the feeds finished (the feeds poll at once) of their JSON lines, sorted; text summaries come in
/// the feeds file's order.
private func comparable(_ output: String) -> String {
    let masked =
        output
        .replacing(/"started":"[^"]*"/, with: #""started":"<time>""#)
        .replacing(/"durationMs":\d+/, with: #""durationMs":<duration>"#)
        .replacing(/\b(\d+ms|\d+\.\ds)\b/, with: "<duration>")
    // A text summary ends with an empty line; a JSON report is one line.
    guard !masked.contains("\n\n") else { return masked }
    var parts = masked.components(separatedBy: "\n")
    // What follows the last line break ("" when the output ends with one) stays last.
    let end = parts.removeLast()
    return parts.sorted().map { $0 + "\n" }.joined() + end
}

/// The JSON objects of `text`, one per line, by feed.
private func reports(_ text: String) throws -> [String: [String: Any]] {
    var reports: [String: [String: Any]] = [:]
    for line in text.split(separator: "\n") {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        reports[try #require(object["feed"] as? String)] = object
    }
    return reports
}

@Suite("monitor run against a real HTTP server on 127.0.0.1", .timeLimit(.minutes(5)))
struct RunTests {
    @Test("run --once prints a JSON line per feed; a second run reports not_modified where the server answered 304")
    func runOnceJSON() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(planetAndGitHub()) { server in
            try directory.write("feeds.yaml", feeds(server))
            let first = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", "state"], in: directory.url)
            #expect(first.status == 0)
            #expect(first.stderr == "")
            #expect(
                comparable(first.stdout) == """
                    {"schema":1,"feed":"planet","type":"eonet","status":"ok","error":null,"requests":14,"notModified":0,"items":13,"new":13,"groups":[\
                    {"id":"drought","title":"Drought","count":0,"new":0},\
                    {"id":"dustHaze","title":"Dust and Haze","count":1,"new":1,"breakdown":{"closed":1}},\
                    {"id":"earthquakes","title":"Earthquakes","count":0,"new":0},\
                    {"id":"floods","title":"Floods","count":2,"new":2,"breakdown":{"open":2}},\
                    {"id":"landslides","title":"Landslides","count":0,"new":0},\
                    {"id":"manmade","title":"Manmade","count":0,"new":0},\
                    {"id":"seaLakeIce","title":"Sea and Lake Ice","count":1,"new":1,"breakdown":{"open":1}},\
                    {"id":"severeStorms","title":"Severe Storms","count":4,"new":4,"breakdown":{"closed":2,"open":2}},\
                    {"id":"snow","title":"Snow","count":0,"new":0},\
                    {"id":"tempExtremes","title":"Temperature Extremes","count":0,"new":0},\
                    {"id":"volcanoes","title":"Volcanoes","count":2,"new":2,"breakdown":{"open":2}},\
                    {"id":"waterColor","title":"Water Color","count":0,"new":0},\
                    {"id":"wildfires","title":"Wildfires","count":4,"new":4,"breakdown":{"closed":2,"open":2}}],"latest":[\
                    {"id":"EONET_9014","title":"Mike Dust Storm, Sahara","date":"2025-09-22T12:00:00Z","groups":["dustHaze"],"url":"\(server.baseURL)/api/v3/events/EONET_9014","details":{"status":"closed","closed":"2025-09-22T12:00:00Z","position":"lat 23.1, lon 5.5","geometry":"Point"},"lat":23.1,"lon":5.5,"new":true},\
                    {"id":"EONET_9001","title":"Tropical Storm Alpha","date":"2025-09-22T00:00:00Z","groups":["severeStorms"],"url":"https://www.nhc.noaa.gov/text/alpha.shtml","details":{"status":"open","magnitude":"45.5 kts","position":"lat 15.2, lon -101","geometry":"Point"},"lat":15.2,"lon":-101,"magnitude_value":45.5,"magnitude_unit":"kts","new":true},\
                    {"id":"EONET_9006","title":"Foxtrot Fire, California","date":"2025-09-20T12:00:00Z","groups":["wildfires"],"url":"https://inciweb.wildfire.gov/incident?id=foxtrot&state=CA","details":{"status":"open","magnitude":"1250 acres","position":"lat 34.1916, lon -118.1054","geometry":"Point","description":"5 miles NE of Altadena, CA"},"lat":34.19163,"lon":-118.10544,"magnitude_value":1250,"magnitude_unit":"acres","new":true},\
                    {"id":"EONET_9002","title":"Hurricane Bravo","date":"2025-09-20T12:00:00Z","groups":["severeStorms","floods"],"url":"https://www.metoc.navy.mil/jtwc/products/bravo.tcw","details":{"status":"open","magnitude":"95 kts","position":"lat 28.7, lon -89.9","geometry":"Point","description":"Landfall with river flooding"},"lat":28.7,"lon":-89.9,"magnitude_value":95,"magnitude_unit":"kts","new":true},\
                    {"id":"EONET_9007","title":"Golf Fire, Oregon","date":"2025-09-18T12:00:00Z","groups":["wildfires"],"url":"\(server.baseURL)/api/v3/events/EONET_9007","details":{"status":"closed","closed":"2025-09-18T12:00:00Z","magnitude":"300 acres","position":"lat 44.06, lon -121.5","geometry":"Point"},"lat":44.06,"lon":-121.5,"magnitude_value":300,"magnitude_unit":"acres","new":true},\
                    {"id":"EONET_9012","title":"Lima Volcano, Chile","date":"2025-09-15T12:00:00Z","groups":["volcanoes"],"url":"https://volcano.si.edu/volcano.cfm?vn=357070","details":{"status":"open","position":"lat -38.4, lon -71.7","geometry":"Point"},"lat":-38.4,"lon":-71.7,"new":true},\
                    {"id":"EONET_9005","title":"Echo River Flood","date":"2025-09-13T12:00:00Z","groups":["floods"],"url":"https://floodobservatory.colorado.edu/Events/echo.html","details":{"status":"open","position":"lat -1.9, lon 31.2","geometry":"Point"},"lat":-1.9,"lon":31.2,"new":true},\
                    {"id":"EONET_9013","title":"Iceberg A23I","date":"2025-09-11T12:00:00Z","groups":["seaLakeIce"],"url":"https://usicecenter.gov/pub/Iceberg_Tabular.csv","details":{"status":"open","magnitude":"100.25 NM^2","position":"lat -52.37, lon -37.11","geometry":"Point"},"lat":-52.37,"lon":-37.11,"magnitude_value":100.25,"magnitude_unit":"NM^2","new":true},\
                    {"id":"EONET_9003","title":"Cyclone Charlie","date":"2025-09-03T12:00:00Z","groups":["severeStorms"],"url":"https://www.gdacs.org/Cyclones/report.aspx?eventid=1000746&eventtype=TC","details":{"status":"closed","closed":"2025-09-03T12:00:00Z","magnitude":"40 kts","position":"lat 11.3, lon 49.3","geometry":"Point"},"lat":11.3,"lon":49.3,"magnitude_value":40,"magnitude_unit":"kts","new":true},\
                    {"id":"EONET_9008","title":"Wildfire in Australia 1023712","date":"2025-08-09T12:00:00Z","groups":["wildfires"],"url":"\(server.baseURL)/api/v3/events/EONET_9008","details":{"status":"open","position":"lat -17.1407, lon 127.8473","geometry":"Point"},"lat":-17.14074812671574,"lon":127.84730549567904,"new":true}],\
                    "bytes":14902,"started":"<time>","durationMs":<duration>,"gap":null}
                    {"schema":1,"feed":"rxswift","type":"github","status":"ok","error":null,"requests":1,"notModified":0,"items":30,"new":30,"groups":[\
                    {"id":"PushEvent","title":"PushEvent","count":20,"new":20},\
                    {"id":"WatchEvent","title":"WatchEvent","count":10,"new":10}],"latest":[\
                    {"id":"5000030","title":"kzaher starred ReactiveX/RxSwift","date":"2024-06-01T12:00:00Z","groups":["WatchEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift"},"new":true},\
                    {"id":"5000029","title":"kzaher pushed to main","date":"2024-06-01T11:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/commits/main","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":true},\
                    {"id":"5000028","title":"kzaher pushed to main","date":"2024-06-01T10:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/0000000000000000000000009e3779b97f4a7c15...0000000000000000000000003c6ef372fe94f82a","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":true},\
                    {"id":"5000027","title":"kzaher starred ReactiveX/RxSwift","date":"2024-06-01T09:00:00Z","groups":["WatchEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift"},"new":true},\
                    {"id":"5000026","title":"kzaher pushed to main","date":"2024-06-01T08:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/000000000000000000000000daa66d2c7ddf743f...00000000000000000000000078dde6e5fd29f054","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":true},\
                    {"id":"5000025","title":"kzaher pushed to main","date":"2024-06-01T07:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/00000000000000000000000078dde6e5fd29f054...0000000000000000000000001715609f7c746c69","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":true},\
                    {"id":"5000024","title":"kzaher starred ReactiveX/RxSwift","date":"2024-06-01T06:00:00Z","groups":["WatchEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift"},"new":true},\
                    {"id":"5000023","title":"kzaher pushed to main","date":"2024-06-01T05:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/000000000000000000000000b54cda58fbbee87e...000000000000000000000000538454127b096493","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":true},\
                    {"id":"5000022","title":"kzaher pushed to main","date":"2024-06-01T04:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/000000000000000000000000538454127b096493...000000000000000000000000f1bbcdcbfa53e0a8","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":true},\
                    {"id":"5000021","title":"kzaher starred ReactiveX/RxSwift","date":"2024-06-01T03:00:00Z","groups":["WatchEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift"},"new":true}],\
                    "bytes":15435,"started":"<time>","durationMs":<duration>,"gap":null,"rateLimit":{"limit":60,"remaining":59,"reset":"2026-11-22T05:12:00Z","resource":"core"}}

                    """)

            let second = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", "state"], in: directory.url)
            #expect(second.status == 0)
            #expect(second.stderr == "")
            #expect(
                comparable(second.stdout) == """
                    {"schema":1,"feed":"planet","type":"eonet","status":"ok","error":null,"requests":14,"notModified":0,"items":13,"new":0,"groups":[\
                    {"id":"drought","title":"Drought","count":0,"new":0},\
                    {"id":"dustHaze","title":"Dust and Haze","count":1,"new":0,"breakdown":{"closed":1}},\
                    {"id":"earthquakes","title":"Earthquakes","count":0,"new":0},\
                    {"id":"floods","title":"Floods","count":2,"new":0,"breakdown":{"open":2}},\
                    {"id":"landslides","title":"Landslides","count":0,"new":0},\
                    {"id":"manmade","title":"Manmade","count":0,"new":0},\
                    {"id":"seaLakeIce","title":"Sea and Lake Ice","count":1,"new":0,"breakdown":{"open":1}},\
                    {"id":"severeStorms","title":"Severe Storms","count":4,"new":0,"breakdown":{"closed":2,"open":2}},\
                    {"id":"snow","title":"Snow","count":0,"new":0},\
                    {"id":"tempExtremes","title":"Temperature Extremes","count":0,"new":0},\
                    {"id":"volcanoes","title":"Volcanoes","count":2,"new":0,"breakdown":{"open":2}},\
                    {"id":"waterColor","title":"Water Color","count":0,"new":0},\
                    {"id":"wildfires","title":"Wildfires","count":4,"new":0,"breakdown":{"closed":2,"open":2}}],"latest":[\
                    {"id":"EONET_9014","title":"Mike Dust Storm, Sahara","date":"2025-09-22T12:00:00Z","groups":["dustHaze"],"url":"\(server.baseURL)/api/v3/events/EONET_9014","details":{"status":"closed","closed":"2025-09-22T12:00:00Z","position":"lat 23.1, lon 5.5","geometry":"Point"},"lat":23.1,"lon":5.5,"new":false},\
                    {"id":"EONET_9001","title":"Tropical Storm Alpha","date":"2025-09-22T00:00:00Z","groups":["severeStorms"],"url":"https://www.nhc.noaa.gov/text/alpha.shtml","details":{"status":"open","magnitude":"45.5 kts","position":"lat 15.2, lon -101","geometry":"Point"},"lat":15.2,"lon":-101,"magnitude_value":45.5,"magnitude_unit":"kts","new":false},\
                    {"id":"EONET_9006","title":"Foxtrot Fire, California","date":"2025-09-20T12:00:00Z","groups":["wildfires"],"url":"https://inciweb.wildfire.gov/incident?id=foxtrot&state=CA","details":{"status":"open","magnitude":"1250 acres","position":"lat 34.1916, lon -118.1054","geometry":"Point","description":"5 miles NE of Altadena, CA"},"lat":34.19163,"lon":-118.10544,"magnitude_value":1250,"magnitude_unit":"acres","new":false},\
                    {"id":"EONET_9002","title":"Hurricane Bravo","date":"2025-09-20T12:00:00Z","groups":["severeStorms","floods"],"url":"https://www.metoc.navy.mil/jtwc/products/bravo.tcw","details":{"status":"open","magnitude":"95 kts","position":"lat 28.7, lon -89.9","geometry":"Point","description":"Landfall with river flooding"},"lat":28.7,"lon":-89.9,"magnitude_value":95,"magnitude_unit":"kts","new":false},\
                    {"id":"EONET_9007","title":"Golf Fire, Oregon","date":"2025-09-18T12:00:00Z","groups":["wildfires"],"url":"\(server.baseURL)/api/v3/events/EONET_9007","details":{"status":"closed","closed":"2025-09-18T12:00:00Z","magnitude":"300 acres","position":"lat 44.06, lon -121.5","geometry":"Point"},"lat":44.06,"lon":-121.5,"magnitude_value":300,"magnitude_unit":"acres","new":false},\
                    {"id":"EONET_9012","title":"Lima Volcano, Chile","date":"2025-09-15T12:00:00Z","groups":["volcanoes"],"url":"https://volcano.si.edu/volcano.cfm?vn=357070","details":{"status":"open","position":"lat -38.4, lon -71.7","geometry":"Point"},"lat":-38.4,"lon":-71.7,"new":false},\
                    {"id":"EONET_9005","title":"Echo River Flood","date":"2025-09-13T12:00:00Z","groups":["floods"],"url":"https://floodobservatory.colorado.edu/Events/echo.html","details":{"status":"open","position":"lat -1.9, lon 31.2","geometry":"Point"},"lat":-1.9,"lon":31.2,"new":false},\
                    {"id":"EONET_9013","title":"Iceberg A23I","date":"2025-09-11T12:00:00Z","groups":["seaLakeIce"],"url":"https://usicecenter.gov/pub/Iceberg_Tabular.csv","details":{"status":"open","magnitude":"100.25 NM^2","position":"lat -52.37, lon -37.11","geometry":"Point"},"lat":-52.37,"lon":-37.11,"magnitude_value":100.25,"magnitude_unit":"NM^2","new":false},\
                    {"id":"EONET_9003","title":"Cyclone Charlie","date":"2025-09-03T12:00:00Z","groups":["severeStorms"],"url":"https://www.gdacs.org/Cyclones/report.aspx?eventid=1000746&eventtype=TC","details":{"status":"closed","closed":"2025-09-03T12:00:00Z","magnitude":"40 kts","position":"lat 11.3, lon 49.3","geometry":"Point"},"lat":11.3,"lon":49.3,"magnitude_value":40,"magnitude_unit":"kts","new":false},\
                    {"id":"EONET_9008","title":"Wildfire in Australia 1023712","date":"2025-08-09T12:00:00Z","groups":["wildfires"],"url":"\(server.baseURL)/api/v3/events/EONET_9008","details":{"status":"open","position":"lat -17.1407, lon 127.8473","geometry":"Point"},"lat":-17.14074812671574,"lon":127.84730549567904,"new":false}],\
                    "bytes":14902,"started":"<time>","durationMs":<duration>,"gap":null}
                    {"schema":1,"feed":"rxswift","type":"github","status":"not_modified","error":null,"requests":1,"notModified":1,"items":30,"new":0,"groups":[\
                    {"id":"PushEvent","title":"PushEvent","count":20,"new":0},\
                    {"id":"WatchEvent","title":"WatchEvent","count":10,"new":0}],"latest":[\
                    {"id":"5000030","title":"kzaher starred ReactiveX/RxSwift","date":"2024-06-01T12:00:00Z","groups":["WatchEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift"},"new":false},\
                    {"id":"5000029","title":"kzaher pushed to main","date":"2024-06-01T11:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/commits/main","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":false},\
                    {"id":"5000028","title":"kzaher pushed to main","date":"2024-06-01T10:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/0000000000000000000000009e3779b97f4a7c15...0000000000000000000000003c6ef372fe94f82a","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":false},\
                    {"id":"5000027","title":"kzaher starred ReactiveX/RxSwift","date":"2024-06-01T09:00:00Z","groups":["WatchEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift"},"new":false},\
                    {"id":"5000026","title":"kzaher pushed to main","date":"2024-06-01T08:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/000000000000000000000000daa66d2c7ddf743f...00000000000000000000000078dde6e5fd29f054","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":false},\
                    {"id":"5000025","title":"kzaher pushed to main","date":"2024-06-01T07:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/00000000000000000000000078dde6e5fd29f054...0000000000000000000000001715609f7c746c69","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":false},\
                    {"id":"5000024","title":"kzaher starred ReactiveX/RxSwift","date":"2024-06-01T06:00:00Z","groups":["WatchEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift"},"new":false},\
                    {"id":"5000023","title":"kzaher pushed to main","date":"2024-06-01T05:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/000000000000000000000000b54cda58fbbee87e...000000000000000000000000538454127b096493","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":false},\
                    {"id":"5000022","title":"kzaher pushed to main","date":"2024-06-01T04:00:00Z","groups":["PushEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift/compare/000000000000000000000000538454127b096493...000000000000000000000000f1bbcdcbfa53e0a8","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift","ref":"main"},"new":false},\
                    {"id":"5000021","title":"kzaher starred ReactiveX/RxSwift","date":"2024-06-01T03:00:00Z","groups":["WatchEvent"],"url":"\(server.baseURL)/ReactiveX/RxSwift","details":{"actor":"kzaher","repo":"ReactiveX/RxSwift"},"new":false}],\
                    "bytes":0,"started":"<time>","durationMs":<duration>,"gap":null,"rateLimit":{"limit":60,"remaining":59,"reset":"2026-11-22T05:12:00Z","resource":"core"}}

                    """)
        }
    }

    @Test("run --once in text: a summary per feed; events and status read the state offline")
    func runOnceText() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(planetAndGitHub()) { server in
            try directory.write("feeds.yaml", feeds(server))
            let run = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(run.status == 0)
            #expect(run.stderr == "")
            // Without escape sequences: standard output is not a terminal.
            #expect(
                comparable(run.stdout) == """
                    rxswift (github): ok — 30 items, 30 new, 1 request, <duration>
                      event type  items  new
                      PushEvent      20  +20
                      WatchEvent     10  +10
                      latest (UTC):
                      * 2024-06-01    kzaher starred ReactiveX/RxSwift  (ReactiveX/RxSwift)
                      * 2024-06-01    kzaher pushed to main  (ReactiveX/RxSwift)
                      * 2024-06-01    kzaher pushed to main  (ReactiveX/RxSwift)
                      * 2024-06-01    kzaher starred ReactiveX/RxSwift  (ReactiveX/RxSwift)
                      * 2024-06-01    kzaher pushed to main  (ReactiveX/RxSwift)
                      rate limit: 59/60 remaining, resets 05:12 UTC

                    planet (eonet): ok — 13 items, 13 new, 14 requests, <duration>
                      category              events  open  closed  new
                      Drought                    0     0       0
                      Dust and Haze              1     0       1   +1
                      Earthquakes                0     0       0
                      Floods                     2     2       0   +2
                      Landslides                 0     0       0
                      Manmade                    0     0       0
                      Sea and Lake Ice           1     1       0   +1
                      Severe Storms              4     2       2   +4
                      Snow                       0     0       0
                      Temperature Extremes       0     0       0
                      Volcanoes                  2     2       0   +2
                      Water Color                0     0       0
                      Wildfires                  4     2       2   +4
                      13 distinct events in <duration>


                    """)
        }
        // The server is gone: these read the state only.
        let events = try await MonitorProcess.run(
            ["events", "planet", "--group", "severeStorms", "--format", "json", "--state", "state"], in: directory.url)
        #expect(events.status == 0)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [[String: Any]])
        #expect(items.count == 4)
        #expect(items.allSatisfy { ($0["groups"] as? [String])?.contains("severeStorms") == true })
        let dates = items.compactMap { $0["date"] as? String }
        #expect(dates == dates.sorted(by: >))

        let limited = try await MonitorProcess.run(
            ["events", "rxswift", "--limit", "2", "--state", "state"], in: directory.url)
        #expect(limited.stdout.split(separator: "\n").count == 3)  // a header and two items

        let unknown = try await MonitorProcess.run(["events", "planett", "--state", "state"], in: directory.url)
        #expect(unknown.status == 1)
        #expect(
            unknown.stderr
                == "monitor events: error: no stored feed named 'planett' (did you mean 'planet'? stored feeds: planet, rxswift)\n"
        )

        let status = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
        #expect(status.status == 0)
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("  rxswift  github  ok"))
        #expect(lines[1].hasSuffix(" 30"))
        #expect(lines[2].hasPrefix("  planet   eonet   ok"))
        #expect(lines[2].hasSuffix(" 13"))
    }

    @Test("a feed whose server answers 500 fails alone, with a clear error, and exits 1")
    func serverError() async throws {
        let directory = try TemporaryDirectory()
        let planet = planetAndGitHub()
        try await withTestHTTPServer({ request in
            request.path.hasPrefix("/api/v3/") ? planet(request) : .text("oops", status: 500)
        }) { server in
            try directory.write(
                "feeds.yaml", feeds(server).replacingOccurrences(of: "timeout: 1h", with: "timeout: 1h\n  retries: 0")
            )
            let run = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", "state"], in: directory.url)
            #expect(run.status == 1)
            let all = try reports(run.stdout)
            #expect(all["planet"]?["status"] as? String == "ok")
            #expect(all["rxswift"]?["status"] as? String == "failed")
            #expect(
                all["rxswift"]?["error"] as? String
                    == "GET \(server.baseURL)/repos/ReactiveX/RxSwift/events?per_page=50: HTTP 500 Internal Server Error: oops"
            )
        }
    }

    @Test("EONET on the wire: at most `concurrency` category requests in flight, and one failing category is partial")
    func eonetOnTheWire() async throws {
        let directory = try TemporaryDirectory()
        let planet = planetAndGitHub()
        // The first two event lists are answered only once both are asked: two at once is reached for sure.
        let two = Rendezvous(2)
        try await withTestHTTPServer({ request in
            if request.query["category"] == "volcanoes" { return .text("down", status: 503) }
            if request.path.hasSuffix("/events") { await two.arrive() }
            return planet(request)
        }) { server in
            try directory.write(
                "feeds.yaml",
                """
                settings:
                  retries: 0
                feeds:
                  - name: planet
                    type: eonet
                    api: \(server.baseURL)/api/v3
                    concurrency: 2
                """)
            let run = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", "state"], in: directory.url)
            #expect(run.status == 1)
            let report = try #require(try reports(run.stdout)["planet"])
            #expect(report["status"] as? String == "partial")
            #expect(
                report["error"] as? String
                    == "category 'volcanoes': GET \(server.baseURL)/api/v3/events?category=volcanoes&status=all&days=360: HTTP 503 Service Unavailable: down"
            )
            #expect(report["items"] as? Int == 11)
            #expect(server.maxInFlight == 2)
            #expect(server.requests.count == 14)
        }
    }

    @Test("SIGINT stops a running monitor: exit 0, with the state intact")
    func interrupt() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(planetAndGitHub()) { server in
            try directory.write("feeds.yaml", feeds(server, interval: "1h"))
            let monitor = try await RunningMonitor(["run", "--format", "json", "--state", "state"], in: directory.url)
            try await monitor.waitForOutput { $0.contains(#""feed":"planet""#) && $0.contains(#""feed":"rxswift""#) }
            monitor.send(SIGINT)
            // That it stops at all is bounded by the suite's time limit; how fast is for benchmarks, not a test.
            #expect(try await monitor.waitForExit() == 0)
        }
        let store = try SQLiteStateStore(directory: directory.url.appendingPathComponent("state"))
        #expect(try await store.items(feed: "planet").count == 13)
        #expect(try await store.items(feed: "rxswift").count == 30)
        #expect(try await store.records().map(\.status) == ["ok", "ok"])
    }

    @Test(
        "RunningMonitor sees a start that fails at once end, with all it printed (the harness); tried 8 times",
        arguments: 1...8)
    func endsAtOnce(_ attempt: Int) async throws {
        let directory = try TemporaryDirectory()
        // A launcher that fails before `monitor` starts: its output and its end come before they are read.
        let monitor = try await RunningMonitor(
            ["run"], in: directory.url, launcher: ["/bin/sh", "-c", "echo cannot >&2; echo start; exit 3"])
        await #expect(throws: ProcessEnded.self) { try await monitor.waitForOutput { _ in false } }
        #expect(try await monitor.waitForExit() == 3)
        #expect(monitor.stdout == "start\n")
        #expect(monitor.stderr == "cannot\n")
    }
}
