import Foundation
import TestSupport
import Testing

@testable import MonitorCore

#if canImport(Glibc)
    import Glibc
#endif

/// The JSON objects of `text`, one per line, by feed.
private func reports(_ text: String) throws -> [String: [String: Any]] {
    var reports: [String: [String: Any]] = [:]
    for line in text.split(separator: "\n") {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        reports[try #require(object["feed"] as? String)] = object
    }
    return reports
}

@Suite("monitor with `type: exec` feeds, as a user runs it")
struct ExecEndToEndTests {
    @Test("`monitor sources` lists the exec type and its options")
    func sources() async throws {
        let directory = try TemporaryDirectory()
        let result = try await MonitorProcess.run(["sources"], in: directory.url)
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                """

                exec: An external program in any language, speaking JSON lines (see the README)
                  command    list of words           required             The program and its arguments, run without a shell, e.g. [python3, source.py, --flag]
                  retention  replace|keep_newest     default keep_newest  replace: each run reports the whole set; keep_newest: each run reports what is new
                  keep       integer 1…1000000       default 500          With keep_newest, how many of the newest items are kept
                  timeout    duration                optional             Time limit of the whole run (default: settings.timeout × 2)
                  env        mapping of NAME: value  optional             Environment variables for the program, e.g. {API: "${API_ROOT}"}

                """))
    }

    @Test("in one run a crashing, a garbled, a hanging and a flooding program each fail only their own feed")
    func eachFailsAlone() async throws {
        let directory = try TemporaryDirectory()
        let good = """
            import json
            for band in ["a", "b"]:
                print(json.dumps({"group": {"id": band, "title": "Band " + band.upper()}}))
            for number in range(5):
                print(json.dumps({"item": {"id": "q%d" % number, "title": "Quake %d" % number,
                                           "date": "2025-09-21T18:00:00Z", "groups": ["a" if number < 3 else "b"]}}))
            """
        try directory.write("good.py", good)
        try directory.write(
            "feeds.yaml",
            """
            settings:
              max_body: 64KiB
            feeds:
              - name: good
                type: exec
                command: [python3, good.py]
              - name: crash
                type: exec
                command: [sh, -c, "echo 'Traceback (most recent call last):' >&2; echo 'KeyError: feed' >&2; exit 2"]
              - name: garbage
                type: exec
                command: [sh, -c, "echo '{\\"progress\\":{\\"done\\":1}}'; echo '<html>oops</html>'"]
              - name: hang
                type: exec
                command: [sleep, "1000"]
                timeout: 1s
              - name: flood
                type: exec
                command: [yes, '{"progress":{"done":1}}']
            """)
        let run = try await MonitorProcess.run(
            ["run", "--once", "--format", "json", "--state", "state"], in: directory.url)
        #expect(run.status == 1, "\(run.stderr)")
        let all = try reports(run.stdout)
        #expect(all.count == 5)
        let goodReport = try #require(all["good"])
        #expect(goodReport["status"] as? String == "ok")
        #expect(goodReport["items"] as? Int == 5)
        let groups = try #require(goodReport["groups"] as? [[String: Any]])
        #expect(groups.map { $0["id"] as? String } == ["a", "b"])
        #expect(groups.map { $0["count"] as? Int } == [3, 2])
        #expect(all["crash"]?["status"] as? String == "failed")
        #expect(
            all["crash"]?["error"] as? String
                == "'sh' exited with status 2: Traceback (most recent call last): | KeyError: feed")
        #expect(
            all["garbage"]?["error"] as? String
                == "line 2 of the output: not JSON (unexpected '<' at byte 1): '<html>oops</html>'")
        #expect(all["hang"]?["error"] as? String == "'sleep' was still running after the timeout (1s): ended")
        #expect(
            all["flood"]?["error"] as? String == "the program wrote more than settings.max_body (64KiB) on its output")

        let status = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
        #expect(status.stdout.split(separator: "\n").filter { $0.contains(" exec ") && $0.contains(" ok ") }.count == 1)
    }

    @Test(
        "a date not of the calendar, a key met twice and a cursor with NUL each fail their own feed, naming the line"
    )
    func badLinesFailTheirFeed() async throws {
        let directory = try TemporaryDirectory()
        let good = #"{"item":{"id":"a1","title":"A","date":"2025-09-21T18:00:00Z"}}"#
        let feeds = ["date", "twice", "nul"]
        for feed in feeds { try directory.write("\(feed).jsonl", good + "\n") }
        try directory.write(
            "feeds.yaml",
            "feeds:\n" + feeds.map { "  - {name: \($0), type: exec, command: [cat, \($0).jsonl]}\n" }.joined())
        let arguments = ["run", "--once", "--format", "json", "--state", "state"]
        let first = try await MonitorProcess.run(arguments, in: directory.url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try reports(first.stdout).mapValues { $0["items"] as? Int } == ["date": 1, "twice": 1, "nul": 1])

        try directory.write(
            "date.jsonl", good + "\n" + #"{"item":{"id":"a2","title":"B","date":"2025-02-29T18:00:00Z"}}"#)
        try directory.write(
            "twice.jsonl", #"{"item":{"id":"a2","title":"B","date":"2025-09-21T18:00:00Z","title":"C"}}"# + "\n")
        try directory.write("nul.jsonl", good + "\n\n" + #"{"cursor":"next\u0000page"}"# + "\n")
        let second = try await MonitorProcess.run(arguments, in: directory.url)
        #expect(second.status == 1, "\(second.stderr)")
        let all = try reports(second.stdout)
        #expect(
            all["date"]?["error"] as? String
                == #"line 2 of the output: item 'a2': "date" is not a date of the calendar (February 2025 has 28 days): '2025-02-29T18:00:00Z'"#
        )
        #expect(all["twice"]?["error"] as? String == #"line 1 of the output: duplicate key "title" in item"#)
        #expect(
            all["nul"]?["error"] as? String
                == #"line 3 of the output: the cursor holds a NUL character (\u0000) at byte 5, which MONITOR_CURSOR cannot carry"#
        )
        // Each failed alone, and what the first run stored stays.
        #expect(all.mapValues { $0["status"] as? String } == ["date": "failed", "twice": "failed", "nul": "failed"])
        #expect(all.mapValues { $0["items"] as? Int } == ["date": 1, "twice": 1, "nul": 1])
    }
}
