import Foundation
import LoopbackHTTP
import MonitorPostgres
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

/// The `planet` feed of each JSON report line of `text`.
private func planetReport(_ text: String) throws -> [String: Any] {
    for line in text.split(separator: "\n") {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        if object["feed"] as? String == "planet" { return object }
    }
    Issue.record("no report of planet in \(text)")
    return [:]
}

@Suite("monitor with its state in PostgreSQL, run as a user would", .timeLimit(.minutes(5)))
struct PostgresStateTests {
    @Test("run --once, status and events with --state postgres://…, then with MONITOR_STATE, print what SQLite's do")
    func runStatusEvents() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let state = server.text(of: url)
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(eonetAnswer) { http in
            try directory.write(
                "feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n    api: \(http.baseURL)/api/v3\n")
            let first = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", state], in: directory.url)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr == "")
            let report = try planetReport(first.stdout)
            #expect(report["status"] as? String == "ok")
            #expect(report["items"] as? Int == 13)
            #expect(report["new"] as? Int == 13)
            let sqlite = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", "sqlite"], in: directory.url)
            #expect(sqlite.status == 0, "\(sqlite.stderr)")

            // The same questions of both states get the same answers, to the byte.
            for command in [
                ["events", "planet"], ["events", "planet", "--format", "json"],
                ["events", "planet", "--group", "severeStorms", "--limit", "3"],
                ["events", "planet", "--days", "3650", "--limit", "5", "--format", "json"], ["status"],
            ] {
                let postgres = try await MonitorProcess.run(command + ["--state", state], in: directory.url)
                let file = try await MonitorProcess.run(command + ["--state", "sqlite"], in: directory.url)
                #expect(postgres.status == 0, "\(command): \(postgres.stderr)")
                #expect(postgres.stderr == "")
                #expect(postgres.stdout == file.stdout, "\(command)")
                #expect(!["", "[]\n"].contains(postgres.stdout), "\(command)")
            }
            let storms = try await MonitorProcess.run(
                ["events", "planet", "--group", "severeStorms", "--format", "json"],
                in: directory.url, environment: ["MONITOR_STATE": state])
            let items = try #require(
                try JSONSerialization.jsonObject(with: Data(storms.stdout.utf8)) as? [[String: Any]])
            #expect(items.count == 4)

