import Foundation
import LoopbackHTTP
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A program for an exec feed whose item set grows by one at each run, up to 4 items (`e1`…`e4`), and past 2 only
/// once a file `more` exists: its first poll is the baseline, the next one makes one `new` notification, and once
/// `more` is there two more do, then nothing more.
private let growing = """
    n=$(cat count 2>/dev/null || echo 0)
    if [ "$n" -lt 2 ] || [ -f more ]; then
      n=$((n + 1))
      echo "$n" > count
    fi
    i=1
    while [ "$i" -le "$n" ] && [ "$i" -le 4 ]; do
      printf '{"item":{"id":"e%d","title":"Event %d","date":"2025-09-21T18:0%d:00Z"}}\\n' "$i" "$i" "$i"
      i=$((i + 1))
    done
    """

/// The JSON object of a line.
private func object(_ line: Substring) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
}

/// The notification objects of `run --format json`'s output, in order.
private func notifications(_ output: String) -> [[String: Any]] {
    output.split(separator: "\n").compactMap { object($0)?["notification"] as? [String: Any] }
}

/// What a notification object says, but for the time of a retry's next attempt (only checked to be a date).
private func shape(_ notification: [String: Any]) -> [String] {
    ["id", "notifier", "feed", "event", "result", "answer", "error"].map { key in
        notification[key].map { "\(key)=\($0)" } ?? "-"
    }
}

