import Foundation
import LoopbackHTTP
import TestSupport
import Testing

@testable import MonitorCore

/// The newest event the first run stores: 2024-06-01T12:00:00Z.
private let newest = Date(timeIntervalSince1970: 1_717_243_200)

/// `count` pushes to ReactiveX/RxSwift, newest first from id `firstID` dated `date`, a minute apart.
private func pushes(_ count: Int, firstID: Int, newest date: Date) -> [GitHubFixtures.Event] {
    GitHubFixtures.pushes(count, repo: "ReactiveX/RxSwift", firstID: firstID, newest: date)
}

/// The `"gap"` value of each JSON line of `output`, as written.
private func gaps(_ output: String) -> [String] {
    output.split(separator: "\n").map { line in
        line.firstMatch(of: /"gap":(null|\{[^}]*\})/).map { String($0.output.1) } ?? "(none)"
    }
}

/// `text` with what varies from one run to the next masked: durations, notification ids and times.
private func masked(_ text: String) -> String {
    text.replacing(/\b(\d+ms|\d+\.\ds)\b/, with: "<duration>")
        .replacing(/"id":"[0-9a-f-]{36}"/, with: #""id":"<id>""#)
        .replacing(/"at":"[^"]*"/, with: #""at":"<time>""#)
}

private func runOnce(_ directory: TemporaryDirectory, json: Bool = false) async throws -> MonitorProcess.Result {
    try await MonitorProcess.run(
        ["run", "--once", "--state", "state"] + (json ? ["--format", "json"] : []), in: directory.url)
}

@Suite("Missed events: the summary, the JSON and a notifier tell of a gap", .timeLimit(.minutes(5)))
struct GapEndToEndTests {
    @Test("more events than GitHub's window between two runs: a gap in JSON and text, one notification each, status ok")
    func githubWindow() async throws {
        let directory = try TemporaryDirectory()
        let github = GitHubFixtures.API()
        github.setEvents(pushes(40, firstID: 5000, newest: newest), of: "repos/ReactiveX/RxSwift")
        try await withTestHTTPServer({ request in
            if request.path.hasPrefix("/hooks/") { return .text("ok") }
            return TestResponse(github.serve(HTTPRequest(request)))
        }) { server in
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                  - name: rx
                    type: github
                    repo: ReactiveX/RxSwift
                    api: \(server.baseURL)
                    keep: 300
                    details: false
                notify:
                  - name: chat
                    type: webhook
                    url: \(server.baseURL)/hooks/gap
                    on: [new, gap]
                """)
            let hooks = { server.requests.filter { $0.path.hasPrefix("/hooks/") } }

            // A first sync has nothing stored to miss, and notifies nothing.
            let first = try await runOnce(directory, json: true)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr == "")
            #expect(gaps(first.stdout) == ["null"])
            #expect(hooks().isEmpty)

            // 350 events a day later: the API serves the newest 300, the oldest 19h01m after the one stored.
            github.prepend(pushes(350, firstID: 5350, newest: newest + 86_400), to: "repos/ReactiveX/RxSwift")
            let second = try await runOnce(directory, json: true)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stderr == "")
            #expect(second.stdout.hasPrefix(#"{"schema":1,"feed":"rx","type":"github","status":"ok","error":null,"#))
            #expect(gaps(second.stdout) == [#"{"since":"2024-06-01T12:00:00Z","until":"2024-06-02T07:01:00Z"}"#])
            let sent = hooks()
            let events = sent.map { request in
                (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["event"] as? String
            }
            #expect(events == ["new", "gap"])
            #expect(
                masked(String(decoding: sent.last?.body ?? [], as: UTF8.self))
                    == #"{"schema":1,"id":"<id>","notifier":"chat","feed":"rx","type":"github","event":"gap","#
                    + #""at":"<time>","total":0,"items":[],"#
                    + #""error":"older events may be missing: 2024-06-01T12:00:00Z to 2024-06-02T07:01:00Z (19h1m)","#
                    + #""gap":{"since":"2024-06-01T12:00:00Z","until":"2024-06-02T07:01:00Z"}}"#)

            // Again, in text.
            github.prepend(pushes(350, firstID: 5700, newest: newest + 2 * 86_400), to: "repos/ReactiveX/RxSwift")
            let third = try await runOnce(directory)
            #expect(third.status == 0, "\(third.stderr)")
            #expect(third.stderr == "")
            let pushed = "  * 2024-06-03    kzaher pushed to main  (ReactiveX/RxSwift)\n"
            #expect(
                masked(third.stdout) == """
                    rx (github): ok — 300 items, 300 new, 3 requests, <duration>
                      older events may be missing: 2024-06-02T12:00:00Z to 2024-06-03T07:01:00Z (19h1m)
                      event type  items   new
                      PushEvent     300  +300
                      latest (UTC):

                    """ + String(repeating: pushed, count: 5) + "  rate limit: 53/60 remaining, resets 05:12 UTC\n\n")
            #expect(hooks().count == 4)

            // Five new events whose page reaches those stored: no gap, only `new`.
            github.prepend(pushes(5, firstID: 5705, newest: newest + 2 * 86_400 + 300), to: "repos/ReactiveX/RxSwift")
            let fourth = try await runOnce(directory, json: true)
            #expect(fourth.status == 0, "\(fourth.stderr)")
            #expect(gaps(fourth.stdout) == ["null"])
            #expect(hooks().count == 5)
            let status = try await MonitorProcess.run(
                ["status", "--state", "state", "--format", "json"], in: directory.url)
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
            #expect(entries.first { $0["feed"] as? String == "rx" }?["status"] as? String == "ok")
        }
    }

    @Test("an exec program's gap line: the summary, the JSON and a slack message carry its words, cleaned")
    func execGapLine() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer({ _ in .text("ok") }) { server in
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                  - name: log
                    type: exec
                    command: [sh, -c, "cat out.jsonl"]
                notify:
                  - name: chat
                    type: webhook
                    url: \(server.baseURL)/hooks/gap
                    format: slack
                    on: [gap]
                """)
            try directory.write(
                "out.jsonl",
                #"""
                {"item":{"id":"l1","title":"Line 1","date":"2025-09-21T18:00:00Z"}}
                {"gap":{"message":"the log rotated:\u001b[2J lines before 10:00 are gone <!here>"}}

                """#)
            let text = try await runOnce(directory)
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stderr == "")
            #expect(
                masked(text.stdout) == """
                    log (exec): ok — 1 item, 1 new, 0 requests, <duration>
                      older events may be missing: the log rotated: lines before 10:00 are gone <!here>
                      latest (UTC):
                      * 2025-09-21    Line 1


                    """)
            let json = try await runOnce(directory, json: true)
            #expect(json.status == 0, "\(json.stderr)")
            #expect(
                gaps(json.stdout) == [
                    #"{"since":null,"until":null,"message":"the log rotated: lines before 10:00 are gone <!here>"}"#
                ])
            let sent = server.requests
            #expect(sent.count == 2)
            let slack =
                #"{"text":"*log* (exec): older events may be missing: the log rotated: lines before 10:00 are gone "#
                + #"&lt;!here&gt;"}"#
            #expect(sent.map { String(decoding: $0.body, as: UTF8.self) } == [slack, slack])
        }
    }
}
