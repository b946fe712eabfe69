import Foundation
import TestSupport
import Testing

/// `monitor run --once` in text prints its summaries in the order of the feeds file, whatever order the feeds finish
/// in: the built binary on a real terminal (tmux), where a feed that finished waits below the progress lines.
@Suite(
    "run --once prints its text summaries in the feeds file's order", .timeLimit(.minutes(5)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (scripts/setup installs it): skipped"))
struct OnceOrderTests {
    @Test("the second feed finishes first: it is shown done until the first is printed, then printed after it")
    func fileOrder() async throws {
        let directory = try TemporaryDirectory()
        // The first feed's program waits for a line on this FIFO, which the test writes once the second is done.
        let release = directory.url.appendingPathComponent("release").path
        #expect(mkfifo(release, 0o600) == 0)
        try directory.write("first.jsonl", #"{"item":{"id":"a","title":"First item","date":"2024-06-01T12:00:00Z"}}"#)
        try directory.write("second.jsonl", #"{"item":{"id":"b","title":"Second item","date":"2024-06-01T12:00:00Z"}}"#)
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - {name: first, type: exec, command: [sh, -c, "read line < release; cat first.jsonl"]}
              - {name: second, type: exec, command: [cat, second.jsonl]}
            """)
        let tmux = try await TmuxSession(in: directory.url, width: 200, height: 24)
        defer {
            tmux.kill()
            withExtendedLifetime(directory) {}
        }
        try await tmux.send(
            // Without NO_COLOR (the tests set it): the progress lines are what a terminal shows.
            "env -u NO_COLOR '\(MonitorProcess.executable.path)' run --once --config feeds.yaml --state state",
            literal: true)
        try await tmux.send("Enter")
        let waiting = try await tmux.waitForScreen("the second feed done") {
            $0.contains("  second  ok  1 item, 1 new") || $0.contains("second (exec)") || Self.output($0).last == "$"
        }
        // Not back at the prompt (the feeds file refused): the first feed's program waits for the release.
        try #require(Self.output(waiting).last != "$", "\(waiting)")
        #expect(
            Self.output(waiting) == ["  first   polling…  0 requests  0 items, 0 new", "  second  ok  1 item, 1 new"])
        let (status, _, _) = try await ChildProcess.run("/bin/sh", ["-c", "echo go > '\(release)'"])
        #expect(status == 0)
        let done = try await tmux.waitForScreen("both summaries") {
            $0.contains("first (exec)") && Self.output($0).last == "$"
        }
        #expect(
            Self.output(done).joined(separator: "\n").replacing(/\d+ms|\d+\.\ds/, with: "<duration>") == """
                first (exec): ok — 1 item, 1 new, 0 requests, <duration>
                  latest (UTC):
                  * 2024-06-01    First item

                second (exec): ok — 1 item, 1 new, 0 requests, <duration>
                  latest (UTC):
                  * 2024-06-01    Second item

                $
                """)
    }

    /// The lines after the command line, without the empty ones at the end.
    private static func output(_ screen: String) -> [String] {
        var lines = Array(screen.components(separatedBy: "\n").drop { !$0.hasSuffix("--state state") }.dropFirst())
        while lines.last == "" { lines.removeLast() }
        return lines
    }
}
