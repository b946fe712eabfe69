import Foundation
import LoopbackHTTP
import MonitorCore
import PostgresTestSupport
import TestSupport
import Testing

/// What the stand-in saw: the start of each poll (its `/categories` request), by feed, in order of arrival.
private struct Arrivals: Sendable {
    var polls: [String: [Date]] = [:]

    func count(_ feed: String) -> Int { polls[feed]?.count ?? 0 }
}

/// EONET's API for feeds whose `api:` is `{server}/{feed}/api/v3`, counting the polls of each at `arrivals`;
/// while `gate` is false, a poll's first request after the first `hangAfter` waits for it.
private func feeds(
    arrivals: Watched<Arrivals>, hangAfter: Int = 0, gate: Watched<Bool> = Watched(true)
) -> @Sendable (RecordedRequest) async -> TestResponse {
    { request in
        let origin = "http://\(request.header("Host") ?? "127.0.0.1")"
        let feed = request.path.split(separator: "/").first.map(String.init) ?? ""
        if request.path.hasSuffix("/categories") {
            let count = arrivals.update { arrivals -> Int in
                arrivals.polls[feed, default: []].append(Date())
                return arrivals.count(feed)
            }
            if count > hangAfter { _ = try? await gate.wait { $0 } }
        }
        let (status, body) = EONETFixtures.answer(origin + request.uri, api: "\(origin)/\(feed)/api/v3")
        return .json(body, status: status)
    }
}

/// A feeds file of `names`, EONET feeds of the stand-in at `base`, each of one category.
private func feedsFile(_ names: [String], base: String, interval: String, timeout: String = "30s") -> String {
    "settings:\n  timeout: \(timeout)\n\nfeeds:\n"
        + names.map {
            "  - name: \($0)\n    type: eonet\n    api: \(base)/\($0)/api/v3\n    categories: [severeStorms]\n"
                + "    interval: \(interval)\n"
        }.joined()
}

/// The JSON report lines of `feed` in `text`.
private func reports(of feed: String, in text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { line in
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            object["feed"] as? String == feed, object["status"] != nil
        else { return nil }
        return object
    }
}

@Suite("Several monitor run instances sharing one PostgreSQL state", .timeLimit(.minutes(5)))
struct SharedScheduleTests {
    @Test(
        "two and three instances with the same feeds poll every feed once per interval, counted at the server",
        arguments: [2, 3])
    func oncePerInterval(instances: Int) async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let names = (1...6).map { "f\($0)" }
        let rounds = 3
        let arrivals = Watched(Arrivals())
        // After `rounds` polls of a feed, its next one hangs at the server until the end: the rounds are counted
        // whole, and nothing more is stored.
        let never = Watched(false)
        let outputs = try await withTestHTTPServer(feeds(arrivals: arrivals, hangAfter: rounds, gate: never)) { http in
            try directory.write("feeds.yaml", feedsFile(names, base: http.baseURL, interval: "3s"))
            let monitors = try (0..<instances).map { _ in
                try RunningMonitor(
                    ["run", "--format", "json"], in: directory.url, environment: ["MONITOR_STATE": server.text(of: url)]
                )
            }
            // The poll after the last round of every feed has reached the server: it is claimed after the round's
            // commit and report, and hangs there.
            try await arrivals.wait { arrivals in names.allSatisfy { arrivals.count($0) == rounds + 1 } }
            for monitor in monitors { monitor.send(SIGINT) }
            for monitor in monitors {
                #expect(try await monitor.waitForExit() == 0)
                #expect(monitor.stderr == "")
            }
            return monitors.map(\.stdout)
        }
        let seen = arrivals.value
        let terms = try await server.strings(
            "SELECT feed || '=' || lease_term FROM feed_schedule ORDER BY feed", database: url.database)
        for (index, name) in names.enumerated() {
            let polls = seen.polls[name] ?? []
            let reported = outputs.flatMap { reports(of: name, in: $0) }
            // Exactly `rounds` polls stored and reported, each by one instance, and the one after, which hung at the
            // server until the instances stopped: one claim each, the term counting them.
            #expect(reported.map { $0["status"] as? String } == Array(repeating: "ok", count: rounds), "\(name)")
            #expect(polls.count == rounds + 1, "\(name): \(polls)")
            #expect(terms[index] == "\(name)=\(rounds + 1)", "\(terms)")
            // Never twice in an interval: each poll due the interval less its jitter (±10%) after the one before,
            // whichever instance made it; seen at the server at least half an interval apart (a request may take
            // longer to be sent after its claim than the next one: a lower bound that only a second poll in the
            // same interval breaks).
            for (earlier, later) in zip(polls, polls.dropFirst()) {
                #expect(later.timeIntervalSince(earlier) >= 1.5, "\(name): \(polls)")
            }
        }
        #expect(terms.count == names.count)
    }

    @Test("an instance killed with SIGKILL while polling: its feeds are polled by the other once its leases expire")
    func killedInstance() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let names = (1...4).map { "f\($0)" }
        let arrivals = Watched(Arrivals())
        let gate = Watched(false)
        let environment = ["MONITOR_STATE": server.text(of: url)]
        try await withTestHTTPServer(feeds(arrivals: arrivals, gate: gate)) { http in
            // A lease of 3 × 5 s; the polls of the first instance hang at the server until it is killed.
            try directory.write("feeds.yaml", feedsFile(names, base: http.baseURL, interval: "1h", timeout: "5s"))
            let first = try RunningMonitor(["run", "--format", "json"], in: directory.url, environment: environment)
            try await arrivals.wait { arrivals in names.allSatisfy { arrivals.count($0) == 1 } }
            let second = try RunningMonitor(["run", "--format", "json"], in: directory.url, environment: environment)
            first.send(SIGKILL)
            #expect(try await first.waitForExit() == -1 || first.stdout.isEmpty)
            gate.update { $0 = true }
            // The second instance polls every feed once the first's leases expired: one claim more each.
            try await second.waitForOutput { text in names.allSatisfy { !reports(of: $0, in: text).isEmpty } }
            for name in names {
                let report = reports(of: name, in: second.stdout)
                #expect(report.count == 1, "\(name)")
                #expect(report.first?["status"] as? String == "ok", "\(name)")
            }
            #expect(first.stdout == "")
            second.send(SIGINT)
            #expect(try await second.waitForExit() == 0)
            #expect(second.stderr == "")
        }
        #expect(arrivals.value.polls.mapValues(\.count) == Dictionary(uniqueKeysWithValues: names.map { ($0, 2) }))
        #expect(
            try await server.strings(
                "SELECT feed || '=' || lease_term || '=' || (lease_owner IS NULL)::text FROM feed_schedule ORDER BY feed",
                database: url.database) == names.map { "\($0)=2=true" })
    }
}
