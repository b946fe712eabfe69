import ExecSource
import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import MonitorCore

/// A Python program reporting three magnitude bands and five quakes, one of them in two bands.
private let bands = """
    import json, sys
    def say(message):
        print(json.dumps(message), flush=True)
    say({"group": {"id": "m6", "title": "Magnitude 6+"}})
    say({"group": {"id": "m5", "title": "Magnitude 5+"}})
    say({"group": {"id": "m4", "title": "Magnitude 4.5+"}})
    say({"progress": {"done": 0, "total": 2}})
    quakes = [("q1", ["m6", "m5"]), ("q2", ["m5"]), ("q3", ["m4"]), ("q4", ["m4"]), ("q5", ["m4"])]
    for number, (quake, groups) in enumerate(quakes):
        say({"item": {"id": quake, "title": "Quake " + quake, "date": "2025-09-2%dT18:00:00Z" % (number + 1),
                      "groups": groups, "url": "https://quakes.test/" + quake, "details": {"mag": "5.%d" % number}}})
    say({"progress": {"done": 2, "total": 2}})
    print("a note on standard error", file=sys.stderr)
    """

/// A shell program that records what it was given (environment and standard input) in `seen-N`, N counting its
/// runs, and then answers with `ANSWER-N` when that file exists (else nothing).
private let recorder = """
    n=$(( $(cat runs 2>/dev/null || echo 0) + 1 )); echo $n > runs
    { echo "protocol=$MONITOR_PROTOCOL feed=$MONITOR_FEED cursor=${MONITOR_CURSOR-unset}"; cat; } > seen-$n
    if [ -f answer-$n ]; then cat answer-$n; fi
    exit $(cat status-$n 2>/dev/null || echo 0)
    """

private func item(_ id: String, groups: String = #"["a"]"#) -> String {
    #"{"item":{"id":"\#(id)","title":"Item \#(id)","date":"2025-09-21T18:00:00Z","groups":\#(groups)}}"#
}

@Suite("exec: a real program reporting groups, items, progress and a cursor")
struct ExecPollTests {
    @Test("gap lines: the poll stays ok, with the program's words cleaned, each cut at 500 characters, joined")
    func gap() async throws {
        let scripts = ExecScripts()
        let harness = PollHarness()
        let program = """
            import json
            print(json.dumps({"item": {"id": "a", "title": "A", "date": "2025-09-21T18:00:00Z"}}))
            print(json.dumps({"gap": {"message": "the log rotated\\u001b[31m at 10:00"}}))
            print(json.dumps({"gap": {"message": "x" * 600}}))
            """
        let report = await harness.poll(
            ExecSource.self, feed: try scripts.python(program),
            transport: StubTransport { _ in throw CancellationError() }
        ).report
        #expect((report.status, report.error, report.items) == (.ok, nil, 1))
        let words = "the log rotated at 10:00; " + String(repeating: "x", count: 499) + "…"
        #expect(report.gap == PollGap(since: nil, until: nil, message: words))
        #expect(SummaryText.headline(report).hasSuffix("\n  older events may be missing: \(words)\n"))
        #expect(try await harness.store.record(feed: "test")?.status == "ok")
    }

    @Test("exact counts per group from a program; an item in two groups counts in both and once in the total")
    func countsPerGroup() async throws {
        let scripts = ExecScripts()
        let harness = PollHarness()
        let (report, views) = await harness.poll(
            ExecSource.self, feed: try scripts.python(bands),
            transport: StubTransport { _ in throw CancellationError() })
        #expect(report.status == .ok)
        #expect(report.error == nil)
        #expect(report.groups.map(\.id) == ["m6", "m5", "m4"])
        #expect(report.groups.map(\.title) == ["Magnitude 6+", "Magnitude 5+", "Magnitude 4.5+"])
        #expect(report.counts == ["m6": 1, "m5": 2, "m4": 3])
        #expect(report.items == 5)
        #expect(report.new == 5)
        #expect(report.requests == 0)
        #expect(views.last.map { [$0.done, $0.total] } == [2, 2])
        let stored = try await harness.store.items(feed: "test")
        #expect(stored.map(\.id) == ["q5", "q4", "q3", "q2", "q1"])
        #expect(stored.last?.url == "https://quakes.test/q1")
        #expect(stored.last?.details == [Detail("mag", "5.0")])
        #expect(stored.last?.groups == ["m6", "m5"])
    }

