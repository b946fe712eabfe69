import ExecSource
import Foundation
import Logging
import MonitorOptions
import TestSupport
import Testing

@testable import MonitorCore

/// A transport no exec feed uses.
private let noHTTP = StubTransport { _ in throw CancellationError() }

/// One good item line.
private let good = #"{"item":{"id":"kept","title":"Kept","date":"2025-09-21T18:00:00Z","groups":["a"]}}"#

@Suite(
    "exec: broken and hostile programs fail their own poll, store nothing and leave no process", .timeLimit(.minutes(5))
)
struct ExecFailureTests {
    @Test("a crashing program fails the poll with the last lines of its standard error; stored items stay")
    func crash() async throws {
        let scripts = ExecScripts()
        let harness = PollHarness()
        let ok = scripts.feed(["sh", "-c", "echo '\(good)'"], name: "crashy")
        #expect(await harness.poll(ExecSource.self, feed: ok, transport: noHTTP).report.status == .ok)
        let program = """
            import sys
            print('{"item":{"id":"lost","title":"Lost","date":"2025-09-21T18:00:00Z"}}', flush=True)
            for number in range(1, 8):
                print("noise %d" % number, file=sys.stderr)
            print("\\x1b[31mValueError: the \\x07feed is down", file=sys.stderr)
            sys.exit(3)
            """
        let crash = try scripts.python(program, name: "crashy")
        let report = await harness.poll(ExecSource.self, feed: crash, transport: noHTTP).report
        #expect(report.status == .failed)
        #expect(
            report.error
                == "'python3' exited with status 3: noise 4 | noise 5 | noise 6 | noise 7 | ValueError: the feed is down"
        )
        #expect(report.items == 1)
        #expect(try await harness.store.items(feed: "crashy").map(\.id) == ["kept"])
        let record = try await harness.store.records().first
        #expect(record?.failures == 1)
    }

    @Test("a line that is not a message fails the poll with its line number, counting blank lines")
    func garbage() async throws {
        let scripts = ExecScripts()
        let harness = PollHarness()
        try scripts.write("out", good + "\n\n\u{1B}]0;pwned\u{07}Traceback: oops\n" + good + "\n")
        let feed = scripts.feed(["cat", scripts.path("out")])
        let report = await harness.poll(ExecSource.self, feed: feed, transport: noHTTP).report
        #expect(report.status == .failed)
        #expect(report.error == "line 3 of the output: not JSON (unexpected '\\u{1b}' at byte 1): 'Traceback: oops'")
        #expect(try await harness.store.items(feed: "test").isEmpty)
    }

    @Test("a program that cannot be started fails the poll saying why", arguments: UnstartableProgram.cases)
    func cannotStart(name: String) async throws {
        let program = try UnstartableProgram(name)
        let harness = PollHarness()
        let env = program.searchPath.map { ["env": OptionValue.mapping(["PATH": $0])] } ?? [:]
        let feed = ExecScripts().feed([program.program, "--flag"], options: env)
        let report = await harness.poll(ExecSource.self, feed: feed, transport: noHTTP).report
        #expect(report.status == .failed)
        // A PATH given in `env` is one of its values, each a secret: hidden in the message.
        let hidden = program.searchPath.map { program.message.replacingOccurrences(of: $0, with: "…") }
        #expect(report.error == hidden ?? program.message)
    }

    @Test(
        "a program printing its env values on stderr: the error and the state show none of them",
        arguments: [
            ("echo \"auth failed for $TOKEN at $PLACE\" >&2", "auth failed for … at …"),
            // A prefix, the base64 and the value cut by control characters.
            (
                "printf 'start %.10s base64 %s split %s\\033[0m%s\\n' \"$TOKEN\" \"$(printf %s \"$TOKEN\" | base64)\" "
                    + "\"$(printf %s \"$TOKEN\" | cut -c1-6)\" \"$(printf %s \"$TOKEN\" | cut -c7-)\" >&2",
                "start … base64 … split …"
            ),
            // The token's end falls in the last 4,096 bytes: the tail keeps the longest secret's length more, to hide
            // it whole; the error is then cut to its first 500 characters.
            (
                "printf 'abcdefghij%s' \"$TOKEN\" >&2; printf '=%.0s' $(seq 1 4090) >&2",
                "exited with status 1: abcdefghij…" + String(repeating: "=", count: 461) + "…"
            ),
        ])
    func stderrSecretsHidden(script: String, said: String) async throws {
        let harness = PollHarness()
        let token = "t0k3n-s3cr3t-value"
        let feed = ExecScripts().feed(
            ["sh", "-c", script + "; exit 1"],
            options: ["env": .mapping(["TOKEN": token, "PLACE": "x1"])])
        let report = await harness.poll(ExecSource.self, feed: feed, transport: noHTTP).report
        #expect(report.status == .failed)
        let error = try #require(report.error)
        #expect(error.hasSuffix(said), "\(error)")
        #expect(try await harness.store.records().first?.lastError == error)
        let pieces = (0...(token.count - 4)).map { String(token.dropFirst($0).prefix(4)) } + ["x1"]
        #expect(pieces.filter { error.contains($0) } == [])
    }

    @Test(
        "a program still running at its timeout is ended with its whole process group, and the poll fails",
        arguments: [
            ("", "feed timeout"),
            ("trap '' TERM; ", "deaf to SIGTERM"),
        ])
    func hang(prefix: String, label: String) async throws {
        let scripts = ExecScripts()
        let harness = PollHarness()
        let clock = ManualClock()
        // The shell starts a child in its group, writes both pids to the named pipe, says it started and waits
        // forever.
        let script = "\(prefix)sleep 1000 & echo \"$$ $!\" > \(try scripts.fifo("pids")); echo '\(good)'; wait"
        let feed = scripts.feed(["sh", "-c", script], options: ["timeout": .duration(.seconds(1))])
        let poll = Task { await harness.poll(ExecSource.self, feed: feed, transport: noHTTP, clock: clock) }
        let pids = try await readFIFO(scripts.path("pids")).split(whereSeparator: \.isWhitespace).compactMap {
            Int32($0)
        }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        let report = await poll.value.report
        #expect(report.status == .failed, "\(label)")
        #expect(report.error == "'sh' was still running after the timeout (1s): ended", "\(label)")
        #expect(try await harness.store.items(feed: "test").isEmpty)
        #expect(pids.count == 2)
        #expect(isReaped(pids[0]), "the program itself was reaped (\(label))")
        #expect(hasEnded(pids[1]), "its child ended too (\(label))")
    }

    @Test("a program that exits 0 leaving a child behind: the poll is ok and the child is killed")
    func leftoverChild() async throws {
        let scripts = ExecScripts()
        let harness = PollHarness()
        let script = "sleep 1000 & echo $! > \(scripts.path("pids")); echo '\(good)'"
        let report = await harness.poll(ExecSource.self, feed: scripts.feed(["sh", "-c", script]), transport: noHTTP)
            .report
        #expect(report.status == .ok)
        #expect(report.items == 1)
        #expect(hasEnded(try scripts.numbers("pids")[0]))
    }

    @Test("without a timeout of its own a run may last settings.timeout × 2")
    func defaultTimeout() async throws {
        let scripts = ExecScripts()
        var harness = PollHarness()
        harness.settings.timeout = .seconds(1)
        let clock = ManualClock()
        let feed = scripts.feed(["sleep", "1000"])
        let poll = Task { await harness.poll(ExecSource.self, feed: feed, transport: noHTTP, clock: clock) }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        let report = await poll.value.report
        #expect(report.error == "'sleep' was still running after the timeout (2s): ended")
    }

    @Test("a program flooding its output fails at settings.max_body and is ended")
    func flood() async throws {
        let scripts = ExecScripts()
        var harness = PollHarness()
        harness.settings.maxBody = 64 << 10
        let script = "echo $$ > \(scripts.path("pids")); yes '{\"progress\":{\"done\":1}}'"
        let feed = scripts.feed(["sh", "-c", script])
        let report = await harness.poll(ExecSource.self, feed: feed, transport: noHTTP).report
        #expect(report.status == .failed)
        #expect(report.error == "the program wrote more than settings.max_body (64KiB) on its output")
        #expect(isReaped(try scripts.numbers("pids")[0]))
    }

    @Test("cancelling the poll (monitor stopping) ends the program and everything it started")
    func cancelled() async throws {
        let scripts = ExecScripts()
        let harness = PollHarness()
        let script =
            "sleep 1000 & echo \"$$ $!\" > \(scripts.path("pids")); echo '{\"progress\":{\"done\":1,\"total\":9}}'; wait"
        let feed = scripts.feed(["sh", "-c", script])
        let runner = PollRunner(
            store: harness.store, transport: noHTTP, settings: harness.settings, logger: Logger(label: "test"))
        let (events, continuation) = AsyncStream<PollEvent>.makeStream()
        let poll = Task { await runner.poll(feed, source: ExecSource(options: feed.options), events: continuation) }
        // The program has written its pids once its progress shows.
        for await event in events {
            if case .view(let view) = event, view.total == 9 { break }
        }
        poll.cancel()
        let report = await poll.value
        #expect(report.status == .failed)
        #expect(report.error == "cancelled")
        let pids = try scripts.numbers("pids")
        #expect(pids.count == 2)
        #expect(hasEnded(pids[0]))
        #expect(hasEnded(pids[1]))
    }
}
