import Foundation
import LoopbackHTTP
import TestSupport
import Testing

@testable import MonitorCore

#if canImport(Glibc)
    import Glibc
#endif

/// A feeds file with one exec feed `ev` (the items of `items.jsonl`; failing while a file `fail` exists) and a
/// webhook notifier `chat` POSTing to `url`.
private func feedsFile(url: String, on: String = "[new, failed, recovered]") -> String {
    """
    feeds:
      - name: ev
        type: exec
        command: [sh, -c, "if test -f fail; then echo broken >&2; exit 3; fi; cat items.jsonl"]
    notify:
      - name: chat
        type: webhook
        url: \(url)
        on: \(on)
    """
}

/// Writes `items.jsonl` with the events numbered `numbers` (for the exec feeds of the notification tests).
func writeItems(_ numbers: ClosedRange<Int>, in directory: TemporaryDirectory) throws {
    let lines = numbers.map { number in
        #"{"item":{"id":"e\#(number)","title":"Event \#(number)","date":"2025-09-21T18:\#(String(format: "%02d", number)):00Z"}}"#
    }
    try directory.write("items.jsonl", lines.joined(separator: "\n") + "\n")
}

/// The JSON object of a request's body.
private func object(_ body: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
}

private func runOnce(_ directory: TemporaryDirectory) async throws -> MonitorProcess.Result {
    try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
}

