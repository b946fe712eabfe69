import Foundation
import LoopbackHTTP
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

/// Prometheus's own programs (Debian's `prometheus` package, which scripts/setup installs): nil where not installed.
enum PrometheusPrograms {
    static func find(_ name: String) -> String? {
        ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"].map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let promtool = find("promtool")
    static let server = find("prometheus")
}

/// A server playing GitHub: `o/a` answers 2 events with a rate limit, `o/b` 500.
private func github() -> @Sendable (RecordedRequest) -> TestResponse {
    let body = starEvents(2, repo: "o/a", firstID: 9_000)
    return { request in
        switch request.path {
        case "/repos/o/a/events":
            .json(
                body,
                headers: [(name: "X-RateLimit-Remaining", value: "4999"), (name: "X-RateLimit-Limit", value: "5000")])
        default: .text("oops", status: 500)
        }
    }
}

private func feeds(_ server: TestHTTPServer) -> String {
    """
    settings:
      retries: 0
      timeout: 1h
    feeds:
      - name: a
        type: github
        repo: o/a
        api: \(server.baseURL)
        interval: 1h
      - name: b
        type: github
        repo: o/b
        api: \(server.baseURL)
        interval: 1h
    """
}

/// The feeds that printed a JSON report in `text`.
private func reported(_ text: String) -> Set<String> {
    Set(
        text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["feed"] as? String
        })
}

/// Runs `monitor run --metrics` on feeds `a` (ok) and `b` (failing) until both polled once, then `body` with the
/// address of its metrics (`127.0.0.1:PORT`); then stops it.
private func withPolledMonitor(_ body: (String) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    try await withTestHTTPServer(github()) { server in
        try directory.write("feeds.yaml", feeds(server))
        let monitor = try await RunningMonitor(
            ["run", "--format", "json", "--state", "state", "--metrics", "127.0.0.1:0"], in: directory.url)
        let errors = try await monitor.waitForErrors { $0.contains("/metrics\n") }
        let address = try #require(
            errors.firstMatch(of: /^metrics on http:\/\/(127\.0\.0\.1:[0-9]+)\/metrics\n/)?.output.1)
        try await monitor.waitForOutput { reported($0) == ["a", "b"] }
        try await body(String(address))
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0)
    }
}

@Suite("Prometheus's own tools read what monitor run --metrics serves", .timeLimit(.minutes(5)))
struct PrometheusEndToEndTests {
    @Test(
        "promtool check metrics finds nothing to say of the exposition",
        .enabled(
            if: PrometheusPrograms.promtool != nil, "promtool is not installed (scripts/setup installs it): skipped"))
    func promtoolCheck() async throws {
        let promtool = try #require(PrometheusPrograms.promtool)
        try await withPolledMonitor { address in
            let (status, _, text) = try await fetch("http://\(address)/metrics")
            #expect(status == 200)
            #expect(text.contains("# HELP monitor_polls_total "))
            let (exit, output, errors) = try await ChildProcess.run(
                promtool, ["check", "metrics"], input: Array(text.utf8))
            #expect(String(decoding: output, as: UTF8.self) == "")
            #expect(String(decoding: errors, as: UTF8.self) == "")
            #expect(exit == 0)
        }
    }

    @Test(
        "a real Prometheus server scrapes it: up is 1, monitor_polls_total counts the polls",
        .enabled(
            if: PrometheusPrograms.server != nil, "prometheus is not installed (scripts/setup installs it): skipped"))
    func scrapedByPrometheus() async throws {
        let program = try #require(PrometheusPrograms.server)
        try await withPolledMonitor { address in
            let directory = try TemporaryDirectory()
            let port = try PostgresServer.freePort()
            let config = try directory.write(
                "prometheus.yml",
                """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: monitor
                    static_configs:
                      - targets: ["\(address)"]
                """)
            let log = open(
                directory.url.appendingPathComponent("prometheus.log").path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard log >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let prometheus = try await ChildProcess.start(
                program,
                [
                    "--config.file=\(config.path)", "--storage.tsdb.path=\(directory.url.path)/data",
                    "--web.listen-address=127.0.0.1:\(port)",
                ],
                in: directory.url, input: try ChildProcess.nullDevice(), output: try ChildProcess.nullDevice(),
                error: log)
            do {
                let api = "http://127.0.0.1:\(port)/api/v1/query?query="
                // The event: Prometheus's API answering the scrape's results; polled until then (it takes a few
                // seconds to start and to scrape), with the suite's time limit as the safety net.
                let up = try await PrometheusQuery.waitFor(api + "up") { !$0.isEmpty }
                #expect(up.map(\.labels) == [["__name__": "up", "instance": address, "job": "monitor"]])
                #expect(up.map(\.value) == ["1"])
                let polls = try await PrometheusQuery.waitFor(api + "monitor_polls_total") { $0.count == 2 }
                #expect(
                    Set(polls.map { "\($0.labels["feed"] ?? "?") \($0.labels["status"] ?? "?") \($0.value)" }) == [
                        "a ok 1", "b failed 1",
                    ])
                #expect(polls.allSatisfy { $0.labels["job"] == "monitor" && $0.labels["instance"] == address })
            } catch {
                prometheus.send(SIGKILL)
                _ = try? await prometheus.waitForExit()
                throw error
            }
            prometheus.send(SIGTERM)
            #expect(try await prometheus.waitForExit() == 0)
        }
    }
}

/// Prometheus's HTTP API, `/api/v1/query`.
enum PrometheusQuery {
    struct Sample: Sendable {
        var labels: [String: String]
        var value: String
    }

    /// The instant vector `url` answers, asked again every 200 ms until it answers one that satisfies `condition`
    /// (a refused connection, while Prometheus starts, is asked again too).
    static func waitFor(_ url: String, _ condition: ([Sample]) -> Bool) async throws -> [Sample] {
        while true {
            try Task.checkCancellation()
            if let (status, _, body) = try? await fetch(url), status == 200, let samples = samples(body),
                condition(samples)
            {
                return samples
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The samples of a `resultType: vector` answer; nil for anything else.
    static func samples(_ body: String) -> [Sample]? {
        guard let answer = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            answer["status"] as? String == "success", let data = answer["data"] as? [String: Any],
            data["resultType"] as? String == "vector", let result = data["result"] as? [[String: Any]]
        else { return nil }
        return result.compactMap { item in
            guard let labels = item["metric"] as? [String: String], let value = item["value"] as? [Any],
                value.count == 2, let text = value[1] as? String
            else { return nil }
            return Sample(labels: labels, value: text)
        }
    }
}
