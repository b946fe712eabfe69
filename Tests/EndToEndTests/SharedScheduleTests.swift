import AsyncHTTPClient
import Foundation
import LoopbackHTTP
import NIOCore
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

/// What the stand-in saw: the start of each poll (its `/categories` request), by feed, in order of arrival, and
/// what `observe` said at each.
private struct Arrivals: Sendable {
    var polls: [String: [Date]] = [:]
    var observed: [String: [String]] = [:]

    func count(_ feed: String) -> Int { polls[feed]?.count ?? 0 }
}

/// EONET's API for feeds whose `api:` is `{server}/{feed}/api/v3`, counting the polls of each at `arrivals`
/// (with what `observe` says of the feed as each poll arrives, when given); while `gate` is false, a poll's first
/// request after the first `hangAfter` waits for it.
private func feeds(
    arrivals: Watched<Arrivals>, hangAfter: Int = 0, gate: Watched<Bool> = Watched(true),
    observe: (@Sendable (String) async -> String)? = nil
) -> @Sendable (RecordedRequest) async -> TestResponse {
    { request in
        let origin = "http://\(request.header("Host") ?? "127.0.0.1")"
        let feed = request.path.split(separator: "/").first.map(String.init) ?? ""
        if request.path.hasSuffix("/categories") {
            let seen = await observe?(feed)
            let count = arrivals.update { arrivals -> Int in
                arrivals.polls[feed, default: []].append(Date())
                if let seen { arrivals.observed[feed, default: []].append(seen) }
                return arrivals.count(feed)
            }
            if count > hangAfter { _ = try? await gate.wait { $0 } }
        }
        let (status, body) = EONETFixtures.answer(origin + request.uri, api: "\(origin)/\(feed)/api/v3")
        return .json(body, status: status)
    }
}