@Suite("Notifications from the real `monitor` binary to real receivers on 127.0.0.1", .timeLimit(.minutes(5)))
struct NotifyEndToEndTests {
    @Test("a first sync notifies nothing; a poll with 3 new events sends exactly one notification with those 3")
    func newAfterFirstSync() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            try directory.write("feeds.yaml", feedsFile(url: server.baseURL + "/hooks/s3cr3t"))
            try writeItems(1...2, in: directory)
            let validated = try await MonitorProcess.run(["validate"], in: directory.url)
            #expect(validated.stdout == "feeds.yaml: ok, 1 feed: ev (exec); 1 notifier: chat (webhook)\n")
            let first = try await runOnce(directory)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr == "")
            #expect(server.requests.isEmpty)

            try writeItems(1...5, in: directory)
            let second = try await runOnce(directory)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stderr == "")
            let requests = server.requests
            #expect(requests.count == 1)
            let request = try #require(requests.first)
            #expect(request.method == "POST")
            #expect(request.uri == "/hooks/s3cr3t")
            let body = try object(request.body)
            #expect(body["schema"] as? Int == 1)
            #expect(body["notifier"] as? String == "chat")
            #expect(body["feed"] as? String == "ev")
            #expect(body["type"] as? String == "exec")
            #expect(body["event"] as? String == "new")
            #expect(body["total"] as? Int == 3)
            #expect((body["items"] as? [[String: Any]])?.map { $0["id"] as? String } == ["e5", "e4", "e3"])
            #expect(body["error"] is NSNull)
            #expect(request.header("Idempotency-Key") == body["id"] as? String)
            #expect(request.header("Content-Type") == "application/json")

            // Nothing new: nothing sent, nothing pending.
            let third = try await runOnce(directory)
            #expect(third.status == 0)
            #expect(server.requests.count == 1)
            let status = try await MonitorProcess.run(
                ["status", "--state", "state", "--format", "json"], in: directory.url)
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
            let chat = try #require(entries.first { $0["notifier"] as? String == "chat" })
            #expect(chat["pending"] as? Int == 0)
            #expect(chat["target"] as? String == "http://127.0.0.1:\(server.port)/…")
            #expect(!status.stdout.contains("s3cr3t"))
        }
    }

    @Test("a receiver down during run --once gets the notification exactly once from the next run, when it is up")
    func downThenUp() async throws {
        let directory = try TemporaryDirectory()
        // Held until the receiver is up on it: a port that was freed could be taken by another test's server.
        let refusing = try #require(RefusingPort())
        defer { refusing.close() }
        let port = refusing.number
        let url = "http://127.0.0.1:\(port)/hooks/T1/s3cr3t"
        try directory.write("feeds.yaml", feedsFile(url: url))
        try writeItems(1...2, in: directory)
        #expect(try await runOnce(directory).status == 0)
        try writeItems(1...5, in: directory)

        let down = try await runOnce(directory)
        // The feeds' exit code: the feed succeeded.
        #expect(down.status == 0)
        let line = try #require(down.stderr.split(separator: "\n").first.map(String.init))
        let id = try #require(line.split(separator: " ").dropFirst(2).first.map(String.init))
        #expect(
            down.stderr
                == "monitor: notification \(id) (new of ev) to chat not delivered: "
                + "POST http://127.0.0.1:\(port)/… failed: connection refused; kept for the next run\n")
        let status = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
        #expect(
            status.stdout.hasSuffix(
                """

                  notifier  type     target                    pending  refused  dropped  last delivered
                  chat      webhook  http://127.0.0.1:\(port)/…        1        0        0  -
                chat: POST http://127.0.0.1:\(port)/… failed: connection refused (just now)

                """), "\(status.stdout)")
        for output in [down.stdout, down.stderr, status.stdout, status.stderr] {
            #expect(!output.contains("s3cr3t"))
        }

        // Still down, with 2 more new events: the older notification is tried again, the new one waits behind it
        // (said in the same line).
        try writeItems(1...7, in: directory)
        let stillDown = try await runOnce(directory)
        #expect(stillDown.status == 0)
        #expect(
            stillDown.stderr
                == "monitor: notification \(id) (new of ev) to chat not delivered: "
                + "POST http://127.0.0.1:\(port)/… failed: connection refused; kept for the next run; "
                + "1 more waits behind it\n")

        let server = try await TestHTTPServer.start(port: port) { _ in .text("ok") }
        refusing.close()
        let up = try await runOnce(directory)
        #expect(up.status == 0)
        #expect(up.stderr == "")
        // Each exactly once, in the order of the polls.
        let keys = server.requests.map { $0.header("Idempotency-Key") }
        #expect(keys.count == 2)
        #expect(keys.first == id)
        let second = try #require(keys.last ?? nil)
        #expect(second != id)
        let bodies = try server.requests.map { try object($0.body) }
        #expect(bodies.map { $0["id"] as? String } == [id, second])
        #expect(bodies.map { $0["total"] as? Int } == [3, 2])
        #expect(
            bodies.map { ($0["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } }
                == [["e5", "e4", "e3"], ["e7", "e6"]])
        let again = try await runOnce(directory)
        #expect(again.stderr == "")
        #expect(server.requests.count == 2)
        try await server.shutdown()
    }

    @Test("secrets echoed across byte 200 of an answer: not one 4-character piece in errors, status or the state")
    func straddlingSecretsHidden() async throws {
        let directory = try TemporaryDirectory()
        // No runs of digits or hex letters in them: a port, a time or a hex id could contain "5678" or "cdef".
        let path = "/zk/T1/s3cr3t-pzth-qwrtzuiopx"
        let secret = "k3y-s3cr3t-mnjhgkrtvw"
        let header = "Bearer t0k3n-vzlu3-QWRTZUIOPX"
        let echoed = ["/p": path, "/s": secret, "/h": header]
        let padding = String(repeating: "=", count: 192)
        try await withTestHTTPServer({ request in
            let key = request.path.hasPrefix("/zk") ? "/p" : request.path
            return .text(padding + (echoed[key] ?? "") + " tail", status: 500)
        }) { server in
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                  - name: ev
                    type: exec
                    command: [cat, items.jsonl]
                notify:
                  - name: p
                    type: webhook
                    url: \(server.baseURL + path)
                  - name: s
                    type: webhook
                    url: \(server.baseURL)/s
                    secret: \(secret)
                  - name: h
                    type: webhook
                    url: \(server.baseURL)/h
                    headers: {Authorization: "\(header)"}
                """)
            try writeItems(1...2, in: directory)
            #expect(try await runOnce(directory).status == 0)
            try writeItems(1...3, in: directory)
            let run = try await runOnce(directory)
            #expect(run.status == 0)
            let shown = "POST http://127.0.0.1:\(server.port)/… answered HTTP 500: \(padding)… tail"
            let lines = run.stderr.split(separator: "\n").map { line in
                line.replacing(#/notification [^ ]+ /#, with: "notification ID ")
            }
            #expect(
                lines.sorted()
                    == ["h", "p", "s"].map {
                        "monitor: notification ID (new of ev) to \($0) not delivered: \(shown); kept for the next run"
                    })
            let status = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
            #expect(status.status == 0)
            for name in ["h", "p", "s"] {
                #expect(status.stdout.contains("\n\(name): \(shown) (just now)\n"), "\(status.stdout)")
            }
            let stored = try stateBytes(directory)
            #expect(stored.contains(padding + "… tail"))
            let pieces = [path, secret, header].flatMap { value in
                (0...(value.count - 4)).map { String(value.dropFirst($0).prefix(4)) }
            }
            for (name, text) in [
                ("run's output", run.stdout), ("run's errors", run.stderr), ("status", status.stdout),
                ("status's errors", status.stderr), ("the state", stored),
            ] {
                #expect(pieces.filter { text.contains($0) } == [], "in \(name)")
            }
        }
    }

    @Test("a failing feed notifies once when it starts failing, and once when it recovers")
    func failedAndRecoveredOnce() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            try directory.write("feeds.yaml", feedsFile(url: server.baseURL + "/hook"))
            try writeItems(1...2, in: directory)
            #expect(try await runOnce(directory).status == 0)
            try directory.write("fail", "")
            #expect(try await runOnce(directory).status == 1)
            #expect(try await runOnce(directory).status == 1)
            try FileManager.default.removeItem(at: directory.url.appendingPathComponent("fail"))
            #expect(try await runOnce(directory).status == 0)
            #expect(try await runOnce(directory).status == 0)
            let bodies = try server.requests.map { try object($0.body) }
            #expect(bodies.map { $0["event"] as? String } == ["failed", "recovered"])
            #expect(bodies.first?["error"] as? String == "'sh' exited with status 3: broken")
            #expect(bodies.last?["error"] is NSNull)
        }
    }

    @Test("a monitor killed (SIGKILL) while delivering loses nothing committed: the next run delivers it, same id")
    func killedLosesNothing() async throws {
        let directory = try TemporaryDirectory()
        let answered = Watched(0)
        try await withTestHTTPServer({ _ in
            // The first delivery never gets an answer; the next ones do.
            answered.update {
                $0 += 1; return $0
            } == 1 ? .hang : .text("ok")
        }) { server in
            try directory.write("feeds.yaml", feedsFile(url: server.baseURL + "/hook"))
            try writeItems(1...2, in: directory)
            #expect(try await runOnce(directory).status == 0)
            try writeItems(1...5, in: directory)
            let monitor = try await RunningMonitor(["run", "--format", "json", "--state", "state"], in: directory.url)
            // The notification is committed before it is delivered: once the receiver has its request, it is in
            // the outbox.
            try await server.waitForRequests(1)
            monitor.send(SIGKILL)
            #expect(try await monitor.waitForExit() == SIGKILL)
            let next = try await runOnce(directory)
            #expect(next.status == 0)
            #expect(next.stderr == "")
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests[0].header("Idempotency-Key") == requests[1].header("Idempotency-Key"))
            #expect(requests[0].body == requests[1].body)
            #expect(try object(requests[1].body)["total"] as? Int == 3)
            #expect(try await runOnce(directory).stderr == "")
            #expect(server.requests.count == 2)
        }
    }

    @Test(
        "`monitor run` retries a delivery answered 503 with backoff and delivers it; SIGTERM then leaves none pending")
    func runRetries() async throws {
        let directory = try TemporaryDirectory()
        let answered = Watched(0)
        try await withTestHTTPServer({ _ in
            answered.update {
                $0 += 1; return $0
            } == 1 ? .text("busy", status: 503) : .text("ok")
        }) { server in
            try directory.write("feeds.yaml", feedsFile(url: server.baseURL + "/hook"))
            try writeItems(1...2, in: directory)
            #expect(try await runOnce(directory).status == 0)
            try writeItems(1...5, in: directory)
            let monitor = try await RunningMonitor(["run", "--state", "state"], in: directory.url)
            // `run` tells of each attempt: the retry, then the delivery.
            try await monitor.waitForOutput { $0.contains(") delivered: HTTP 200\n") }
            let lines = monitor.stdout.split(separator: "\n").filter { $0.hasPrefix("chat: notification ") }
            #expect(lines.count == 2)
            let id = try #require(server.requests.first?.header("Idempotency-Key"))
            #expect(
                lines.first?.hasPrefix(
                    "chat: notification \(id) (new of ev) not delivered: POST http://127.0.0.1:\(server.port)/… "
                        + "answered HTTP 503: busy; next attempt at ") == true)
            #expect(lines.last == "chat: notification \(id) (new of ev) delivered: HTTP 200")
            monitor.send(SIGTERM)
            #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests[0].header("Idempotency-Key") == requests[1].header("Idempotency-Key"))
            let status = try await MonitorProcess.run(
                ["status", "--state", "state", "--format", "json"], in: directory.url)
            #expect(status.stdout.contains(#""pending":0"#))
            #expect(
                status.stdout.contains(#""error":"POST http://127.0.0.1:\#(server.port)/… answered HTTP 503: busy""#))
        }
    }

    @Test("`monitor run --format json` prints one JSON line per delivery attempt: the retry, then the delivery")
    func runJSONAttempts() async throws {
        let directory = try TemporaryDirectory()
        let answered = Watched(0)
        try await withTestHTTPServer({ _ in
            answered.update {
                $0 += 1; return $0
            } == 1 ? .text("busy", status: 503) : .text("ok")
        }) { server in
            try directory.write("feeds.yaml", feedsFile(url: server.baseURL + "/hooks/s3cr3t"))
            try writeItems(1...2, in: directory)
            #expect(try await runOnce(directory).status == 0)
            try writeItems(1...5, in: directory)
            let monitor = try await RunningMonitor(["run", "--format", "json", "--state", "state"], in: directory.url)
            try await monitor.waitForOutput { $0.contains(#""result":"delivered""#) }
            monitor.send(SIGTERM)
            #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
            let id = try #require(server.requests.first?.header("Idempotency-Key"))
            let lines = monitor.stdout.split(separator: "\n").filter { $0.hasPrefix(#"{"notification":"#) }
                .map {
                    String($0).replacing(
                        #/"next_attempt":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"/#, with: #""next_attempt":"T""#)
                }
            let what = #"{"notification":{"id":"\#(id)","notifier":"chat","feed":"ev","event":"new","#
            let retry: String =
                what + #""result":"retry","error":"POST http://127.0.0.1:\#(server.port)/… answered HTTP 503: busy","#
                + #""next_attempt":"T"}}"#
            let delivered: String = what + #""result":"delivered","answer":"HTTP 200","next_attempt":null}}"#
            #expect(lines == [retry, delivered])
            // Each line is JSON.
            for line in lines {
                #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
            }
            #expect(!monitor.stdout.contains("s3cr3t"))
        }
    }

    @Test("a `type: command` notifier run by the real binary gets the exact json body on stdin and its environment")
    func commandNotifier() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "receiver.sh",
            """
            #!/bin/sh
            # Writes what it got: its arguments, its standard input and its environment (monitor's variables).
            printf '%s\\n' "$@" > got.args
            cat > got.json
            env | grep -E '^(MONITOR_|TOKEN=|HOME=|SECRET)' | sort > got.env

            """)
        chmod(directory.url.appendingPathComponent("receiver.sh").path, 0o755)
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: ev
                type: exec
                command: [cat, items.jsonl]
            notify:
              - name: script
                type: command
                command: [./receiver.sh, --verbose, "two words"]
                env: {TOKEN: "${NOTIFY_TOKEN}"}
            """)
        let environment = ["NOTIFY_TOKEN": "t0k3n-for-the-script", "SECRET_OF_MONITOR": "not-passed"]
        try writeItems(1...2, in: directory)
        let first = try await MonitorProcess.run(
            ["run", "--once", "--state", "state"], in: directory.url, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("got.json").path))
        try writeItems(1...4, in: directory)
        let second = try await MonitorProcess.run(
            ["run", "--once", "--state", "state"], in: directory.url, environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr == "")
        let body = try directory.read("got.json")
        let object = try object(Array(body.utf8))
        let id = try #require(object["id"] as? String)
        let at = try #require(object["at"] as? String)
        #expect(
            body
                == #"{"schema":1,"id":"\#(id)","notifier":"script","feed":"ev","type":"exec","event":"new","#
                + #""at":"\#(at)","total":2,"items":["#
                + #"{"id":"e4","title":"Event 4","date":"2025-09-21T18:04:00Z","url":null,"groups":[],"details":{}},"#
                + #"{"id":"e3","title":"Event 3","date":"2025-09-21T18:03:00Z","url":null,"groups":[],"details":{}}"#
                + #"],"error":null}"#)
        #expect(
            try directory.read("got.env") == """
                HOME=\(directory.url.path)
                MONITOR_EVENT=new
                MONITOR_FEED=ev
                MONITOR_NOTIFICATION_ID=\(id)
                MONITOR_NOTIFIER=script
                TOKEN=t0k3n-for-the-script

                """)
        #expect(try directory.read("got.args") == "--verbose\ntwo words\n")
        // Delivered: the next run sends nothing again.
        try FileManager.default.removeItem(at: directory.url.appendingPathComponent("got.json"))
        let third = try await MonitorProcess.run(
            ["run", "--once", "--state", "state"], in: directory.url, environment: environment)
        #expect(third.status == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("got.json").path))
    }

    @Test("`monitor notify test NAME` sends a sample now and prints the answer; the URL is never printed whole")
    func notifyTest() async throws {
        let directory = try TemporaryDirectory()
        let fail = Watched(false)
        try await withTestHTTPServer({ _ in fail.value ? .text("boom", status: 500) : .text("ok") }) { server in
            try directory.write("feeds.yaml", feedsFile(url: server.baseURL + "/hooks/s3cr3t"))
            let sent = try await MonitorProcess.run(["notify", "test", "chat"], in: directory.url)
            #expect(sent.status == 0, "\(sent.stderr)")
            #expect(sent.stdout == "chat: delivered to http://127.0.0.1:\(server.port)/…: HTTP 200\n")
            let body = try object(try #require(server.requests.first).body)
            #expect(body["feed"] as? String == "monitor-test")
            #expect(body["event"] as? String == "new")
            #expect(body["total"] as? Int == 1)

            fail.update { $0 = true }
            let failed = try await MonitorProcess.run(["notify", "test", "chat"], in: directory.url)
            #expect(failed.status == 1)
            #expect(failed.stdout == "")
            #expect(
                failed.stderr
                    == "monitor notify test: chat: not delivered: POST http://127.0.0.1:\(server.port)/… answered HTTP 500: boom\n"
            )

            let unknown = try await MonitorProcess.run(["notify", "test", "chta"], in: directory.url)
            #expect(unknown.status == 1)
            #expect(
                unknown.stderr
                    == "monitor notify test: error: no notifier named 'chta' (did you mean 'chat'? notifiers: chat)\n")
            // Nothing of a test goes to the state.
            #expect(
                !FileManager.default.fileExists(atPath: directory.url.appendingPathComponent(".local/state").path))
            for output in [sent.stdout, failed.stderr] { #expect(!output.contains("s3cr3t")) }
        }
    }

    @Test("`monitor notify test` sends a notifier with digest: a digest combining the sample (#29 review)")
    func notifyTestDigest() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            try directory.write(
                "feeds.yaml",
                feedsFile(url: server.baseURL + "/plain") + """

                      - name: daily
                        type: webhook
                        url: \(server.baseURL)/digest
                        digest: 1h
                    """)
            for name in ["chat", "daily"] {
                let sent = try await MonitorProcess.run(["notify", "test", name], in: directory.url)
                #expect(sent.status == 0, "\(sent.stderr)")
                #expect(sent.stdout == "\(name): delivered to http://127.0.0.1:\(server.port)/…: HTTP 200\n")
            }
            let requests = server.requests
            #expect(requests.map(\.path) == ["/plain", "/digest"])
            // The sample's id and time differ each run: each body with them replaced, wherever they occur.
            let bodies = requests.map { request in
                var text = String(decoding: request.body, as: UTF8.self)
                for pattern in [#"test-[0-9a-f-]{36}"#, #"\d{4}-\d\d-\d\dT[0-9:.]+Z"#] {
                    if let found = text.range(of: pattern, options: .regularExpression) {
                        text = text.replacingOccurrences(
                            of: String(text[found]), with: pattern.hasPrefix("test") ? "ID" : "AT")
                    }
                }
                return text
            }
            let sample = { (notifier: String) in
                #"{"schema":1,"id":"ID","notifier":""# + notifier
                    + #"","feed":"monitor-test","type":"test","event":"new","at":"AT","total":1,"#
                    + #""items":[{"id":"monitor-test-1","title":"A test notification from monitor","date":"AT","#
                    + #""url":null,"groups":[],"details":{}}],"error":null}"#
            }
            #expect(bodies.first == sample("chat"))
            #expect(
                bodies.last
                    == #"{"schema":1,"id":"digest-ID-1","notifier":"daily","feed":null,"type":null,"event":"digest","#
                    + #""at":"AT","total":1,"items":[],"error":null,"notifications":["# + sample("daily") + "]}")
        }
    }

    @Test("`monitor sources` lists the notifier types with their options")
    func sources() async throws {
        let directory = try TemporaryDirectory()
        let result = try await MonitorProcess.run(["sources"], in: directory.url)
        #expect(result.status == 0)
        #expect(result.stdout.contains("\nNotifier types, chosen with `type:` in a `notify:` item:\n"))
        #expect(
            result.stdout.contains(
                "\nwebhook: An HTTP POST of each notification (json, slack, discord, ntfy or text)\n"))
        #expect(
            result.stdout.contains("\ncommand: A program run per notification, the json body on its standard input\n"))
        #expect(result.stdout.contains("\nOptions of every notifier:\n"))
    }
}