@Suite("The outbox bounds, the waiting line and a stop, with the real `monitor` binary", .timeLimit(.minutes(5)))
struct OutboxBoundsEndToEndTests {
    @Test(
        "a receiver that stays down (503): past max_pending the oldest is dropped, said in a line, counted in status",
        arguments: ["json", "text"])
    func dropReported(format: String) async throws {
        let directory = try TemporaryDirectory()
        // Down for an hour: each notification is tried once, then waits.
        try await withTestHTTPServer({ _ in
            .text("busy", status: 503, headers: [(name: "Retry-After", value: "3600")])
        }) { server in
            try directory.write("growing.sh", growing)
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                  - name: ev
                    type: exec
                    interval: 1s
                    command: [sh, growing.sh]
                notify:
                  - name: chat
                    type: webhook
                    url: \(server.baseURL)/hooks/s3cr3t
                    max_pending: 2
                """)
            let monitor = try await RunningMonitor(
                ["run", "--format", format, "--state", "state", "--metrics", "127.0.0.1:0"], in: directory.url)
            let errors = try await monitor.waitForErrors { $0.contains("/metrics\n") }
            let address = try #require(
                errors.firstMatch(of: /^metrics on (http:\/\/127\.0\.0\.1:[0-9]+\/metrics)\n/)?.output.1)
            // n1 is tried and not delivered (said); then n2 waits; n3 makes three: n1 is dropped, and n2, now the
            // oldest, is tried. Then the feed has nothing new.
            let said = { @Sendable (output: String) -> Int in
                format == "json"
                    ? notifications(output).count
                    : output.split(separator: "\n").filter { $0.hasPrefix("chat: ") }.count
            }
            try await monitor.waitForOutput { said($0) == 1 }
            try directory.write("more", "")
            try await monitor.waitForOutput { said($0) == 3 }
            #expect(server.requests.count == 2)
            let keys = server.requests.map { $0.header("Idempotency-Key") ?? "" }
            let (first, second) = (keys[0], keys[1])
            let error = "POST \(server.baseURL)/… answered HTTP 503: busy"
            let reason = "more than 2 notifications waited for chat (max_pending)"
            if format == "json" {
                let (_, _, text) = try await fetch(String(address))
                #expect(
                    try PrometheusText(text).samples("monitor_notifications_dropped_total") == [
                        .init("monitor_notifications_dropped_total", ["notifier": "chat"], 1)
                    ])
                monitor.send(SIGTERM)
                #expect(try await monitor.waitForExit() == 0)
                let lines = notifications(monitor.stdout)
                #expect(
                    lines.map(shape) == [
                        [
                            "id=\(first)", "notifier=chat", "feed=ev", "event=new", "result=retry", "-",
                            "error=\(error)",
                        ],
                        [
                            "id=\(first)", "notifier=chat", "feed=ev", "event=new", "result=dropped", "-",
                            "error=\(reason)",
                        ],
                        [
                            "id=\(second)", "notifier=chat", "feed=ev", "event=new", "result=retry", "-",
                            "error=\(error)",
                        ],
                    ])
                #expect(lines.map { $0["next_attempt"] is String } == [true, false, true])
                // The drop's line whole.
                #expect(
                    monitor.stdout.contains(
                        #"{"notification":{"id":"\#(first)","notifier":"chat","feed":"ev","event":"new","#
                            + #""result":"dropped","error":"\#(reason)","next_attempt":null}}"# + "\n"))
            } else {
                monitor.send(SIGTERM)
                #expect(try await monitor.waitForExit() == 0)
                let lines = monitor.stdout.split(separator: "\n").filter { $0.hasPrefix("chat: ") }
                #expect(lines.count == 3)
                #expect(
                    lines[0].hasPrefix(
                        "chat: notification \(first) (new of ev) not delivered: \(error); next attempt at "))
                #expect(lines[1] == "chat: notification \(first) (new of ev) dropped: \(reason)")
                #expect(
                    lines[2].hasPrefix(
                        "chat: notification \(second) (new of ev) not delivered: \(error); next attempt at "))
            }
            #expect(monitor.stderr == "metrics on \(address)\n")
            #expect(!monitor.stdout.contains("s3cr3t"))

            let status = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
            #expect(
                status.stdout.hasSuffix(
                    """

                      notifier  type     target                    pending  refused  dropped  last delivered
                      chat      webhook  http://127.0.0.1:\(server.port)/…        2        0        1  -
                    chat: \(error) (just now)

                    """), "\(status.stdout)")
            let json = try await MonitorProcess.run(
                ["status", "--state", "state", "--format", "json"], in: directory.url)
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            let chat = try #require(entries.first { $0["notifier"] as? String == "chat" })
            #expect(chat["pending"] as? Int == 2)
            #expect(chat["refused"] as? Int == 0)
            #expect(chat["dropped"] as? Int == 1)
        }
    }

    @Test("run --once with notifications waiting behind an undelivered one: one line per notifier, with how many")
    func oneLinePerNotifier() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer({ _ in .text("busy", status: 503) }) { server in
            let feeds = (1...3).map { "  - {name: f\($0), type: exec, command: [cat, items.jsonl]}" }
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                \(feeds.joined(separator: "\n"))
                notify:
                  - {name: chat, type: webhook, url: "\(server.baseURL)/chat"}
                  - {name: team, type: webhook, url: "\(server.baseURL)/team"}
                """)
            var items: [String] = []
            func add(_ count: Int) throws {
                for _ in 0..<count {
                    let number = items.count + 1
                    items.append(
                        #"{"item":{"id":"e\#(number)","title":"Event \#(number)","date":"2025-09-21T18:\#(String(format: "%02d", number)):00Z"}}"#
                    )
                }
                try directory.write("items.jsonl", items.joined(separator: "\n") + "\n")
            }
            try add(1)
            let baseline = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(baseline.stderr == "")

            // Each of the 3 feeds has something new for each notifier; each receiver is asked once.
            try add(1)
            let second = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(second.status == 0)
            #expect(server.requests.count == 2)
            try expectWaiting(second.stderr, behind: 2, server: server)

            // Again: each receiver is asked for its oldest; the 3 new ones wait behind it too.
            try add(1)
            let third = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(server.requests.count == 4)
            try expectWaiting(third.stderr, behind: 5, server: server)
        }
    }

    /// `stderr` holds exactly one line for each notifier: its oldest notification (the one last sent to it) not
    /// delivered, and `behind` more waiting behind it.
    private func expectWaiting(_ stderr: String, behind: Int, server: TestHTTPServer) throws {
        let lines = stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(stderr)")
        for notifier in ["chat", "team"] {
            let line = try #require(lines.first { $0.contains(") to \(notifier) not delivered: ") })
            let request = try #require(server.requests.last { $0.path == "/\(notifier)" })
            let id = try #require(request.header("Idempotency-Key"))
            let feed = try #require(line.firstMatch(of: /\(new of (f[123])\)/)?.output.1)
            #expect(
                line
                    == "monitor: notification \(id) (new of \(feed)) to \(notifier) not delivered: "
                    + "POST \(server.baseURL)/… answered HTTP 503: busy; kept for the next run; "
                    + "\(behind) more wait behind it")
        }
    }

    @Test(
        "a stop while a notification is being delivered says nothing: no warning, exit 0, the notification kept",
        arguments: [SIGTERM, SIGINT])
    func quietStop(signal: Int32) async throws {
        let directory = try TemporaryDirectory()
        // A receiver that never answers: the delivery is in flight when the stop comes.
        try await withTestHTTPServer({ _ in TestResponse(status: 200, delay: .seconds(600)) }) { server in
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                  - {name: ev, type: exec, command: [cat, items.jsonl]}
                notify:
                  - {name: chat, type: webhook, url: "\(server.baseURL)/hook"}
                """)
            try directory.write(
                "items.jsonl", #"{"item":{"id":"e1","title":"Event 1","date":"2025-09-21T18:01:00Z"}}"# + "\n")
            #expect(
                try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url).stderr == "")
            try directory.write(
                "items.jsonl",
                #"{"item":{"id":"e1","title":"Event 1","date":"2025-09-21T18:01:00Z"}}"# + "\n"
                    + #"{"item":{"id":"e2","title":"Event 2","date":"2025-09-21T18:02:00Z"}}"# + "\n")
            let monitor = try await RunningMonitor(["run", "--state", "state"], in: directory.url)
            try await server.waitForInFlight(1)
            monitor.send(signal)
            #expect(try await monitor.waitForExit() == 0)
            #expect(monitor.stderr == "")
            let status = try await MonitorProcess.run(
                ["status", "--state", "state", "--format", "json"], in: directory.url)
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
            #expect(entries.first { $0["notifier"] as? String == "chat" }?["pending"] as? Int == 1)
        }
    }
}
