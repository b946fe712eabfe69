import AsyncHTTPClient
import Foundation
import LoopbackHTTP
import NIOCore
import TestSupport
import Testing

@testable import MonitorCore

/// A server playing GitHub for three repositories: `o/a` answers 3 events with an ETag (then 304 to it), `o/b`
/// answers 500 with a rate limit whose resource name has a quote and a backslash.
private func github() -> (handler: @Sendable (RecordedRequest) -> TestResponse, body: String) {
    let now = Date()
    let events = (0..<3).map { index in
        GitHubFixtures.Event(
            id: "\(7_000 + index)", type: "WatchEvent", actor: "octocat", repo: "o/a",
            date: now.addingTimeInterval(-Double(index) * 60), payload: .object([("action", "started")]))
    }
    let body = GitHubFixtures.eventsJSON(events)
    let reset = "\(Int(now.timeIntervalSince1970) + 3600)"
    let handler: @Sendable (RecordedRequest) -> TestResponse = { request in
        switch request.path {
        case "/repos/o/a/events":
            let limit = [
                (name: "X-RateLimit-Limit", value: "5000"), (name: "X-RateLimit-Reset", value: reset),
                (name: "X-RateLimit-Resource", value: "core"), (name: "ETag", value: #"W/"a1""#),
            ]
            if request.header("If-None-Match") == #"W/"a1""# {
                return TestResponse(status: 304, headers: limit + [(name: "X-RateLimit-Remaining", value: "4998")])
            }
            return .json(body, headers: limit + [(name: "X-RateLimit-Remaining", value: "4999")])
        case "/repos/o/b/events":
            return .text(
                "oops", status: 500,
                headers: [
                    (name: "X-RateLimit-Remaining", value: "7"), (name: "X-RateLimit-Resource", value: #"a"b\c"#),
                ])
        default:
            return .text("no such thing", status: 404)
        }
    }
    return (handler, body)
}

private func feeds(_ server: TestHTTPServer, intervalOfA: String) -> String {
    """
    settings:
      retries: 0
      timeout: 1h
    feeds:
      - name: a
        type: github
        repo: o/a
        token: ghp_metricsSecret0123456789
        api: \(server.baseURL)
        interval: \(intervalOfA)
      - name: b
        type: github
        repo: o/b
        api: \(server.baseURL)
        interval: 1h
      - name: c
        type: github
        repo: o/c
        api: http://127.0.0.1:1
        interval: 1h
    """
}

/// The feeds that printed a JSON report in `text`, one entry per report, in order.
private func reported(_ text: String) -> [String] {
    text.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["feed"] as? String
    }
}

/// A feeds file with one exec feed, `tick`, whose program reports one item every second.
private let tickingFeed = """
    feeds:
      - name: tick
        type: exec
        command: [sh, -c, "echo '{\\"item\\":{\\"id\\":\\"t\\",\\"title\\":\\"Tick\\",\\"date\\":\\"2025-09-21T18:00:00Z\\"}}'"]
        interval: 1s
    """

/// The statuses of the polls of `tick` reported in `text`, in order.
private func ticks(_ text: String) -> [String] {
    text.split(separator: "\n").compactMap { line in
        guard let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            report["feed"] as? String == "tick"
        else { return nil }
        return report["status"] as? String
    }
}

/// A launcher that starts `monitor` through a shell with `limits` set first (`ulimit` arguments).
private func limited(_ limits: String) -> [String] {
    ["/bin/sh", "-c", "\(limits) && exec \"$0\" \"$@\""]
}

/// Sends `method` to `url` and returns the status, the header values by lowercased name, and the body.
func fetch(_ url: String, method: String = "GET") async throws -> (Int, [String: [String]], String) {
    var request = HTTPClientRequest(url: url)
    request.method = .init(rawValue: method)
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
    let body = try await response.body.collect(upTo: 1 << 24)
    let headers = Dictionary(grouping: response.headers, by: { $0.name.lowercased() }).mapValues { $0.map(\.value) }
    return (Int(response.status.code), headers, String(buffer: body))
}

