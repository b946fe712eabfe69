import Foundation
import LoopbackHTTP
import MonitorText
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

#if canImport(Glibc)
    import Glibc
#endif

/// A feeds file with one exec feed `ev` (the items of `items.jsonl`, polled every `interval`) and a webhook notifier
/// `chat` POSTing to `url` one digest every `digest`.
private func feedsFile(url: String, digest: String, interval: String = "1h") -> String {
    """
    feeds:
      - name: ev
        type: exec
        interval: \(interval)
        command: [cat, items.jsonl]
    notify:
      - name: chat
        type: webhook
        url: \(url)
        digest: \(digest)
    """
}

/// The JSON object of `text`.
private func object(_ text: some Sequence<UInt8>) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text)) as? [String: Any])
}

/// Moves every notification of the SQLite state in `directory` `seconds` into the past, as if the machine had been
/// off that long since the polls that wrote them: the stored poll time (`at`, seconds since 2001 as the state
/// encodes it) and the row's `created`. Done by python3's sqlite3 in a real process, with `monitor` stopped.
private func ageSQLite(_ directory: TemporaryDirectory, by seconds: Int) async throws {
    let program = """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        db.execute("UPDATE notification SET content = json_set(content, '$.at', json_extract(content, '$.at') - ?), "
                   "created = created - ?", (int(sys.argv[2]), int(sys.argv[2])))
        db.commit()
        print(db.execute("SELECT count(*) FROM notification").fetchone()[0])
        """
    let (status, output, errors) = try await ChildProcess.run(
        "/usr/bin/env",
        ["python3", "-c", program, directory.url.appendingPathComponent("state/state.sqlite").path, "\(seconds)"])
    #expect(status == 0, "\(String(decoding: errors, as: UTF8.self))")
    #expect(!output.isEmpty)
}

/// Where the end-to-end digest tests keep their state: the SQLite directory `state`, or a new PostgreSQL database.
private struct DigestState {
    /// What `--state` is given.
    var argument: String
    /// Moves every notification of the state `seconds` into the past (see ``ageSQLite(_:by:)``).
    var age: @Sendable (Int) async throws -> Void

    static func make(_ backend: StateBackend, in directory: TemporaryDirectory) async throws -> DigestState {
        guard backend == .postgres else {
            return DigestState(argument: "state", age: { try await ageSQLite(directory, by: $0) })
        }
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        return DigestState(
            argument: server.text(of: url),
            age: { seconds in
                // The stored poll time is `at` in the notification's JSON, seconds since 2001.
                try await server.execute(
                    """
                    UPDATE notification SET created = created - \(seconds), content = jsonb_set(
                        content::jsonb, '{at}', to_jsonb((content::jsonb->>'at')::float8 - \(seconds)))::text
                    """, database: url.database)
            })
    }
}

/// The notifier `chat` of `monitor status --format json`.
private func chatStatus(_ directory: TemporaryDirectory, state: String = "state") async throws -> [String: Any] {
    let status = try await MonitorProcess.run(["status", "--state", state, "--format", "json"], in: directory.url)
    let entries = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
    return try #require(entries.first { $0["notifier"] as? String == "chat" })
}

@Suite("Digests from the real `monitor` binary to a real receiver on 127.0.0.1", .timeLimit(.minutes(5)))
struct DigestEndToEndTests {
    @Test(
        "run --once collects without sending until the period is over; a later run sends one digest of both polls",
        arguments: StateBackend.databases)
    func onceLeavesDigestForLaterRun(backend: StateBackend) async throws {
        let directory = try TemporaryDirectory()
        let state = try await DigestState.make(backend, in: directory)
        let once = ["run", "--once", "--state", state.argument]
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            try directory.write("feeds.yaml", feedsFile(url: server.baseURL + "/hooks/s3cr3t", digest: "1h"))
            try writeItems(1...2, in: directory)
            let baseline = try await MonitorProcess.run(once, in: directory.url)
            #expect(baseline.status == 0, "\(baseline.stderr)")
            try writeItems(1...5, in: directory)
            let first = try await MonitorProcess.run(once, in: directory.url)
            #expect(first.status == 0)
            #expect(first.stderr == "")
            #expect(server.requests.isEmpty)
            // Collected, due one period after the poll that wrote it.
            let collected = try await chatStatus(directory, state: state.argument)
            #expect(collected["pending"] as? Int == 1)
            let digest = try #require(collected["digest"] as? [String: Any])
            #expect(digest["every"] as? String == "1h")
            #expect(digest["collected"] as? Int == 1)
            let due = try #require((digest["due"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
            let text = try await MonitorProcess.run(["status", "--state", state.argument], in: directory.url)
            #expect(
                text.stdout.contains(
                    "\nchat: digest every 1h: 1 notification collected, next digest due at "
                        + "\(UTCTime.full(due))\n"), "\(text.stdout)")

