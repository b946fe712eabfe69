import Foundation
import LoopbackHTTP
import MonitorText
import TestSupport
import Testing

@testable import MonitorCore

/// The JSON of `count` stars of `repo` a minute apart, the newest now, with ids from `firstID`.
func starEvents(_ count: Int, repo: String, firstID: Int) -> String {
    let now = Date()
    return GitHubFixtures.eventsJSON(
        (0..<count).map { index in
            GitHubFixtures.Event(
                id: "\(firstID + index)", type: "WatchEvent", actor: "octocat", repo: repo,
                date: now.addingTimeInterval(-Double(index) * 60), payload: .object([("action", "started")]))
        })
}

/// A server playing GitHub: `o/a` answers 3 events, `o/b` 500, `o/d` 429 asking to wait an hour.
private func github() -> @Sendable (RecordedRequest) -> TestResponse {
    let body = starEvents(3, repo: "o/a", firstID: 8_000)
    return { request in
        switch request.path {
        case "/repos/o/a/events": .json(body)
        case "/repos/o/b/events": .text("oops", status: 500)
        case "/repos/o/d/events": .text("slow down", status: 429, headers: [(name: "Retry-After", value: "3600")])
        default: .text("no such thing", status: 404)
        }
    }
}

/// The feeds file: `a` alone, or with `b` (500), `c` (nothing listens) and `d` (held back); each with a token.
private func feeds(_ server: TestHTTPServer, all: Bool) -> String {
    let names = all ? ["a", "b", "c", "d"] : ["a"]
    return "settings:\n  retries: 0\n  timeout: 1h\nfeeds:\n"
        + names.map { name in
            """
              - name: \(name)
                type: github
                repo: o/\(name)
                token: ghp_healthSecret0123456789\(name)
                api: \(name == "c" ? "http://127.0.0.1:1" : server.baseURL)
                interval: 1h

            """
        }.joined()
}

/// The JSON reports of `text` (`run --format json`), by feed: the last one of each.
private func reports(_ text: String) -> [String: [String: Any]] {
    var reports: [String: [String: Any]] = [:]
    for line in text.split(separator: "\n") {
        guard let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let feed = report["feed"] as? String
        else { continue }
        reports[feed] = report
    }
    return reports
}

/// `text` with its times (`05:12:00 UTC`, with the day before it on another day) written `TIME`.
private func timesMasked(_ text: String) -> String {
    text.replacing(/([0-9]{4}-[0-9]{2}-[0-9]{2} )?[0-9]{2}:[0-9]{2}:[0-9]{2} UTC/, with: "TIME")
}

@Suite("monitor run --metrics answers /healthz and /readyz", .timeLimit(.minutes(5)))
struct HealthEndToEndTests {
    @Test("/readyz 200 once running; /healthz 200 ok, then 503 naming each failing and held-back feed, no secret")
    func healthOfRealPolls() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(github()) { server in
            try directory.write("feeds.yaml", feeds(server, all: false))
            let monitor = try await RunningMonitor(
                ["run", "--format", "json", "--state", "state", "--metrics", "127.0.0.1:0"], in: directory.url)
            let errors = try await monitor.waitForErrors { $0.contains("/metrics\n") }
            let address = try #require(
                errors.firstMatch(of: /^metrics on (http:\/\/127\.0\.0\.1:[0-9]+)\/metrics\n/)?.output.1)
            let base = String(address)
            try await monitor.waitForOutput { reports($0)["a"] != nil }

            let (ready, readyHeaders, readyBody) = try await fetch(base + "/readyz")
            #expect(ready == 200)
            #expect(readyHeaders["content-type"] == ["text/plain; charset=utf-8"])
            #expect(readyBody == "ready\n")
            let (healthy, _, healthyBody) = try await fetch(base + "/healthz")
            #expect(healthy == 200)
            #expect(healthyBody == "ok\n")

            // b, c and d join: each fails, d held back an hour by its server.
            try directory.write("feeds.yaml", feeds(server, all: true), atomically: true)
            try await monitor.waitForOutput { Set(reports($0).keys) == ["a", "b", "c", "d"] }
            let polled = reports(monitor.stdout)
            let error = { (feed: String) in TerminalText.sanitized(polled[feed]?["error"] as? String ?? "none") }
            #expect(
                polled.mapValues { $0["status"] as? String } == [
                    "a": "ok", "b": "failed", "c": "failed", "d": "failed",
                ])

            let (status, headers, body) = try await fetch(base + "/healthz")
            #expect(status == 503)
            #expect(headers["content-type"] == ["text/plain; charset=utf-8"])
            #expect(
                timesMasked(body)
                    == timesMasked(
                        """
                        b: failing since TIME: \(error("b"))
                        c: failing since TIME: \(error("c"))
                        d: failing since TIME: \(error("d"))
                        d: held back until TIME

                        """))
            #expect(!body.contains("ghp_"))
            let (head, headHeaders, headBody) = try await fetch(base + "/healthz", method: "HEAD")
            #expect(head == 503)
            #expect(headHeaders["content-length"] == ["\(body.utf8.count)"])
            #expect(headBody == "")
            let (stillReady, _, _) = try await fetch(base + "/readyz")
            #expect(stillReady == 200)

            monitor.send(SIGTERM)
            #expect(try await monitor.waitForExit() == 0)
        }
    }
}
