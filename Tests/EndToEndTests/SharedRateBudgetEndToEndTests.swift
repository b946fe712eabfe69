import Foundation
import LoopbackHTTP
import MonitorText
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

/// GitHub's events API with one token's rate limit: `limit` requests in a window that resets at `reset`, each answered
/// with what is left (`x-ratelimit-remaining`), 403 once none is; or, with `retryAfter`, every request answered 429
/// with that `Retry-After`. Counts what arrives, by `Authorization`.
private final class LimitedGitHub: Sendable {
    let limit: Int
    let reset: Int
    let retryAfter: Int?
    let arrived = Watched<[String]>([])

    init(limit: Int, reset: Int, retryAfter: Int? = nil) {
        self.limit = limit
        self.reset = reset
        self.retryAfter = retryAfter
    }

    func answer(_ request: RecordedRequest) -> TestResponse {
        let used = arrived.update { arrived -> Int in
            arrived.append(request.header("Authorization") ?? "")
            return arrived.count
        }
        if let retryAfter {
            return .json(#"{"message":"slow down"}"#, status: 429, headers: [("Retry-After", "\(retryAfter)")])
        }
        let headers: [(name: String, value: String)] = [
            ("x-ratelimit-limit", "\(limit)"), ("x-ratelimit-remaining", "\(max(limit - used, 0))"),
            ("x-ratelimit-reset", "\(reset)"), ("x-ratelimit-resource", "core"),
        ]
        guard used <= limit else {
            return .json(#"{"message":"API rate limit exceeded"}"#, status: 403, headers: headers)
        }
        return .json("[]", headers: headers)
    }
}

/// The JSON report lines in `text`, by feed.
private func reports(in text: String) -> [String: [[String: Any]]] {
    var reports: [String: [[String: Any]]] = [:]
    for line in text.split(separator: "\n") {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let feed = object["feed"] as? String, object["status"] != nil
        else { continue }
        reports[feed, default: []].append(object)
    }
    return reports
}

/// A feeds file of GitHub feeds of the API at `base`, all with the token `${SHARED_TOKEN}`: `shared` feeds both
/// instances poll (each claimed by one), and `own` feeds of each instance (named after `${INSTANCE}`).
private func feedsFile(base: String, shared: Int, own: Int) -> String {
    let names = (1...shared).map { "shared-\($0)" } + (1...own).map { "${INSTANCE}-\($0)" }
    return "settings:\n  concurrency: 1\n  timeout: 30s\n\nfeeds:\n"
        + names.map { name in
            "  - name: \(name)\n    type: github\n    repo: o/\(name)\n    api: \(base)\n"
                + "    token: ${SHARED_TOKEN}\n    interval: 1h\n"
        }.joined()
}

/// Waits until the output of one of `monitors` satisfies `condition`.
private func waitForAnyOutput(_ monitors: [RunningMonitor], _ condition: @escaping @Sendable (String) -> Bool)
    async throws
{
    try await withThrowingTaskGroup(of: Void.self) { group in
        for monitor in monitors { group.addTask { try await monitor.waitForOutput(condition) } }
        try await group.next()
        group.cancelAll()
    }
}

/// A running instance: `monitor run --format json` with the state at `state`, the token and its instance's name.
private func instance(_ name: String, in directory: TemporaryDirectory, state: String, token: String) async throws
    -> RunningMonitor
{
    try await RunningMonitor(
        ["run", "--format", "json"], in: directory.url,
        environment: ["MONITOR_STATE": state, "SHARED_TOKEN": token, "INSTANCE": name])
}

@Suite("One token's rate budget shared by several monitor run instances through PostgreSQL", .timeLimit(.minutes(5)))
struct SharedRateBudgetEndToEndTests {
    static let token = "ghp_EndToEndSharedToken0123456789abcdef"

    @Test(
        "two instances with one token and 3 requests left send exactly 3 in total; each of them is then held by the rate limit"
    )
    func budgetSharedAcrossInstances() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let reset = Int(Date().timeIntervalSince1970) + 1800
        let until = UTCTime.full(Date(timeIntervalSince1970: Double(reset)))
        let api = LimitedGitHub(limit: 3, reset: reset)
        let names = ["a", "b"]
        let (outputs, errors, base) = try await withTestHTTPServer({ api.answer($0) }) { http in
            try directory.write("feeds.yaml", feedsFile(base: http.baseURL, shared: 2, own: 4))
            var monitors: [RunningMonitor] = []
            for name in names {
                monitors.append(try await instance(name, in: directory, state: server.text(of: url), token: Self.token))
            }
            // Every feed polled once: its own four by each instance, the two shared ones by either.
            for (name, monitor) in zip(names, monitors) {
                try await monitor.waitForOutput { text in
                    (1...4).allSatisfy { reports(in: text)["\(name)-\($0)"] != nil }
                }
            }
            for shared in ["shared-1", "shared-2"] {
                try await waitForAnyOutput(monitors) { reports(in: $0)[shared] != nil }
            }
            for monitor in monitors { monitor.send(SIGINT) }
            for monitor in monitors { #expect(try await monitor.waitForExit() == 0) }
            return (monitors.map(\.stdout), monitors.map(\.stderr), http.baseURL)
        }
        // Exactly the budget reached the server, each with the token.
        #expect(api.arrived.value == Array(repeating: "Bearer \(Self.token)", count: 3))
        #expect(errors == ["", ""])
        let all = outputs.map(reports(in:))
        let feeds = ["shared-1", "shared-2"] + names.flatMap { name in (1...4).map { "\(name)-\($0)" } }
        // Each feed polled exactly once, by one instance.
        #expect(feeds.map { feed in all.map { $0[feed]?.count ?? 0 }.reduce(0, +) } == Array(repeating: 1, count: 10))
        #expect(Set(all.flatMap(\.keys)) == Set(feeds))
        var sent = 0
        for (name, reports) in zip(names, all) {
            var held = 0
            for (feed, lines) in reports {
                let report = lines[0]
                let requests = report["requests"] as? Int
                sent += requests ?? 0
                if report["status"] as? String == "ok" {
                    #expect(requests == 1, "\(feed)")
                    continue
                }
                held += 1
                #expect(report["status"] as? String == "failed", "\(feed)")
                #expect(requests == 0, "\(feed)")
                #expect(
                    report["error"] as? String
                        == "GET \(base)/repos/o/\(feed)/events?per_page=50: rate limit exhausted; not polled again "
                        + "before \(until)", "\(feed)")
            }
            // Its own four feeds alone are more than the budget: each instance was held at least once.
            #expect(held >= 1, "instance \(name): \(reports.keys.sorted())")
        }
        #expect(sent == 3)
        #expect(!(outputs + errors).joined().contains(Self.token))
        let stored = try await server.strings(
            "SELECT string_agg(t::text, ' ') FROM rate_budget t", database: url.database)
        #expect(stored.count == 1)
        #expect(!stored.joined().contains(Self.token))
        #expect(stored.joined().contains(ValidatorKey.fingerprint(Self.token)))
    }

    @Test("a Retry-After answered to one instance holds the other's polls of the token without sending")
    func retryAfterShared() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let api = LimitedGitHub(limit: 0, reset: 0, retryAfter: 1800)
        try await withTestHTTPServer({ api.answer($0) }) { http in
            try directory.write("feeds.yaml", feedsFile(base: http.baseURL, shared: 1, own: 2))
            let state = server.text(of: url)
            // The first instance alone: its first request is answered 429 with Retry-After: 1800, its other polls
            // are held without sending.
            let first = try await instance("a", in: directory, state: state, token: Self.token)
            try await first.waitForOutput { text in
                ["shared-1", "a-1", "a-2"].allSatisfy { reports(in: text)[$0] != nil }
            }
            #expect(api.arrived.value == ["Bearer \(Self.token)"])
            let firstReports = reports(in: first.stdout)
            let answered = try #require(firstReports.values.first { $0[0]["requests"] as? Int == 1 }?[0])
            let feed = try #require(answered["feed"] as? String)
            let error = try #require(answered["error"] as? String)
            let prefix =
                "GET \(http.baseURL)/repos/o/\(feed)/events?per_page=50: HTTP 429: the server asked to retry "
                + "after 30m; not polled again before "
            #expect(error.hasPrefix(prefix), "\(error)")
            let until = String(error.dropFirst(prefix.count))
            for (other, lines) in firstReports where other != feed {
                #expect(lines.count == 1)
                #expect(lines[0]["requests"] as? Int == 0)
                #expect(
                    lines[0]["error"] as? String
                        == "GET \(http.baseURL)/repos/o/\(other)/events?per_page=50: HTTP 429 asked to retry later; "
                        + "not polled again before \(until)")
            }

            // The second instance, started now, knows nothing of it but what the database says.
            let second = try await instance("b", in: directory, state: state, token: Self.token)
            try await second.waitForOutput { text in ["b-1", "b-2"].allSatisfy { reports(in: text)[$0] != nil } }
            let secondReports = reports(in: second.stdout)
            #expect(secondReports.keys.sorted() == ["b-1", "b-2"])
            for (other, lines) in secondReports {
                #expect(lines.count == 1)
                #expect(lines[0]["status"] as? String == "failed")
                #expect(lines[0]["requests"] as? Int == 0)
                #expect(
                    lines[0]["error"] as? String
                        == "GET \(http.baseURL)/repos/o/\(other)/events?per_page=50: HTTP 429 asked to retry later; "
                        + "not polled again before \(until)")
            }
            #expect(api.arrived.value == ["Bearer \(Self.token)"])
            for monitor in [first, second] {
                monitor.send(SIGINT)
                #expect(try await monitor.waitForExit() == 0)
                #expect(monitor.stderr == "")
                #expect(!monitor.stdout.contains(Self.token))
            }
        }
    }
}