            // MONITOR_STATE instead of --state: the second poll finds what the first stored (nothing new).
            let second = try await MonitorProcess.run(
                ["run", "--once", "--format", "json"], in: directory.url, environment: ["MONITOR_STATE": state])
            #expect(second.status == 0, "\(second.stderr)")
            let again = try planetReport(second.stdout)
            #expect(again["status"] as? String == "ok")
            #expect(again["items"] as? Int == 13)
            #expect(again["new"] as? Int == 0)
            let status = try await MonitorProcess.run(
                ["status", "--format", "json"], in: directory.url, environment: ["MONITOR_STATE": state])
            #expect(status.status == 0)
            #expect(status.stdout.contains(#""feed":"planet","type":"eonet","status":"ok""#))
            #expect(status.stdout.contains(#""items":13"#))
            // Nothing went to the SQLite default directory.
            #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent(".local").path))
        }
    }

    @Test("monitor run (continuous) with MONITOR_STATE stops on SIGINT with exit 0, its polls stored whole")
    func continuousRun() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(eonetAnswer) { http in
            try directory.write(
                "feeds.yaml",
                "feeds:\n  - name: planet\n    type: eonet\n    api: \(http.baseURL)/api/v3\n    interval: 1h\n")
            let monitor = try await RunningMonitor(
                ["run", "--format", "json"], in: directory.url, environment: ["MONITOR_STATE": server.text(of: url)])
            // The poll's report (not the line saying this instance holds the feed's lease).
            try await monitor.waitForOutput { text in
                text.split(separator: "\n").contains { $0.contains(#""feed":"planet""#) && $0.contains(#""status":"#) }
            }
            monitor.send(SIGINT)
            #expect(try await monitor.waitForExit() == 0)
            #expect(monitor.stderr == "")
        }
        let store = try #require(try await PostgresStateStore.reading(url))
        #expect(try await store.items(feed: "planet").count == 13)
        #expect(try await store.records().map(\.status) == ["ok"])
        #expect(try await store.groups(feed: "planet").count == 13)
    }

    @Test("an empty database is 'nothing stored yet' for status and events, which create no table")
    func emptyDatabase() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n")
        let status = try await MonitorProcess.run(
            ["status", "--state", server.text(of: url), "--format", "json"], in: directory.url)
        #expect(status.status == 0)
        #expect(status.stderr == "")
        #expect(
            status.stdout
                == #"[{"feed":"planet","type":"eonet","status":null,"lastPoll":null,"lastSuccess":null,"error":null,"failures":0,"items":0,"notBefore":null,"holdReason":null}]"#
                + "\n")
        let events = try await MonitorProcess.run(
            ["events", "planet"], in: directory.url, environment: ["MONITOR_STATE": server.text(of: url)])
        #expect(events.status == 1)
        #expect(
            events.stderr
                == "monitor events: error: no stored feed named 'planet' (nothing is stored yet: run `monitor run --once` first)\n"
        )
        #expect(
            try await server.strings(
                "SELECT count(*)::text FROM pg_tables WHERE schemaname = 'public'", database: url.database) == ["0"])
    }

    @Test("a URL without a password takes PGPASSWORD's; without either, the server's demand for one is said")
    func passwordFromEnvironment() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n")
        var bare = url
        bare.password = nil
        let status = try await MonitorProcess.run(
            ["status", "--state", server.text(of: bare)], in: directory.url,
            environment: ["PGPASSWORD": PostgresServer.password])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(
            status.stdout
                == "  feed    type   status        last poll  items\n  planet  eonet  never polled  -              0\n")
        let run = try await MonitorProcess.run(
            ["run", "--once", "--state", server.text(of: bare)], in: directory.url)
        #expect(run.status == 1)
        #expect(
            run.stderr
                == "monitor: error: cannot open the state: cannot log in to \(bare): the server asks for a password and "
                + "the URL has none\n")
    }

    @Test("a wrong password, a closed port and a malformed URL are said exactly, without the password")
    func errors() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n")
        var wrong = url
        wrong.password = "wrong-hunter2"
        // A port held refusing for the test: one that was freed could be taken by another test's server meanwhile,
        // which would accept the connection and then reset or close it.
        let closed = try #require(RefusingPort())
        defer { closed.close() }
        let closedPort = closed.number
        let cases: [(state: String, message: String)] = [
            (
                server.text(of: wrong),
                "cannot log in to postgres://monitor@127.0.0.1:\(server.port)/\(url.database): "
                    + "password authentication failed for user \"monitor\""
            ),
            (
                "postgres://monitor:hunter2@127.0.0.1:\(closedPort)/feeds",
                "cannot connect to postgres://monitor@127.0.0.1:\(closedPort)/feeds: connection refused"
            ),
            (
                "postgresql://monitor:hunter2@127.0.0.1:5x432/feeds",
                "invalid PostgreSQL URL postgresql://monitor@127.0.0.1:5x432/feeds: the port is not a number from 1 "
                    + "to 65535 (the form is postgres://USER[:PASSWORD]@HOST[:PORT]/DB)"
            ),
        ]
        for (state, message) in cases {
            for command in [["run", "--once"], ["status"], ["events", "planet"]] {
                let result = try await MonitorProcess.run(command + ["--state", state], in: directory.url)
                #expect(result.status == 1, "\(command)")
                if command == ["status"], message.hasSuffix("connection refused") {
                    // What status is asked: the state cannot be reached (see `statusUnreachable`).
                    #expect(result.stdout == "state unreachable: \(message)\n")
                    #expect(result.stderr == "")
                    continue
                }
                #expect(result.stdout == "")
                #expect(result.stderr == "monitor: error: cannot open the state: \(message)\n", "\(command)")
                #expect(!result.stderr.contains("hunter2"))
                let viaEnvironment = try await MonitorProcess.run(
                    command, in: directory.url, environment: ["MONITOR_STATE": state])
                #expect(viaEnvironment.stderr == result.stderr, "\(command)")
            }
        }
    }

    @Test("status while the state cannot be reached says so in one line (one JSON object), exits 1, shows no password")
    func statusUnreachable() async throws {
        let server = try await PostgresServer.forTest()
        let database = try await server.makeDatabase()
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", "feeds:\n  - name: planet\n    type: eonet\n  - name: rx\n    type: eonet\n")
        _ = try await PostgresStateStore.open(database)
        let reached = try await MonitorProcess.run(["status", "--state", server.text(of: database)], in: directory.url)
        #expect(reached.status == 0, "\(reached.stderr)")

        // The same database on a port that refuses connections, as in an outage: each `status` connects anew. (Not a
        // relay that stops listening: a program this test process spawns at that instant holds the listener until
        // its descriptors are closed at exec, and a connection taken meanwhile is reset, not refused.)
        let closed = try #require(RefusingPort())
        defer { closed.close() }
        var url = database
        url.port = closed.number
        let state = server.text(of: url)
        let text = try await MonitorProcess.run(["status", "--state", state], in: directory.url)
        #expect(text.status == 1)
        #expect(text.stdout == "state unreachable: cannot connect to \(url): connection refused\n")
        #expect(text.stderr == "")
        let json = try await MonitorProcess.run(["status", "--format", "json", "--state", state], in: directory.url)
        #expect(json.status == 1)
        #expect(
            json.stdout
                == #"{"state":"unreachable","error":"cannot connect to "# + "\(url)" + #": connection refused"}"# + "\n"
        )
        #expect(json.stderr == "")
        #expect(!(text.stdout + json.stdout).contains(PostgresServer.password))
    }
}