@Suite("monitor run --metrics serves Prometheus metrics", .timeLimit(.minutes(5)))
struct MetricsEndToEndTests {
    @Test(
        "the counters of real polls, read with a real Prometheus parser; 404 and 405 (an unknown method too) elsewhere")
    func metricsOfRealPolls() async throws {
        let directory = try TemporaryDirectory()
        let (handler, body) = github()
        try await withTestHTTPServer(handler) { server in
            try directory.write("feeds.yaml", feeds(server, intervalOfA: "1h"))
            let before = Date().timeIntervalSince1970
            let monitor = try await RunningMonitor(
                ["run", "--format", "json", "--state", "state", "--metrics", "127.0.0.1:0"], in: directory.url)
            let errors = try await monitor.waitForErrors { $0.contains("/metrics\n") }
            let address = try #require(
                errors.firstMatch(of: /^metrics on (http:\/\/127\.0\.0\.1:[0-9]+\/metrics)\n/)?.output.1)
            #expect(errors == "metrics on \(address)\n")

            // Each feed polled once; then a's interval changes, which restarts it: its second poll is answered 304.
            try await monitor.waitForOutput { Set(reported($0)) == ["a", "b", "c"] }
            try directory.write("feeds.yaml", feeds(server, intervalOfA: "2h"), atomically: true)
            try await monitor.waitForOutput { reported($0).filter { $0 == "a" }.count == 2 }
            #expect(reported(monitor.stdout).sorted() == ["a", "a", "b", "c"])

            let (status, headers, text) = try await fetch(String(address))
            let after = Date().timeIntervalSince1970
            #expect(status == 200)
            #expect(headers["content-type"] == ["text/plain; version=0.0.4; charset=utf-8"])
            #expect(!text.contains("ghp_metricsSecret"))
            let metrics = try PrometheusText(text)
            let origin = "http://127.0.0.1:\(server.port)"

            #expect(
                Set(metrics.samples("monitor_polls_total")) == [
                    .init("monitor_polls_total", ["feed": "a", "status": "ok"], 1),
                    .init("monitor_polls_total", ["feed": "a", "status": "not_modified"], 1),
                    .init("monitor_polls_total", ["feed": "b", "status": "failed"], 1),
                    .init("monitor_polls_total", ["feed": "c", "status": "failed"], 1),
                ])
            #expect(
                Set(metrics.samples("monitor_http_requests_total")) == [
                    .init("monitor_http_requests_total", ["feed": "a", "code": "200"], 1),
                    .init("monitor_http_requests_total", ["feed": "a", "code": "304"], 1),
                    .init("monitor_http_requests_total", ["feed": "b", "code": "500"], 1),
                    .init("monitor_http_requests_total", ["feed": "c", "code": "error"], 1),
                ])
            #expect(server.requests.count == 3)
            #expect(
                Set(metrics.samples("monitor_http_not_modified_total")) == [
                    .init("monitor_http_not_modified_total", ["feed": "a"], 1)
                ])
            #expect(
                Set(metrics.samples("monitor_http_response_bytes_total")) == [
                    .init("monitor_http_response_bytes_total", ["feed": "a"], Double(body.utf8.count)),
                    .init("monitor_http_response_bytes_total", ["feed": "b"], 4),
                ])
            #expect(Set(metrics.samples("monitor_items")) == [.init("monitor_items", ["feed": "a"], 3)])
            #expect(
                Set(metrics.samples("monitor_new_items_total")) == [
                    .init("monitor_new_items_total", ["feed": "a"], 3)
                ])
            #expect(
                Set(metrics.samples("monitor_rate_limit_remaining")) == [
                    .init("monitor_rate_limit_remaining", ["origin": origin, "resource": "core"], 4998),
                    .init("monitor_rate_limit_remaining", ["origin": origin, "resource": #"a"b\c"#], 7),
                ])
            let lastSuccess = try #require(metrics.samples("monitor_last_success_timestamp_seconds").first)
            #expect(metrics.samples("monitor_last_success_timestamp_seconds").count == 1)
            #expect(lastSuccess.labels == ["feed": "a"])
            #expect(lastSuccess.value >= before && lastSuccess.value <= after)

            // The histogram: by feed, the buckets asked for, cumulative, +Inf equal to the count.
            let buckets = ["0.05", "0.1", "0.25", "0.5", "1.0", "2.5", "5.0", "10.0", "30.0", "60.0", "+Inf"]
            for (feed, polls) in [("a", 2.0), ("b", 1), ("c", 1)] {
                let counts = buckets.map {
                    metrics.value("monitor_poll_duration_seconds_bucket", ["feed": feed, "le": $0])
                }
                #expect(counts.allSatisfy { $0 != nil }, "feed \(feed): \(counts)")
                let values = counts.compactMap { $0 }
                #expect(values == values.sorted(), "feed \(feed): buckets not cumulative: \(values)")
                #expect(values.last == polls)
                #expect(metrics.value("monitor_poll_duration_seconds_count", ["feed": feed]) == polls)
                let sum = try #require(metrics.value("monitor_poll_duration_seconds_sum", ["feed": feed]))
                #expect(sum >= 0 && sum <= after - before)
            }
            #expect(metrics.samples("monitor_poll_duration_seconds_bucket").count == 3 * buckets.count)
            #expect(
                metrics.types == [
                    "monitor_polls_total": "counter", "monitor_http_requests_total": "counter",
                    "monitor_http_not_modified_total": "counter", "monitor_http_response_bytes_total": "counter",
                    "monitor_items": "gauge", "monitor_new_items_total": "counter",
                    "monitor_rate_limit_remaining": "gauge", "monitor_last_success_timestamp_seconds": "gauge",
                    "monitor_config_last_reload_successful": "gauge",
                    "monitor_config_last_reload_success_timestamp_seconds": "gauge",
                    "monitor_poll_duration_seconds": "histogram",
                ])

            // The real parser reads the same samples.
            if let parsed = try await PrometheusText.parsedByPrometheusClient(text) {
                #expect(Set(parsed.samples) == Set(metrics.samples))
                #expect(parsed.samples.count == metrics.samples.count)
                #expect(parsed.types["monitor_polls"] == "counter")
                #expect(parsed.types["monitor_poll_duration_seconds"] == "histogram")
                #expect(parsed.types["monitor_rate_limit_remaining"] == "gauge")
            }

            // Elsewhere: 404; another method: 405.
            let base = String(address.dropLast("/metrics".count))
            let (missing, _, missingBody) = try await fetch(base + "/metric")
            #expect(missing == 404)
            #expect(missingBody == "not found: the metrics are at /metrics\n")
            let (root, _, _) = try await fetch(base + "/")
            #expect(root == 404)
            let (posted, postedHeaders, postedBody) = try await fetch(String(address), method: "POST")
            #expect(posted == 405)
            #expect(postedHeaders["allow"] == ["GET, HEAD"])
            #expect(postedBody == "method not allowed: GET or HEAD /metrics\n")
            // A method the HTTP parser does not know: 405 too, then the connection is closed.
            let (brewed, brewedHeaders, brewedBody) = try await fetch(String(address), method: "BREW")
            #expect(brewed == 405)
            #expect(brewedHeaders["allow"] == ["GET, HEAD"])
            #expect(brewedHeaders["connection"] == ["close"])
            #expect(brewedBody == "method not allowed: GET or HEAD\n")
            let (query, _, _) = try await fetch(address + "?debug=1")
            #expect(query == 200)

            monitor.send(SIGTERM)
            #expect(try await monitor.waitForExit() == 0)
        }
    }

    @Test("a port already in use is a clear error, exit 1")
    func portInUse() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer({ _ in .text("taken") }) { server in
            try directory.write("feeds.yaml", feeds(server, intervalOfA: "1h"))
            let run = try await MonitorProcess.run(
                ["run", "--state", "state", "--metrics", "127.0.0.1:\(server.port)"], in: directory.url)
            #expect(run.status == 1)
            #expect(
                run.stderr
                    == "monitor: error: cannot serve metrics on 127.0.0.1:\(server.port): the port is already in use\n")
            #expect(run.stdout == "")
            #expect(server.requests.isEmpty)
        }
    }

    @Test("--metrics with --once, or with a host name, is a usage error (exit 64)")
    func usageErrors() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", "feeds: []\n")
        let once = try await MonitorProcess.run(["run", "--once", "--metrics", "9464"], in: directory.url)
        #expect(once.status == 64)
        #expect(once.stderr.hasPrefix("Error: --metrics serves while monitor runs; it cannot be used with --once\n"))
        let named = try await MonitorProcess.run(["run", "--metrics", "example.com:9464"], in: directory.url)
        #expect(named.status == 64)
        #expect(
            named.stderr.hasPrefix(
                "Error: The value 'example.com:9464' is invalid for '--metrics <[host:]port>': 'example.com' is not an "
                    + "IP address; give localhost, an address of this machine, or 0.0.0.0 for every interface\n"))
    }

    @Test(
        "a flood of idle connections beyond the open-files limit: monitor lives on, answers /metrics, its feed polls")
    func floodOfIdleConnections() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", tickingFeed)
        // 128 open files at most, soft and hard: 200 connections would take them all.
        let monitor = try await RunningMonitor(
            ["run", "--format", "json", "--state", "state", "--metrics", "127.0.0.1:0"], in: directory.url,
            launcher: limited("ulimit -n 128"))
        let errors = try await monitor.waitForErrors { $0.contains("/metrics\n") }
        let match = try #require(errors.firstMatch(of: /^metrics on (http:\/\/127\.0\.0\.1:([0-9]+)\/metrics)\n/))
        let (address, port) = (String(match.output.1), try #require(Int(match.output.2)))
        try await monitor.waitForOutput { !ticks($0).isEmpty }

        // Held: 32 connections (a quarter of the limit); each one more closes the oldest, which never said anything.
        let flood = try await IdleConnections.open(200, port: port)
        for index in 0..<(200 - 32) {
            try await flood.waitUntilClosed(index)
        }
        let polled = ticks(monitor.stdout).count
        let (status, headers, text) = try await fetch(address)
        #expect(status == 200)
        #expect(headers["content-type"] == ["text/plain; version=0.0.4; charset=utf-8"])
        let polls = try PrometheusText(text).samples("monitor_polls_total")
        #expect(polls.map(\.labels) == [["feed": "tick", "status": "ok"]])
        #expect((polls.first?.value ?? 0) >= Double(polled))

        // The feed goes on polling, and its program still starts.
        try await monitor.waitForOutput { ticks($0).count >= polled + 2 }
        #expect(Set(ticks(monitor.stdout)) == ["ok"])
        await flood.close()
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0)
        #expect(monitor.stderr == "metrics on \(address)\n")
    }

    @Test("at start, the soft open-files limit is raised to the hard one")
    func openFilesLimitRaised() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", tickingFeed)
        let monitor = try await RunningMonitor(
            ["run", "--format", "json", "--state", "state"], in: directory.url,
            launcher: limited("ulimit -S -n 64 && ulimit -H -n 512"))
        try await monitor.waitForOutput { !ticks($0).isEmpty }
        let limits = try String(contentsOfFile: "/proc/\(monitor.pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).suffix(3) == ["512", "512", "files"])
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0)
    }
}
