import Foundation
import Synchronization
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("What systemd's environment asks of `monitor run`: the notify socket, and the watchdog's beat")
struct SystemdNotifyEnvironmentTests {
    @Test(
        "NOTIFY_SOCKET is a path or an @name; WATCHDOG_USEC beats at half when WATCHDOG_PID is unset or ours",
        arguments: [
            (["NOTIFY_SOCKET": "/run/notify"], "/run/notify", nil),
            (["NOTIFY_SOCKET": "@abstract"], "@abstract", nil),
            (["NOTIFY_SOCKET": "/run/notify", "WATCHDOG_USEC": "30000000"], "/run/notify", Duration.seconds(15)),
            (["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"], "/n", .seconds(15)),
            (["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "43"], "/n", nil),
            (["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": "0"], "/n", nil),
            (["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": "soon"], "/n", nil),
            // Bounded: a beat every 50 ms at most, every hour at least.
            (["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": "1"], "/n", .milliseconds(50)),
            (["NOTIFY_SOCKET": "/n", "WATCHDOG_USEC": "18446744073709551615"], "/n", .seconds(3600)),
        ] as [([String: String], String, Duration?)])
    func environment(_ environment: [String: String], socket: String, watchdog: Duration?) throws {
        let notify = try #require(SystemdNotify(environment: environment, pid: 42))
        #expect(notify.socket == socket)
        #expect(notify.watchdogInterval == watchdog)
    }

    @Test("no NOTIFY_SOCKET, or one that is neither a path nor an @name (said): nothing is sent")
    func none() {
        let said = Mutex<[String]>([])
        let warn: @Sendable (String) -> Void = { line in said.withLock { $0.append(line) } }
        #expect(SystemdNotify(environment: [:], warn: warn) == nil)
        #expect(SystemdNotify(environment: ["NOTIFY_SOCKET": ""], warn: warn) == nil)
        #expect(said.withLock { $0 } == [])
        #expect(SystemdNotify(environment: ["NOTIFY_SOCKET": "relative", "WATCHDOG_USEC": "1000"], warn: warn) == nil)
        #expect(
            said.withLock { $0 } == [
                "monitor: warning: NOTIFY_SOCKET=relative cannot be used (it is neither an absolute path nor an @name): "
                    + "systemd is told nothing\n"
            ])
    }
}

@Suite("STATUS=: the one line of how the feeds fare that systemd shows")
struct StatusLineTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func finished(_ feed: String, _ status: PollReport.Status, new: Int = 0, heldFor: TimeInterval? = nil)
        -> PollEvent
    {
        .finished(
            PollReport(
                feed: feed, type: "exec", status: status, new: new, started: now,
                notBefore: heldFor.map { now.addingTimeInterval($0) }))
    }

    @Test("scheduled feeds are ok until they fail or their server holds them back; a stopped feed is no longer counted")
    func lines() {
        let health = RunHealth()
        var pending = 0
        var lines: [String] = []
        var recount: [Bool] = []
        let events: [PollEvent] = [
            .scheduled(feed: "a", next: now, skipped: 0), .scheduled(feed: "b", next: now, skipped: 0),
            .scheduled(feed: "c", next: now, skipped: 0), finished("a", .failed), finished("b", .ok, heldFor: 60),
            finished("c", .ok, new: 2), finished("a", .partial, heldFor: 60), finished("b", .notModified),
            .stopped(feed: "a"),
            .state(unreachable: .unreachable("could not connect to postgres://monitor@db/monitor")),
            .state(unreachable: nil),
        ]
        for event in events {
            health.apply(event, now: now)
            recount.append(RunHealth.outboxMayChange(with: event))
            if recount.last == true { pending = 2 }
            lines.append(health.statusLine(pending: pending, now: now))
        }
        #expect(
            lines == [
                "1 feed: 1 ok, 0 failing, 0 held back; 0 notifications pending",
                "2 feeds: 2 ok, 0 failing, 0 held back; 0 notifications pending",
                "3 feeds: 3 ok, 0 failing, 0 held back; 0 notifications pending",
                "3 feeds: 2 ok, 1 failing, 0 held back; 0 notifications pending",
                "3 feeds: 1 ok, 1 failing, 1 held back; 0 notifications pending",
                "3 feeds: 1 ok, 1 failing, 1 held back; 2 notifications pending",
                "3 feeds: 1 ok, 1 failing, 1 held back; 2 notifications pending",
                "3 feeds: 2 ok, 1 failing, 0 held back; 2 notifications pending",
                "2 feeds: 2 ok, 0 failing, 0 held back; 2 notifications pending",
                "state unreachable since 08:00:00 UTC: could not connect to postgres://monitor@db/monitor; "
                    + "2 feeds: 2 ok, 0 failing, 0 held back; 2 notifications pending",
                "2 feeds: 2 ok, 0 failing, 0 held back; 2 notifications pending",
            ])
        #expect(recount == [false, false, false, false, false, true, false, false, false, false, false])
    }
}
