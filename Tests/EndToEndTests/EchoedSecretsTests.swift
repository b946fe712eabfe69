import Foundation
import LoopbackHTTP
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The webhook of Spring Boot's receiver: its path has a segment that is part of the host (`127.0.0.1`), a
/// percent-encoded segment and a query with a secret value.
private let springPath = "/hooks/127.0.0.1/T0AAAA/B0BBBB/XyZ%2Bs3cr3tPATH"
private let springQuery = "v=1&sig=q5ecr3tQUERY"
/// The webhook of the receiver echoing its query, a header, a header's prefix and its decoded path.
private let echoPath = "/in/v1/Zq%20s3cr3t%2Fseg"
private let echoQuery = "tok=Q5tokQUERYsecret&v=1"
private let authorization = "Bearer t0k3n-HDRsecret-value"
private let apiKey = "ak-PREFIXsecret-0001"

/// What no output and no state may hold: a piece of every secret part of both webhooks (each segment of 4
/// characters or more, each query value, the decoded forms, the header values and the echoed prefix).
private let forbidden = [
    "T0AAAA", "B0BBBB", "XyZ%2B", "XyZ+s", "s3cr3t", "secret", "QUERY", "HDRse", "PREFIX", "Zq%20", "Zq s3", "ak-PR",
    "sig=q", "tok=Q",
]

/// Spring Boot's default answer to an unknown path: a 404 whose JSON echoes the path, without its query.
private let spring: @Sendable (RecordedRequest) -> TestResponse = { request in
    .json(
        #"{"timestamp":"2025-09-21T18:00:00.000+00:00","status":404,"error":"Not Found","path":"\#(request.path)"}"#,
        status: 404)
}

/// A receiver refusing with a 401 that echoes its query, a query value, a header's value, the first 10
/// characters of another's and its path percent-decoded.
private let echo: @Sendable (RecordedRequest) -> TestResponse = { request in
    let query = request.uri.split(separator: "?", maxSplits: 1).last.map(String.init) ?? ""
    let key = request.header("X-Api-Key") ?? ""
    let text =
        "no access: query \(query); token \(request.query["tok"] ?? ""); auth \(request.header("Authorization") ?? ""); "
        + "key \(key.prefix(10)) (cut); path \(request.path.removingPercentEncoding ?? "")"
    return .text(text, status: 401)
}

/// The feeds file: an exec feed `ev` (the items of `items.jsonl`) and the webhooks `spring` and `echo`.
private func feedsFile(spring: String, echo: String) -> String {
    """
    feeds:
      - name: ev
        type: exec
        command: [cat, items.jsonl]
    notify:
      - name: spring
        type: webhook
        url: \(spring)\(springPath)?\(springQuery)
      - name: echo
        type: webhook
        url: \(echo)\(echoPath)?\(echoQuery)
        headers: {Authorization: "\(authorization)", X-Api-Key: "\(apiKey)"}
    """
}

