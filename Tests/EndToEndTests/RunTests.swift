import Foundation
import LoopbackHTTP
import MonitorCore
import MonitorSQLite
import TestSupport
import Testing

/// A server playing both GitHub (at its root) and EONET (under /api/v3), with a repository of 30 events.
private func planetAndGitHub() -> @Sendable (RecordedRequest) -> TestResponse {
    let github = GitHubFixtures.API()
    let now = Date()
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
      - name: planet
        type: eonet
        api: \(server.baseURL)/api/v3
        interval: \(interval)
    """
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
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.split(separator: "\n").count == 2)
            let one = try reports(first.stdout)
            let planet = try #require(one["planet"])
            #expect(planet["schema"] as? Int == 1)
            #expect(planet["type"] as? String == "eonet")
            #expect(planet["status"] as? String == "ok")
            #expect(planet["error"] is NSNull)
            #expect(planet["requests"] as? Int == 14)
            #expect(planet["items"] as? Int == 13)
            #expect(planet["new"] as? Int == 13)
            let groups = try #require(planet["groups"] as? [[String: Any]])
            #expect(groups.count == 13)
            let counts = Dictionary(uniqueKeysWithValues: groups.map { ($0["id"] as! String, $0["count"] as! Int) })
            #expect(counts["severeStorms"] == 4)
            #expect(counts["wildfires"] == 4)
            #expect(counts["floods"] == 2)
            #expect(counts["drought"] == 0)
            let rxswift = try #require(one["rxswift"])
            #expect(rxswift["status"] as? String == "ok")
            #expect(rxswift["items"] as? Int == 30)
            #expect(rxswift["new"] as? Int == 30)
            #expect(
                (rxswift["groups"] as? [[String: Any]])?.map { $0["id"] as? String } == ["PushEvent", "WatchEvent"])

            let second = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", "state"], in: directory.url)
            #expect(second.status == 0)
            let two = try reports(second.stdout)
            #expect(two["rxswift"]?["status"] as? String == "not_modified")
            #expect(two["rxswift"]?["requests"] as? Int == 1)
            #expect(two["rxswift"]?["notModified"] as? Int == 1)
            #expect(two["rxswift"]?["items"] as? Int == 30)
            #expect(two["rxswift"]?["new"] as? Int == 0)
            #expect(two["planet"]?["status"] as? String == "ok")
            #expect(two["planet"]?["new"] as? Int == 0)
        }
    }

    @Test("run --once in text: a summary per feed; events and status read the state offline")
    func runOnceText() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(planetAndGitHub()) { server in
            try directory.write("feeds.yaml", feeds(server))
            let run = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("rxswift (github): ok — 30 items, 30 new, 1 request"))
            #expect(run.stdout.contains("planet (eonet): ok — 13 items, 13 new, 14 requests"))
            #expect(run.stdout.contains("\u{1B}") == false)
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