    @Test("the cursor a run sends is handed back to the next, in MONITOR_CURSOR and on standard input")
    func cursorHandedBack() async throws {
        let scripts = ExecScripts()
        try scripts.write("answer-1", item("a1") + "\n" + #"{"cursor":"etag=\"v1\" since=2025"}"# + "\n")
        try scripts.write("answer-2", item("a2") + "\n" + #"{"cursor":"v2"}"# + "\n")
        let harness = PollHarness()
        let feed = scripts.feed(["sh", "-c", "cd \(scripts.directory.url.path) && \(recorder)"], name: "rec")
        let transport = StubTransport { _ in throw CancellationError() }

        let first = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(first.status == .ok)
        #expect(
            try scripts.directory.read("seen-1")
                == "protocol=1 feed=rec cursor=unset\n" + #"{"protocol":1,"feed":"rec","cursor":null}"# + "\n")

        let second = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(second.status == .ok)
        #expect(
            try scripts.directory.read("seen-2")
                == #"protocol=1 feed=rec cursor=etag="v1" since=2025"# + "\n"
                + #"{"protocol":1,"feed":"rec","cursor":"etag=\"v1\" since=2025"}"# + "\n")

        _ = await harness.poll(ExecSource.self, feed: feed, transport: transport)
        #expect(
            try scripts.directory.read("seen-3")
                == "protocol=1 feed=rec cursor=v2\n" + #"{"protocol":1,"feed":"rec","cursor":"v2"}"# + "\n")
    }

    @Test("a failed run stores neither its items nor its cursor: the next run gets the last good cursor")
    func failedRunKeepsCursor() async throws {
        let scripts = ExecScripts()
        try scripts.write("answer-1", item("a1") + "\n" + #"{"cursor":"good"}"# + "\n")
        try scripts.write("answer-2", item("a2") + "\n" + #"{"cursor":"bad"}"# + "\n")
        try scripts.write("status-2", "4")
        let harness = PollHarness()
        let feed = scripts.feed(["sh", "-c", "cd \(scripts.directory.url.path) && \(recorder)"], name: "rec")
        let transport = StubTransport { _ in throw CancellationError() }

        #expect(await harness.poll(ExecSource.self, feed: feed, transport: transport).report.status == .ok)
        let failed = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(failed.status == .failed)
        #expect(failed.error == "'sh' exited with status 4")
        #expect(try await harness.store.items(feed: "rec").map(\.id) == ["a1"])
        _ = await harness.poll(ExecSource.self, feed: feed, transport: transport)
        #expect(try scripts.directory.read("seen-3").hasPrefix("protocol=1 feed=rec cursor=good\n"))
    }

    @Test("a run that exits 0 having reported only failures fails the poll and does not store its cursor")
    func onlyFailuresKeepCursor() async throws {
        let scripts = ExecScripts()
        try scripts.write("answer-1", item("a1") + "\n" + #"{"cursor":"good"}"# + "\n")
        try scripts.write(
            "answer-2", #"{"failure":{"what":"feed","message":"HTTP 503"}}"# + "\n" + #"{"cursor":"bad"}"# + "\n")
        let harness = PollHarness()
        let feed = scripts.feed(["sh", "-c", "cd \(scripts.directory.url.path) && \(recorder)"], name: "rec")
        let transport = StubTransport { _ in throw CancellationError() }

        #expect(await harness.poll(ExecSource.self, feed: feed, transport: transport).report.status == .ok)
        let failed = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(failed.status == .failed)
        #expect(failed.error == "feed: HTTP 503")
        #expect(try await harness.store.items(feed: "rec").map(\.id) == ["a1"])
        _ = await harness.poll(ExecSource.self, feed: feed, transport: transport)
        #expect(try scripts.directory.read("seen-3").hasPrefix("protocol=1 feed=rec cursor=good\n"))
    }

    @Test("a cursor with a NUL character fails the run naming its line; the next run gets the last good cursor whole")
    func nulCursorRefused() async throws {
        let scripts = ExecScripts()
        try scripts.write("answer-1", item("a1") + "\n" + #"{"cursor":"v1"}"# + "\n")
        try scripts.write("answer-2", item("a2") + "\n" + #"{"cursor":"page=2\u0000rest"}"# + "\n")
        let harness = PollHarness()
        let feed = scripts.feed(["sh", "-c", "cd \(scripts.directory.url.path) && \(recorder)"], name: "rec")
        let transport = StubTransport { _ in throw CancellationError() }

        #expect(await harness.poll(ExecSource.self, feed: feed, transport: transport).report.status == .ok)
        let refused = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(refused.status == .failed)
        #expect(
            refused.error
                == #"line 2 of the output: the cursor holds a NUL character (\u0000) at byte 7, which MONITOR_CURSOR cannot carry"#
        )
        #expect(try await harness.store.items(feed: "rec").map(\.id) == ["a1"])
        _ = await harness.poll(ExecSource.self, feed: feed, transport: transport)
        #expect(
            try scripts.directory.read("seen-3")
                == "protocol=1 feed=rec cursor=v1\n" + #"{"protocol":1,"feed":"rec","cursor":"v1"}"# + "\n")
    }

    @Test("an item in 100,000 groups is counted and stored in each, once", .timeLimit(.minutes(5)))
    func hundredThousandGroups() async throws {
        let scripts = ExecScripts()
        let harness = PollHarness()
        let program = """
            import json
            groups = ["g%06d" % number for number in range(100000)]
            print(json.dumps({"item": {"id": "big", "title": "Big", "date": "2025-09-21T18:00:00Z",
                                       "groups": groups + groups[:10]}}))
            """
        let report = await harness.poll(
            ExecSource.self, feed: try scripts.python(program, options: ["retention": .string("replace")]),
            transport: StubTransport { _ in throw CancellationError() }
        ).report
        #expect(report.status == .ok)
        #expect(report.items == 1)
        #expect(report.groups.count == 100_000)
        #expect(report.groups.allSatisfy { $0.count == 1 && $0.new == 1 })
        #expect(report.groups.first?.id == "g000000")
        #expect(report.groups.last?.id == "g099999")
        let stored = try await harness.store.items(feed: "test")
        #expect(stored.map { $0.groups.count } == [100_010])
        #expect(try await harness.store.items(feed: "test", group: "g099999").map(\.id) == ["big"])
        #expect(try await harness.store.items(feed: "test", group: "g000009").map(\.id) == ["big"])
    }

    @Test("{\"unchanged\":true} keeps the stored items, with retention replace too")
    func unchangedKeepsItems() async throws {
        let scripts = ExecScripts()
        try scripts.write(
            "answer-1",
            [#"{"group":{"id":"a","title":"A"}}"#, item("x1"), item("x2"), item("x3", groups: #"["a","b"]"#)]
                .joined(separator: "\n") + "\n" + #"{"cursor":"c1"}"#)
        try scripts.write("answer-2", #"{"unchanged":true}"# + "\n")
        let harness = PollHarness()
        let feed = scripts.feed(
            ["sh", "-c", "cd \(scripts.directory.url.path) && \(recorder)"], name: "rec",
            options: ["retention": .string("replace")])
        let transport = StubTransport { _ in throw CancellationError() }

        let first = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(first.status == .ok)
        #expect(first.counts == ["a": 3, "b": 1])
        let second = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(second.status == .notModified)
        #expect(second.error == nil)
        #expect(second.items == 3)
        #expect(second.new == 0)
        #expect(second.counts == ["a": 3, "b": 1])
        #expect(second.groups.map(\.title) == ["A", "b"])
        #expect(try await harness.store.items(feed: "rec").map(\.id).sorted() == ["x1", "x2", "x3"])
        #expect(try scripts.directory.read("seen-2").hasPrefix("protocol=1 feed=rec cursor=c1\n"))

        // Without `unchanged`, a replace feed drops what the run no longer reports.
        try scripts.write("answer-3", item("x1") + "\n")
        let third = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(third.items == 1)
        #expect(try await harness.store.items(feed: "rec").map(\.id) == ["x1"])
    }

    @Test("keep_newest keeps `keep` items across runs; a failure line makes the run partial")
    func keepNewestAndPartial() async throws {
        let scripts = ExecScripts()
        try scripts.write("answer-1", (1...4).map { item("k\($0)") }.joined(separator: "\n"))
        try scripts.write(
            "answer-2",
            item("k5") + "\n" + #"{"failure":{"what":"page 2","message":"HTTP 503","group":"a"}}"# + "\n")
        let harness = PollHarness()
        let feed = scripts.feed(
            ["sh", "-c", "cd \(scripts.directory.url.path) && \(recorder)"], name: "rec", options: ["keep": .integer(3)]
        )
        let transport = StubTransport { _ in throw CancellationError() }

        let first = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(first.items == 3)
        let second = await harness.poll(ExecSource.self, feed: feed, transport: transport).report
        #expect(second.status == .partial)
        #expect(second.error == "page 2: HTTP 503")
        #expect(second.new == 1)
        #expect(try await harness.store.items(feed: "rec").count == 3)
    }
}

extension PollReport {
    /// The count of each group.
    var counts: [String: Int] { Dictionary(uniqueKeysWithValues: groups.map { ($0.id, $0.count) }) }
}