/// `text` with each notification's id as `ID` and each time as `T`.
private func normalized(_ text: String) -> String {
    text.replacing(#/notification [0-9a-f-]{36}/#, with: "notification ID")
        .replacing(#/"id":"[0-9a-f-]{36}"/#, with: #""id":"ID""#)
        .replacing(#/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}(\+0000|Z)/#, with: "T")
}

/// The lines of `text`, normalized.
private func lines(_ text: String) -> [String] {
    normalized(text).split(separator: "\n").map(String.init)
}

/// The bytes of every file of the SQLite state in `directory/state` (the database and its WAL), as text.
func stateBytes(_ directory: TemporaryDirectory) throws -> String {
    var bytes = Data()
    let state = directory.url.appendingPathComponent("state")
    for file in try FileManager.default.contentsOfDirectory(atPath: state.path).sorted() {
        bytes += try Data(contentsOf: state.appendingPathComponent(file))
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The pieces of `forbidden` that `text` holds.
private func leaks(_ text: String) -> [String] {
    forbidden.filter { text.contains($0) }
}

@Suite("Receivers and programs echoing secrets: the real binary shows and stores none", .timeLimit(.minutes(5)))
struct EchoedSecretsTests {
    @Test("webhooks answered with their path, query, headers echoed: notify test, run, status and the state hide them")
    func webhooks() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(spring) { springServer in
            try await withTestHTTPServer(echo) { echoServer in
                try directory.write("feeds.yaml", feedsFile(spring: springServer.baseURL, echo: echoServer.baseURL))
                let springShown =
                    "POST http://127.0.0.1:\(springServer.port)/… answered HTTP 404: "
                    + #"{"timestamp":"2025-09-21T18:00:00.000+00:00","status":404,"error":"Not Found","path":"…"}"#
                let echoShown =
                    "POST http://127.0.0.1:\(echoServer.port)/… answered HTTP 401: "
                    + "no access: query …; token …; auth …; key … (cut); path …"
                var outputs: [(String, String)] = []

                let testSpring = try await MonitorProcess.run(["notify", "test", "spring"], in: directory.url)
                #expect(testSpring.status == 1)
                #expect(testSpring.stderr == "monitor notify test: spring: refused: \(springShown)\n")
                let testEcho = try await MonitorProcess.run(["notify", "test", "echo"], in: directory.url)
                #expect(testEcho.status == 1)
                #expect(testEcho.stderr == "monitor notify test: echo: refused: \(echoShown)\n")
                // The receivers got the secrets: what they echo is what the messages hide.
                #expect(springServer.requests.map(\.uri) == ["\(springPath)?\(springQuery)"])
                #expect(echoServer.requests.map(\.uri) == ["\(echoPath)?\(echoQuery)"])
                #expect(echoServer.requests.first?.header("Authorization") == authorization)
                outputs += [("notify test", testSpring.stdout + testSpring.stderr + testEcho.stdout + testEcho.stderr)]

                // `run --once` (with its logs): the first poll syncs, the second notifies both.
                try writeItems(1...2, in: directory)
                let first = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
                #expect(first.status == 0, "\(first.stderr)")
                try writeItems(1...3, in: directory)
                let once = try await MonitorProcess.run(
                    ["run", "--once", "--verbose", "--state", "state"], in: directory.url)
                #expect(once.status == 0, "\(once.stderr)")
                let undelivered = lines(once.stderr).filter { $0.hasPrefix("monitor: ") }
                #expect(
                    undelivered.sorted() == [
                        "monitor: notification ID (new of ev) to echo refused: \(echoShown); not sent again",
                        "monitor: notification ID (new of ev) to spring refused: \(springShown); not sent again",
                    ])
                let logged = lines(once.stderr).filter { $0.contains("not delivered") }
                #expect(
                    logged.map { $0.replacing(#/ id=[0-9a-f-]{36} /#, with: " ") }.sorted()
                        == [
                            "T info monitor: error=\(echoShown) notifier=echo [MonitorCore] notification not delivered",
                            "T info monitor: error=\(springShown) notifier=spring [MonitorCore] notification not delivered",
                        ].sorted())
                outputs += [("run --once", first.stdout + first.stderr + once.stdout + once.stderr)]

                // `run --format json`, then `run` as text: one line per attempt.
                try writeItems(1...4, in: directory)
                let json = try await RunningMonitor(
                    ["run", "--format", "json", "--state", "state"], in: directory.url)
                try await json.waitForOutput { $0.components(separatedBy: #""result":"refused""#).count == 3 }
                json.send(SIGTERM)
                #expect(try await json.waitForExit() == 0, "\(json.stderr)")
                let jsonLines = lines(json.stdout).filter { $0.hasPrefix(#"{"notification":"#) }
                let refusedJSON = { (name: String, shown: String) in
                    #"{"notification":{"id":"ID","notifier":"\#(name)","feed":"ev","event":"new","result":"refused","#
                        + #""error":"\#(shown.replacingOccurrences(of: "\"", with: "\\\""))","next_attempt":null}}"#
                }
                #expect(jsonLines.sorted() == [refusedJSON("echo", echoShown), refusedJSON("spring", springShown)])
                outputs += [("run --format json", json.stdout + json.stderr)]

                try writeItems(1...5, in: directory)
                let text = try await RunningMonitor(["run", "--state", "state"], in: directory.url)
                try await text.waitForOutput { $0.components(separatedBy: "; not sent again\n").count == 3 }
                text.send(SIGTERM)
                #expect(try await text.waitForExit() == 0, "\(text.stderr)")
                let textLines = lines(text.stdout).filter { $0.contains(": notification ") }
                #expect(
                    textLines.sorted() == [
                        "echo: notification ID (new of ev) refused: \(echoShown); not sent again",
                        "spring: notification ID (new of ev) refused: \(springShown); not sent again",
                    ])
                outputs += [("run", text.stdout + text.stderr)]

                let status = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
                #expect(status.status == 0)
                #expect(
                    status.stdout.hasSuffix(
                        """
                        spring: \(springShown) (just now)
                        echo: \(echoShown) (just now)

                        """), "\(status.stdout)")
                let statusJSON = try await MonitorProcess.run(
                    ["status", "--format", "json", "--state", "state"], in: directory.url)
                let entries = try #require(
                    try JSONSerialization.jsonObject(with: Data(statusJSON.stdout.utf8)) as? [[String: Any]])
                let notifiers = entries.filter { $0["notifier"] != nil }
                #expect(notifiers.map { $0["notifier"] as? String } == ["spring", "echo"])
                #expect(notifiers.map { $0["error"] as? String } == [springShown, echoShown])
                #expect(
                    notifiers.map { $0["target"] as? String } == [
                        "http://127.0.0.1:\(springServer.port)/…", "http://127.0.0.1:\(echoServer.port)/…",
                    ])
                outputs += [("status", status.stdout + status.stderr + statusJSON.stdout + statusJSON.stderr)]

                let state = try stateBytes(directory)
                #expect(state.contains(#""status":404,"error":"Not Found","path":"…"}"#))
                outputs += [("the state", state)]
                for (name, output) in outputs {
                    #expect(leaks(output) == [], "in \(name)")
                }
            }
        }
    }

    @Test("with the state in PostgreSQL, the notifiers' errors stored show none of the secrets")
    func postgres() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let state = server.text(of: url)
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(spring) { springServer in
            try await withTestHTTPServer(echo) { echoServer in
                try directory.write("feeds.yaml", feedsFile(spring: springServer.baseURL, echo: echoServer.baseURL))
                try writeItems(1...2, in: directory)
                #expect(
                    try await MonitorProcess.run(["run", "--once", "--state", state], in: directory.url).status == 0)
                try writeItems(1...3, in: directory)
                let once = try await MonitorProcess.run(["run", "--once", "--state", state], in: directory.url)
                #expect(once.status == 0, "\(once.stderr)")
                #expect(echoServer.requests.count == 1)
                let status = try await MonitorProcess.run(
                    ["status", "--format", "json", "--state", state], in: directory.url)
                let tables = try await server.strings(
                    "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1",
                    database: url.database)
                #expect(tables.contains("notifier"))
                var stored: [String] = []
                for table in tables {
                    stored += try await server.strings("SELECT t::text FROM \(table) t", database: url.database)
                }
                let errors = try await server.strings(
                    "SELECT last_error FROM notifier ORDER BY name", database: url.database)
                #expect(
                    errors == [
                        "POST http://127.0.0.1:\(echoServer.port)/… answered HTTP 401: "
                            + "no access: query …; token …; auth …; key … (cut); path …",
                        "POST http://127.0.0.1:\(springServer.port)/… answered HTTP 404: "
                            + #"{"timestamp":"2025-09-21T18:00:00.000+00:00","status":404,"error":"Not Found","#
                            + #""path":"…"}"#,
                    ])
                for (name, output) in [
                    ("run --once", once.stdout + once.stderr), ("status", status.stdout + status.stderr),
                    ("the state", stored.joined(separator: "\n")),
                ] {
                    #expect(leaks(output) == [], "in \(name)")
                }
            }
        }
    }

    @Test("a command notifier printing its env value's start, its base64 and itself: shown and stored as …")
    func command() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "notify.sh",
            """
            #!/bin/sh
            cat > /dev/null
            printf 'start %.10s (cut)\\n' "$TOKEN" >&2
            printf 'base64 %s\\n' "$(printf '%s' "$TOKEN" | base64)" >&2
            printf 'header %s\\n' "$(printf 'Bearer %s' "$TOKEN" | base64 | tr '+/' '-_')" >&2
            echo "whole $TOKEN" >&2
            exit 1

            """)
        chmod(directory.url.appendingPathComponent("notify.sh").path, 0o755)
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
                command: [./notify.sh]
                env: {TOKEN: "${NOTIFY_TOKEN}"}
            """)
        let token = "t0k3n-CMDsecret-value"
        let environment = ["NOTIFY_TOKEN": token]
        // `Bearer ` is 7 bytes: the token starts at an offset of 1 of a group of the encoded text, of which the
        // characters encoding `Bearer ` (and 2 bits of the token) and the last group (4 bits, the padding) show.
        let shown = "'./notify.sh' exited with status 1: start … (cut) base64 … header QmVhcmVyIH…Q== whole …"
        let tested = try await MonitorProcess.run(
            ["notify", "test", "script"], in: directory.url, environment: environment)
        #expect(tested.status == 1)
        #expect(tested.stderr == "monitor notify test: script: not delivered: \(shown)\n")
        try writeItems(1...2, in: directory)
        #expect(
            try await MonitorProcess.run(
                ["run", "--once", "--state", "state"], in: directory.url, environment: environment
            )
            .status == 0)
        try writeItems(1...3, in: directory)
        let once = try await MonitorProcess.run(
            ["run", "--once", "--state", "state"], in: directory.url, environment: environment)
        #expect(
            normalized(once.stderr)
                == "monitor: notification ID (new of ev) to script not delivered: \(shown); kept for the next run\n")
        let status = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
        #expect(status.stdout.hasSuffix("script: \(shown) (just now)\n"), "\(status.stdout)")
        // The token, its start, and pieces of its base64 alone and after `Bearer `.
        let pieces = ["CMDsecret", "t0k3n-CMD", "dDBrM24t", "Q01Ec2Vj", "QwazNuLUNN"]
        for (name, text) in [
            ("notify test", tested.stderr), ("run --once", once.stderr), ("status", status.stdout),
            ("the state", try stateBytes(directory)),
        ] {
            #expect(pieces.filter { text.contains($0) } == [], "in \(name)")
        }
    }
}