            try writeItems(1...7, in: directory)
            let second = try await MonitorProcess.run(once, in: directory.url)
            #expect(second.status == 0)
            #expect(second.stderr == "")
            #expect(server.requests.isEmpty)
            let both = try await chatStatus(directory, state: state.argument)
            #expect((both["digest"] as? [String: Any])?["collected"] as? Int == 2)
            // The first notification's period, not the second's.
            #expect((both["digest"] as? [String: Any])?["due"] as? String == digest["due"] as? String)

            // An hour later, the next run sends one digest of both polls' notifications, in order.
            try await state.age(3600)
            let later = try await MonitorProcess.run(once, in: directory.url)
            #expect(later.status == 0)
            #expect(later.stderr == "")
            let requests = server.requests
            #expect(requests.count == 1)
            let request = try #require(requests.first)
            let body = try object(request.body)
            #expect(body["event"] as? String == "digest")
            #expect(body["feed"] is NSNull)
            #expect(body["total"] as? Int == 2)
            let combined = try #require(body["notifications"] as? [[String: Any]])
            #expect(combined.map { $0["event"] as? String } == ["new", "new"])
            #expect(combined.map { $0["feed"] as? String } == ["ev", "ev"])
            #expect(
                combined.map { ($0["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } }
                    == [["e5", "e4", "e3"], ["e7", "e6"]])
            let firstID = try #require(combined.first?["id"] as? String)
            #expect(body["id"] as? String == "digest-\(firstID)-2")
            #expect(request.header("Idempotency-Key") == "digest-\(firstID)-2")
            let after = try await chatStatus(directory, state: state.argument)
            #expect(after["pending"] as? Int == 0)
            #expect((after["digest"] as? [String: Any])?["due"] is NSNull)
            // Nothing collected: nothing more is sent.
            #expect(try await MonitorProcess.run(once, in: directory.url).status == 0)
            #expect(server.requests.count == 1)
        }
    }

    @Test("`monitor run` stopped in the middle of a period and started again sends the digest when it is due, once")
    func restartInTheMiddleOfAPeriod() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            try directory.write("feeds.yaml", feedsFile(url: server.baseURL + "/hooks/s3cr3t", digest: "1m"))
            try writeItems(1...2, in: directory)
            #expect(try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url).status == 0)
            try writeItems(1...4, in: directory)
            // The first run polls once (the interval is an hour) and collects the poll's notification.
            let first = try await RunningMonitor(["run", "--format", "json", "--state", "state"], in: directory.url)
            try await first.waitForOutput { $0.contains(#""feed":"ev""#) && $0.contains(#""new":2"#) }
            first.send(SIGTERM)
            #expect(try await first.waitForExit() == 0)
            #expect(server.requests.isEmpty)
            #expect(try await chatStatus(directory)["pending"] as? Int == 1)

            // Stopped for 55 of the digest's 60 seconds: the restarted run sends it when it is due, then nothing.
            try await ageSQLite(directory, by: 55)
            let second = try await RunningMonitor(["run", "--state", "state"], in: directory.url)
            try await second.waitForOutput { $0.contains("(digest of 1 notification) delivered: HTTP 200") }
            second.send(SIGTERM)
            #expect(try await second.waitForExit() == 0)
            let requests = server.requests
            #expect(requests.count == 1)
            let body = try object(try #require(requests.first).body)
            #expect(body["event"] as? String == "digest")
            let combined = try #require(body["notifications"] as? [[String: Any]])
            #expect(
                combined.map { ($0["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } } == [
                    ["e4", "e3"]
                ])
            // Made no earlier than one period after the poll that wrote what it holds (as the state tells that time),
            // so not at the restart.
            let made = try #require((body["at"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
            let polled = try #require(
                (combined.first?["at"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
            #expect(made.timeIntervalSince(polled) >= 60)
            let line = try #require(second.stdout.split(separator: "\n").first { $0.hasPrefix("chat: ") })
            #expect(
                line
                    == "chat: notification \(body["id"] as? String ?? "") (digest of 1 notification) delivered: HTTP 200"
            )
            #expect(!second.stdout.contains("s3cr3t"))
            #expect(try await chatStatus(directory)["pending"] as? Int == 0)
        }
    }
}
