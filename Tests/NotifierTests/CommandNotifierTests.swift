import CommandNotifier
import Foundation
import TestSupport
import Testing

@testable import MonitorCore

#if canImport(Glibc)
    import Glibc
#endif

/// A command notifier running `command` in `directory`'s files, its timeout waited for on `clock` (else the real one).
/// The real one's default is long: the whole suite runs at once on a few cores, and a program that should end is
/// waited for (the suite's time limit ends one that never does).
private func command(_ command: [String], timeout: Duration = .seconds(600), clock: ManualClock? = nil)
    -> CommandNotifier
{
    var context = Fixtures.context(
        StubTransport { _ in HTTPResponse(status: 500) }, environment: ["SECRET_TOKEN": "x"])
    if let clock { context.sleep = { try await clock.sleep(for: $0) } }
    return CommandNotifier(
        name: "script", options: Fixtures.options(["command": .list(command), "timeout": .duration(timeout)]),
        context: context)
}

@Suite("The command notifier with real processes", .timeLimit(.minutes(5)))
struct CommandNotifierTests {
    @Test("the program gets the json body on stdin and the notification's variables, nothing else of monitor's")
    func stdinAndEnvironment() async throws {
        let directory = try TemporaryDirectory()
        let dir = directory.url.path
        let notifier = command([
            "sh", "-c",
            "cat > \(dir)/stdin; env | grep -E '^(MONITOR_|SECRET_)' | sort > \(dir)/env",
        ])
        #expect(notifier.target == "'sh'")
        let notification = Fixtures.notification()
        #expect(try await notifier.deliver(notification) == DeliveryReceipt("exit 0"))
        #expect(try Data(contentsOf: directory.url.appendingPathComponent("stdin")) == Data(notification.jsonBody()))
        #expect(
            try directory.read("env") == """
                MONITOR_EVENT=new
                MONITOR_FEED=rx
                MONITOR_NOTIFICATION_ID=3f1c2a9e-0000-4000-8000-000000000001
                MONITOR_NOTIFIER=chat

                """)
    }

    @Test("a digest: the program gets the digest's json body on stdin, MONITOR_EVENT=digest and an empty MONITOR_FEED")
    func digestOnStdin() async throws {
        let directory = try TemporaryDirectory()
        let dir = directory.url.path
        let notifier = command(["sh", "-c", "cat > \(dir)/stdin; env | grep -E '^MONITOR_' | sort > \(dir)/env"])
        let digest = FeedNotification.digest(
            of: [Fixtures.notification("n-1"), Fixtures.notification("n-2")], notifier: "chat",
            at: Fixtures.at.addingTimeInterval(3600))
        #expect(try await notifier.deliver(digest) == DeliveryReceipt("exit 0"))
        let stdin = try Data(contentsOf: directory.url.appendingPathComponent("stdin"))
        #expect(
            String(decoding: stdin, as: UTF8.self)
                == #"{"schema":1,"id":"digest-n-1-2","notifier":"chat","feed":null,"type":null,"event":"digest","#
                + #""at":"2027-01-15T09:00:00Z","total":2,"items":[],"error":null,"notifications":["#
                + String(decoding: Fixtures.notification("n-1").jsonBody(), as: UTF8.self) + ","
                + String(decoding: Fixtures.notification("n-2").jsonBody(), as: UTF8.self) + "]}")
        #expect(
            try directory.read("env") == """
                MONITOR_EVENT=digest
                MONITOR_FEED=
                MONITOR_NOTIFICATION_ID=digest-n-1-2
                MONITOR_NOTIFIER=chat

                """)
    }

    @Test("a gap: the program gets its json body, with the span, and MONITOR_EVENT=gap")
    func gap() async throws {
        let directory = try TemporaryDirectory()
        let dir = directory.url.path
        let notifier = command(["sh", "-c", "cat > \(dir)/stdin; echo $MONITOR_EVENT > \(dir)/event"])
        #expect(try await notifier.deliver(NotificationFixtures.gap) == DeliveryReceipt("exit 0"))
        #expect(
            try directory.read("stdin")
                == #"{"schema":1,"id":"n-0006","notifier":"chat","feed":"rxswift","type":"github","event":"gap","#
                + #""at":"2026-11-22T04:00:00Z","total":0,"items":[],"#
                + #""error":"older events may be missing: 2024-06-01T12:00:00Z to 2024-06-02T07:01:00Z (19h1m)","#
                + #""gap":{"since":"2024-06-01T12:00:00Z","until":"2024-06-02T07:01:00Z"}}"#)
        #expect(try directory.read("event") == "gap\n")
    }

    @Test("exit 1 is retried with what the program said; once it exits 0 the outbox is empty")
    func exitOneRetried() async throws {
        let directory = try TemporaryDirectory()
        let dir = directory.url.path
        let notifier = command([
            "sh", "-c",
            "cat >> \(dir)/got; echo >> \(dir)/got; test -f \(dir)/ready || { echo 'not ready' >&2; exit 1; }",
        ])
        let store = try await Fixtures.store(holding: [Fixtures.notification(notifier: "script")])
        let delivery = NotificationDelivery(store: store, notifiers: ["script": notifier], logger: Fixtures.logger)
        let first = await delivery.deliverDue(all: true)
        #expect(first.count == 1)
        guard case .willRetry(let message, _)? = first.first?.result else {
            Issue.record("not retried: \(first)")
            return
        }
        #expect(message == "'sh' exited with status 1: not ready")
        #expect(try await store.outbox().map(\.attempts) == [1])
        try directory.write("ready", "")
        let second = await delivery.deliverDue(all: true)
        #expect(second.map(\.result) == [.delivered("exit 0")])
        #expect(try await store.outbox(refused: true).isEmpty)
        let body = String(decoding: Fixtures.notification(notifier: "script").jsonBody(), as: UTF8.self)
        #expect(try directory.read("got") == body + "\n" + body + "\n")
    }

    @Test(
        "a program printing its env secrets on stderr and exiting 1: the error, the state show none of them",
        arguments: [
            ("echo \"auth failed for $TOKEN at $PLACE\" >&2", "auth failed for … at …"),
            // The token straddles the start of the bytes kept (the 300 shown and 24 more, its longest form): its end
            // is not shown either.
            (
                "printf 'abcdefghij%s' \"$TOKEN\" >&2; printf '=%.0s' $(seq 1 315) >&2",
                String(repeating: "=", count: 300)
            ),
            ("printf '%s' \"$TOKEN\" >&2; printf '=%.0s' $(seq 1 295) >&2", "…" + String(repeating: "=", count: 295)),
        ])
    func stderrSecretsHidden(script: String, said: String) async throws {
        let token = "t0k3n-s3cr3t-value"
        let notifier = CommandNotifier(
            name: "script",
            options: Fixtures.options([
                "command": .list(["sh", "-c", script + "; exit 1"]),
                "env": .mapping(["TOKEN": token, "PLACE": "x1", "EMPTY": ""]),
                // The real timeout, long: the whole suite at once on two cores can keep `sh` from ending for 30 s.
                "timeout": .duration(.seconds(600)),
            ]),
            context: Fixtures.context(StubTransport { _ in HTTPResponse(status: 500) }))
        let store = try await Fixtures.store(holding: [Fixtures.notification(notifier: "script")])
        let delivery = NotificationDelivery(store: store, notifiers: ["script": notifier], logger: Fixtures.logger)
        let attempts = await delivery.deliverDue(all: true)
        #expect(attempts.count == 1)
        guard case .willRetry(let message, _)? = attempts.first?.result else {
            Issue.record("not retried: \(attempts)")
            return
        }
        #expect(message == "'sh' exited with status 1: \(said)")
        let lastError = try #require(try await store.notifierStatuses().first?.lastError)
        #expect(lastError == message)
        let pieces = (0...(token.count - 4)).map { String(token.dropFirst($0).prefix(4)) } + ["x1"]
        #expect(pieces.filter { message.contains($0) } == [])
    }

    /// The clock passes the timeout once the shell has started its child (written to a named pipe).
    @Test("a program past its timeout is ended with its whole process group, and retried")
    func timeout() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.url.appendingPathComponent("child").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let clock = ManualClock()
        let notifier = command(
            ["sh", "-c", "sleep 1000 & echo $! > \(fifo); wait"], timeout: .seconds(5), clock: clock)
        let delivery = Task { try await notifier.deliver(Fixtures.notification()) }
        let child = try #require(Int32(try await readFIFO(fifo).trimmingCharacters(in: .whitespacesAndNewlines)))
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await #expect(throws: DeliveryError.retry("'sh' was still running after the timeout (5s): ended")) {
            try await delivery.value
        }
        // Killed and reaped, or a zombie of a parent that is gone.
        let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)
        let state = stat.flatMap { text in text.lastIndex(of: ")").map { text[text.index($0, offsetBy: 2)] } }
        #expect(stat == nil || state == "Z", "the child \(child) is left: \(stat ?? "")")
    }

    @Test(
        "a program that cannot start keeps the notification for a retry, saying why, as a receiver that is down",
        arguments: UnstartableProgram.cases)
    func cannotStart(name: String) async throws {
        let program = try UnstartableProgram(name)
        let notifier = CommandNotifier(
            name: "script",
            options: Fixtures.options(["command": .list([program.program])]),
            // `monitor`'s own PATH: one given in `env` is a secret, hidden in the message.
            context: Fixtures.context(
                StubTransport { _ in HTTPResponse(status: 500) },
                environment: program.searchPath.map { ["PATH": $0] } ?? [:]))
        let store = try await Fixtures.store(
            holding: [Fixtures.notification(notifier: "script")])
        let delivery = NotificationDelivery(store: store, notifiers: ["script": notifier], logger: Fixtures.logger)
        let attempts = await delivery.deliverDue(all: true)
        guard case .willRetry(let message, _)? = attempts.first?.result, attempts.count == 1 else {
            Issue.record("not retried: \(attempts)")
            return
        }
        #expect(message == program.message)
        #expect(try await store.outbox().map(\.attempts) == [1])
        #expect(try await store.outbox(refused: true).map(\.refusedAt) == [nil])
        #expect(try await store.notifierStatuses().first?.lastError == program.message)
    }
}