/// A feeds file of `names`, EONET feeds of the stand-in at `base`, each of one category.
private func feedsFile(
    _ names: [String], base: String, interval: String, timeout: String = "30s", concurrency: Int = 4
) -> String {
    "settings:\n  timeout: \(timeout)\n  concurrency: \(concurrency)\n\nfeeds:\n"
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

/// The JSON lease lines of `feed` in `text` (`{"feed": …, "lease": …}`), their `lease` values (NSNull once released).
private func leases(of feed: String, in text: String) -> [Any] {
    text.split(separator: "\n").compactMap { line in
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            object["feed"] as? String == feed, object.keys.sorted() == ["feed", "lease"]
        else { return nil }
        return object["lease"]
    }
}

@Suite("Several monitor run instances sharing one PostgreSQL state", .timeLimit(.minutes(5)))
struct SharedScheduleTests {
    @Test(
        "one, two and three instances with the same feeds poll every feed once per interval, counted at the server",
        arguments: [1, 2, 3])
    func oncePerInterval(instances: Int) async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let names = (1...6).map { "f\($0)" }
        let rounds = 3
        let arrivals = Watched(Arrivals())
        // After `rounds` polls of a feed, its next one hangs at the server until the end: the rounds are counted
        // whole, and nothing more is stored. The requests' timeout is far beyond the test's time limit, so that a
        // hanging poll outlasts the slowest feed's rounds (with 30 s, on a loaded machine, one timed out and a fifth
        // poll came).
        let never = Watched(false)
        // As each poll reaches the server, under its claim: the feed's row in the schedule (its due time, the term of
        // the claim, its holder).
        let row = { @Sendable (feed: String) async -> String in
            let row = try? await server.strings(
                "SELECT due_at::text || ' ' || lease_term || ' ' || coalesce(lease_owner, '-') FROM feed_schedule "
                    + "WHERE feed = '\(feed)'", database: url.database)
            return row?.first ?? "no row"
        }
        let handler = feeds(arrivals: arrivals, hangAfter: rounds, gate: never, observe: row)
        let outputs = try await withTestHTTPServer(handler) { http in
            // One instance may claim every feed (the others start late on a loaded machine; with one instance it
            // always does), so it must have a request slot for each hanging poll: with `concurrency: 4`, four hung
            // and the last two feeds' polls waited for a slot, claimed, until the 600 s timeout, and the test with
            // them (every thread idle: the whole-suite "stall").
            try directory.write(
                "feeds.yaml",
                feedsFile(names, base: http.baseURL, interval: "3s", timeout: "600s", concurrency: names.count + 2))
            var monitors: [RunningMonitor] = []
            for _ in 0..<instances {
                monitors.append(
                    try await RunningMonitor(
                        ["run", "--format", "json"], in: directory.url,
                        environment: ["MONITOR_STATE": server.text(of: url)]))
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
            // Never twice in an interval: each poll reached the server under a claim of its own, in order (terms
            // 1, 2, …, held by an instance), of a due time at least the interval less its jitter (3 s − 10 %) after
            // the one before, whichever instance wrote it; and after that due time (a feed is claimed once due).
            let rows = (seen.observed[name] ?? []).map { $0.split(separator: " ").map(String.init) }
            #expect(rows.map { $0.count == 3 ? $0[1] : "?" } == (1...rounds + 1).map(String.init), "\(name): \(rows)")
            #expect(rows.allSatisfy { $0.count == 3 && $0[2] != "-" }, "\(name): \(rows)")
            let dues = rows.compactMap { $0.first.flatMap(Double.init) }
            #expect(dues.count == rounds + 1, "\(name): \(rows)")
            for (earlier, later) in zip(dues, dues.dropFirst()) {
                #expect(later - earlier >= 2.7 - 1e-6, "\(name): \(dues)")
            }
            for (arrival, due) in zip(polls, dues) {
                #expect(arrival.timeIntervalSince1970 >= due, "\(name): \(polls) \(dues)")
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
            // A lease of 3 × 10 s; the polls of the first instance hang at the server until it is killed, at once: a
            // poll that hung for its whole timeout (10 s) would be tried again, a second request under the same claim.
            // So the second instance starts only after the first is gone (it would take seconds on a loaded machine).
            // (With 5 s, the second instance's renewals, late by 10 s under the whole suite's load, lost its leases.)
            try directory.write("feeds.yaml", feedsFile(names, base: http.baseURL, interval: "1h", timeout: "10s"))
            let first = try await RunningMonitor(
                ["run", "--format", "json"], in: directory.url, environment: environment)
            try await arrivals.wait { arrivals in names.allSatisfy { arrivals.count($0) == 1 } }
            first.send(SIGKILL)
            #expect(try await first.waitForExit() == SIGKILL)
            let second = try await RunningMonitor(
                ["run", "--format", "json"], in: directory.url, environment: environment)
            gate.update { $0 = true }
            // The second instance polls every feed once the first's leases expired: one claim more each.
            try await second.waitForOutput { text in names.allSatisfy { !reports(of: $0, in: text).isEmpty } }
            for name in names {
                let report = reports(of: name, in: second.stdout)
                #expect(report.count == 1, "\(name)")
                #expect(report.first?["status"] as? String == "ok", "\(name)")
            }
            // The first instance said which feeds it held, and reported no poll.
            #expect(names.allSatisfy { reports(of: $0, in: first.stdout).isEmpty }, "\(first.stdout)")
            #expect(names.allSatisfy { !leases(of: $0, in: first.stdout).isEmpty }, "\(first.stdout)")
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

    @Test(
        "each instance says which feeds it holds and which another holds, by its owner id, until when; so does status"
    )
    func holders() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let names = ["f1", "f2"]
        let arrivals = Watched(Arrivals())
        let gate = Watched(false)
        let environment = ["MONITOR_STATE": server.text(of: url)]
        try await withTestHTTPServer(feeds(arrivals: arrivals, gate: gate)) { http in
            // A lease of 3 × 60 s, renewed each minute; the first instance's polls wait at the server for the gate.
            try directory.write("feeds.yaml", feedsFile(names, base: http.baseURL, interval: "1h", timeout: "60s"))
            let first = try await RunningMonitor(
                ["run", "--format", "json"], in: directory.url, environment: environment)
            try await arrivals.wait { arrivals in names.allSatisfy { arrivals.count($0) == 1 } }
            try await first.waitForOutput { text in names.allSatisfy { !leases(of: $0, in: text).isEmpty } }
            // The first instance holds both: `{"feed":"f1","lease":{"owner":…,"thisInstance":true,"until":…}}`.
            var until: [String: String] = [:]
            var owner = ""
            for name in names {
                let lease = try #require(leases(of: name, in: first.stdout).first as? [String: Any])
                #expect(lease.keys.sorted() == ["owner", "thisInstance", "until"])
                #expect(lease["thisInstance"] as? Bool == true)
                owner = try #require(lease["owner"] as? String)
                until[name] = try #require(lease["until"] as? String)
            }
            // `hostname:pid:random`, the same for both feeds.
            let prefix = "\(ProcessInfo.processInfo.hostName):\(first.pid):"
            #expect(owner.hasPrefix(prefix), "\(owner)")
            #expect(owner.dropFirst(prefix.count).allSatisfy(\.isHexDigit) && owner.count > prefix.count, "\(owner)")
            for name in names {
                #expect(
                    leases(of: name, in: first.stdout).compactMap { ($0 as? [String: Any])?["owner"] as? String }
                        .allSatisfy { $0 == owner })
            }

            // A second instance, with plain lines, is told who holds them: one line each, when it first sees it.
            let second = try await RunningMonitor(["run"], in: directory.url, environment: environment)
            try await second.waitForOutput { text in names.allSatisfy { text.contains(" \($0): leased by ") } }
            let lines = second.stdout.split(separator: "\n").map(String.init)
            for name in names {
                let seen = lines.filter { $0.contains(" \(name): leased by ") }
                #expect(seen.count == 1, "\(lines)")
                // `08:00:01 f1: leased by host:123:9f3a until 08:03:01`, the time of the lease's end as the first
                // instance reported it (renewed since, perhaps: then one of the ends it reported).
                let line = try #require(seen.first)
                let untils = leases(of: name, in: first.stdout).compactMap {
                    ($0 as? [String: Any])?["until"] as? String
                }
                #expect(
                    untils.contains {
                        line.dropFirst(9) == "\(name): leased by \(owner) until \($0.dropFirst(11).prefix(8))"
                    },
                    "\(line) \(untils)")
                #expect(line.prefix(9).allSatisfy { $0.isNumber || $0 == ":" || $0 == " " }, "\(line)")
            }

            // `monitor status`, text and JSON: the holder of each feed and the end of its lease.
            let statusStarted = Date()
            let status = try await MonitorProcess.run(["status"], in: directory.url, environment: environment)
            let statusDays = Set([statusStarted, Date()].map { ISO8601DateFormatter().string(from: $0).prefix(10) })
            #expect(status.status == 0 && status.stderr == "", "\(status.stderr)")
            let json = try await MonitorProcess.run(
                ["status", "--format", "json"], in: directory.url, environment: environment)
            #expect(json.status == 0 && json.stderr == "", "\(json.stderr)")
            let listed = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(listed.map { $0["feed"] as? String } == names)
            for (index, name) in names.enumerated() {
                let lease = try #require(listed[index]["lease"] as? [String: Any])
                #expect(lease.keys.sorted() == ["owner", "until"])
                #expect(lease["owner"] as? String == owner)
                let end = try #require(lease["until"] as? String)
                // The end the status read is one the first instance reports (once renewed, after the renewal).
                try await first.waitForOutput { text in
                    leases(of: name, in: text).contains { ($0 as? [String: Any])?["until"] as? String == end }
                }
                // The text status ran first: its end is one of those the first instance reported.
                let reported = leases(of: name, in: first.stdout).compactMap {
                    ($0 as? [String: Any])?["until"] as? String
                }
                // The day is shown too when the lease ends on another day than the status's (run just before
                // midnight, UTC): the status ran on one of `statusDays`.
                let shown = reported.flatMap { end in
                    let time = end.dropFirst(11).prefix(8)
                    return statusDays.map { day in
                        "\(name): leased by \(owner) until \(end.prefix(10) == day ? "" : "\(end.prefix(10)) ")\(time) UTC"
                    }
                }
                #expect(
                    status.stdout.split(separator: "\n").contains { shown.contains(String($0)) },
                    "\(status.stdout) \(reported)")
            }
            let statusLines = status.stdout.split(separator: "\n")
            #expect(statusLines.count == 2 + 1 + names.count, "\(status.stdout)")
            #expect(statusLines.first == "  feed  type   status        last poll  items")

            // Let the polls end: the first instance releases each feed (a null lease line), then reports the poll.
            gate.update { $0 = true }
            try await first.waitForOutput { text in names.allSatisfy { !reports(of: $0, in: text).isEmpty } }
            for name in names {
                let mine = first.stdout.split(separator: "\n").filter { line in
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    return object?["feed"] as? String == name
                }
                #expect(reports(of: name, in: String(mine.last ?? "")).map { $0["status"] as? String } == ["ok"])
                #expect(mine.dropLast().last == "{\"feed\":\"\(name)\",\"lease\":null}", "\(mine)")
            }
            for monitor in [first, second] { monitor.send(SIGINT) }
            for monitor in [first, second] {
                #expect(try await monitor.waitForExit() == 0)
                #expect(monitor.stderr == "")
            }
        }
    }

    @Test("/metrics of an instance shows the exact number of leases it holds while its polls wait at the server")
    func leasesHeldMetric() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let names = ["f1", "f2", "f3"]
        let arrivals = Watched(Arrivals())
        let gate = Watched(false)
        // f3 is polled once (its later polls hang, never reached in this test); f1 and f2 hang at their first.
        try await withTestHTTPServer(feeds(arrivals: arrivals, gate: gate)) { http in
            try directory.write("feeds.yaml", feedsFile(names, base: http.baseURL, interval: "1h"))
            let monitor = try await RunningMonitor(
                ["run", "--format", "json", "--metrics", "127.0.0.1:0"], in: directory.url,
                environment: ["MONITOR_STATE": server.text(of: url)])
            let errors = try await monitor.waitForErrors { $0.contains("/metrics\n") }
            let address = try #require(
                errors.firstMatch(of: /^metrics on (http:\/\/127\.0\.0\.1:[0-9]+\/metrics)\n/)?.output.1)
            // Every poll waits at the server under its lease: three held.
            try await arrivals.wait { arrivals in names.allSatisfy { arrivals.count($0) == 1 } }
            #expect(try await leasesHeld(String(address)) == [.init("monitor_leases_held", [:], 3)])
            // The polls end and their leases are released with their results: none held.
            gate.update { $0 = true }
            try await monitor.waitForOutput { text in names.allSatisfy { !reports(of: $0, in: text).isEmpty } }
            #expect(try await leasesHeld(String(address)) == [.init("monitor_leases_held", [:], 0)])
            monitor.send(SIGINT)
            #expect(try await monitor.waitForExit() == 0)
            #expect(monitor.stderr == errors)
        }
    }

    /// The `monitor_leases_held` samples of the metrics at `url`.
    private func leasesHeld(_ url: String) async throws -> [PrometheusText.Sample] {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(600))
        #expect(response.status == .ok)
        let text = String(buffer: try await response.body.collect(upTo: 1 << 24))
        return try PrometheusText(text).samples("monitor_leases_held")
    }

    @Test(
        "the full-screen view says which feed it polls under its lease and which another instance holds, whole rows",
        .enabled(if: TmuxSession.executable != nil, "tmux is not installed (scripts/setup installs it): skipped"))
    func holdersFullScreen() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let arrivals = Watched(Arrivals())
        let gate = Watched(false)
        let environment = ["MONITOR_STATE": server.text(of: url)]
        try await withTestHTTPServer(feeds(arrivals: arrivals, gate: gate)) { http in
            // The other instance polls f1 (its poll waits at the server); the full-screen one f1 and f2. Leases of
            // 3 × 600 s, renewed every 10 minutes: a renewal between the screen and the stored ends read below would
            // change the end shown (the rows are compared whole), and on a loaded machine a minute can pass.
            try directory.write("other.yaml", feedsFile(["f1"], base: http.baseURL, interval: "1h", timeout: "600s"))
            try directory.write(
                "feeds.yaml", feedsFile(["f1", "f2"], base: http.baseURL, interval: "1h", timeout: "600s"))
            let other = try await RunningMonitor(
                ["run", "--format", "json", "--config", "other.yaml"], in: directory.url, environment: environment)
            try await other.waitForOutput { !leases(of: "f1", in: $0).isEmpty }
            let lease = try #require(leases(of: "f1", in: other.stdout).first as? [String: Any])
            let owner = try #require(lease["owner"] as? String)

            let tmux = try await TmuxSession(in: directory.url, width: 140, height: 12)
            defer {
                tmux.kill()
                withExtendedLifetime(directory) {}
            }
            try await tmux.send(
                "MONITOR_STATE='\(server.text(of: url))' TZ=UTC '\(MonitorProcess.executable.path)' run", literal: true)
            try await tmux.send("Enter")
            try await arrivals.wait { $0.count("f2") == 1 }
            // The ends of both leases as stored, to the second, in UTC.
            let ends = try await server.strings(
                "SELECT feed || ' ' || to_char(to_timestamp(lease_expires) AT TIME ZONE 'UTC', 'HH24:MI:SS') "
                    + "FROM feed_schedule ORDER BY feed", database: url.database)
            #expect(ends.count == 2)
            let end = Dictionary(uniqueKeysWithValues: ends.map { ($0.prefix(2), String($0.dropFirst(3))) })
            let waiting =
                "waiting" + String(repeating: " ", count: 19 + 2) + "0 items" + String(repeating: " ", count: 17)
            let polling =
                "polling…" + String(repeating: " ", count: 18 + 2) + "0 items" + String(repeating: " ", count: 17)
            // f2, polling, is selected (the feed that changed last).
            let rows = [
                "  f1  " + waiting + "leased by \(owner) until \(end["f1"] ?? "?")",
                "> f2  " + polling + "leased here until \(end["f2"] ?? "?")",
            ]
            let screen = try await tmux.waitForScreen("who holds the feeds") { screen in
                let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                return lines.count > 2 && Array(lines[1...2]) == rows
            }
            print("full-screen view with leases:\n\(screen)")
            // The log line: when this instance first saw the other's lease.
            let log = screen.split(separator: "\n", omittingEmptySubsequences: false).dropLast(2).last ?? ""
            #expect(log.dropFirst(9) == "f1: leased by \(owner) until \(end["f1"] ?? "?")", "\(screen)")
            try await tmux.send("q")
            gate.update { $0 = true }
            other.send(SIGINT)
            #expect(try await other.waitForExit() == 0)
            #expect(other.stderr == "")
        }
    }

    @Test("run --once claims each feed from the shared schedule: it skips, and says so, one another instance holds")
    func onceSkipsHeldFeeds() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        let arrivals = Watched(Arrivals())
        let gate = Watched(false)
        let environment = ["MONITOR_STATE": server.text(of: url)]
        // f1's polls wait at the server for the gate; f2's are answered at once.
        let held = feeds(arrivals: arrivals, gate: gate)
        let answered = feeds(arrivals: arrivals)
        try await withTestHTTPServer({ request in
            request.path.hasPrefix("/f1/") ? await held(request) : await answered(request)
        }) { http in
            try directory.write("other.yaml", feedsFile(["f1"], base: http.baseURL, interval: "1h", timeout: "60s"))
            try directory.write("feeds.yaml", feedsFile(["f1", "f2"], base: http.baseURL, interval: "1h"))
            let other = try await RunningMonitor(
                ["run", "--format", "json", "--config", "other.yaml"], in: directory.url, environment: environment)
            try await other.waitForOutput { !leases(of: "f1", in: $0).isEmpty }
            let lease = try #require(leases(of: "f1", in: other.stdout).first as? [String: Any])
            let owner = try #require(lease["owner"] as? String)
            let until = try #require(lease["until"] as? String)
            let text = try await MonitorProcess.run(["run", "--once"], in: directory.url, environment: environment)
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stderr == "")
            // f1 and f2 are polled at once: f1's line and f2's report come in either order, each whole.
            let lines = text.stdout.split(separator: "\n").map(String.init)
            let skipped = "f1: skipped: leased by \(owner) until \(until.dropFirst(11).prefix(8)) UTC"
            #expect(lines.count == 5, "\(lines)")
            #expect(lines.firstIndex(of: skipped).map { $0 == 0 || $0 == 4 } == true, "\(lines)")
            // `f2 (eonet): ok — 4 items, 4 new, 2 requests, 189ms`, its table, `  4 distinct events in 189ms`.
            let report = lines.filter { $0 != skipped }
            #expect(report.count == 4, "\(lines)")
            #expect(report.first?.hasPrefix("f2 (eonet): ok — 4 items, 4 new, 2 requests, ") == true, "\(lines)")
            #expect(
                Array(report.dropFirst().prefix(2))
                    == ["  category       events  open  closed  new", "  Severe Storms       4     2       2   +4"])
            #expect(report.last?.hasPrefix("  4 distinct events in ") == true, "\(lines)")
            let json = try await MonitorProcess.run(
                ["run", "--once", "--format", "json"], in: directory.url, environment: environment)
            #expect(json.status == 0, "\(json.stderr)")
            let objects = json.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(objects.count == 2, "\(json.stdout)")
            #expect(
                json.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"feed\":\"f1\"") }
                    == [
                        "{\"feed\":\"f1\",\"lease\":{\"owner\":\"\(owner)\",\"thisInstance\":false,\"until\":\"\(until)\"}}"
                    ],
                "\(json.stdout)")
            #expect(reports(of: "f2", in: json.stdout).map { $0["status"] as? String } == ["ok"])
            // f1 was claimed once (by the other instance), f2 twice (once by each run --once); each released.
            #expect(
                try await server.strings(
                    "SELECT feed || '=' || lease_term || '=' || coalesce(lease_owner, '-') FROM feed_schedule ORDER BY feed",
                    database: url.database) == ["f1=1=\(owner)", "f2=2=-"])
            #expect(arrivals.value.count("f1") == 1)
            gate.update { $0 = true }
            other.send(SIGINT)
            #expect(try await other.waitForExit() == 0)
            #expect(other.stderr == "")
        }
    }
}
