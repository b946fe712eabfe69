import Foundation
import MonitorOptions
import MonitorText
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("The health /healthz reports: failing, held back, stale and never polled feeds, as a pure state")
struct FeedHealthTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC

    private func feed(_ name: String, interval: Duration? = nil, staleAfter: Duration? = nil) -> FeedConfig {
        var options = FeedOptions()
        if let interval { options.set("interval", .duration(interval)) }
        if let staleAfter { options.set("expect_update_within", .duration(staleAfter)) }
        return FeedConfig(name: name, type: "github", options: options)
    }

    private func report(
        _ feed: String, _ status: PollReport.Status, at seconds: TimeInterval, new: Int = 0, error: String? = nil,
        failures: Int = 0, notBefore: TimeInterval? = nil
    ) -> PollEvent {
        var report = PollReport(
            feed: feed, type: "github", status: status, error: error, new: new,
            started: start.addingTimeInterval(seconds), duration: .milliseconds(250),
            notBefore: notBefore.map { start.addingTimeInterval($0) })
        report.failures = failures
        // As the record says after such a poll.
        if new > 0 { report.lastNew = report.started }
        return .finished(report)
    }

    /// A health of `feeds` set at `start`, after each event at its time.
    private func health(_ feeds: [FeedConfig], _ events: [(TimeInterval, PollEvent)]) -> FeedHealth {
        var health = FeedHealth()
        health.setFeeds(feeds, interval: .seconds(600), now: start)
        for (seconds, event) in events { health.apply(event, now: start.addingTimeInterval(seconds)) }
        return health
    }

    private func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    @Test("healthy while every last poll succeeded, or within the first interval before any poll ended")
    func healthy() {
        let feeds = [feed("rx"), feed("planet", interval: .seconds(3600))]
        #expect(health(feeds, []).problems(now: at(600)) == [])
        let polled = health(feeds, [(5, report("rx", .ok, at: 5)), (9, report("planet", .notModified, at: 9))])
        #expect(polled.problems(now: at(100_000)) == [])
        // Past its first interval (the settings' 10 minutes) without a poll that ended: said so; planet has 1h.
        #expect(
            health(feeds, []).problems(now: at(601)) == [
                "rx: no poll has ended since it started at 08:00:00 UTC"
            ])
        #expect(
            health(feeds, []).problems(now: at(3601)) == [
                "rx: no poll has ended since it started at 08:00:00 UTC",
                "planet: no poll has ended since it started at 08:00:00 UTC",
            ])
    }

    @Test("failing since the first failure in a row, with its error cleaned and the streak; healthy once it recovers")
    func failing() {
        let feeds = [feed("rx"), feed("planet")]
        let error = "HTTP 500 from https://api.github.com/repos/o/rx/events\u{1B}[31m"
        var health = health(
            feeds,
            [
                (60, report("rx", .failed, at: 60, error: error, failures: 1)),
                (70, report("planet", .partial, at: 70, error: "1 of 3 categories failed")),
            ])
        #expect(
            health.problems(now: at(80)) == [
                "rx: failing since 08:01:00 UTC: HTTP 500 from https://api.github.com/repos/o/rx/events",
                "planet: partly failing since 08:01:10 UTC: 1 of 3 categories failed",
            ])
        health.apply(report("rx", .failed, at: 660, error: "timed out", failures: 2), now: at(661))
        #expect(
            health.problems(now: at(662)).first == "rx: failing since 08:01:00 UTC: timed out (2 failures in a row)")
        health.apply(report("rx", .ok, at: 1260), now: at(1261))
        health.apply(report("planet", .ok, at: 1270), now: at(1271))
        #expect(health.problems(now: at(1272)) == [])
        // A new failure starts a new streak.
        health.apply(report("rx", .failed, at: 1860, error: "timed out", failures: 1), now: at(1861))
        #expect(health.problems(now: at(1862)) == ["rx: failing since 08:31:00 UTC: timed out"])
    }

    @Test("held back until the server's time, then healthy again; stale past expect_update_within")
    func heldBackAndStale() {
        let feeds = [feed("rx", staleAfter: .seconds(7200))]
        let health = health(feeds, [(30, report("rx", .ok, at: 30, new: 3, notBefore: 4000))])
        #expect(health.problems(now: at(3999)) == ["rx: held back until 09:06:40 UTC"])
        #expect(health.problems(now: at(4000)) == [])
        // No new item since the poll of +30 s that found 3 (noted when its event came, at +30 s).
        #expect(health.problems(now: at(7230)) == [])
        #expect(
            health.problems(now: at(7231)) == [
                "rx: stale: no new item since 08:00:30 UTC (expect_update_within 2h)"
            ])
        // Without any new item, stale from the start.
        let empty = self.health(feeds, [(30, report("rx", .ok, at: 30))])
        #expect(
            empty.problems(now: at(7201)) == ["rx: stale: no new item since 08:00:00 UTC (expect_update_within 2h)"])
    }

    @Test("stale from when the record last had a new item, as a stale notification counts, not from the run's start")
    func staleFromRecord() {
        let feeds = [feed("rx", staleAfter: .seconds(60))]
        // Its last new item came 72 s before this run started; the run's first poll finds nothing new.
        var first = PollReport(
            feed: "rx", type: "github", status: .notModified, started: at(1), duration: .milliseconds(250))
        first.lastNew = at(-72)
        let health = self.health(feeds, [(1, .finished(first))])
        #expect(health.problems(now: at(2)) == ["rx: stale: no new item since 07:58:48 UTC (expect_update_within 1m)"])
        // What the notifier decides from the same record.
        var record = FeedRecord(name: "rx", type: "github")
        record.lastNew = at(-72)
        #expect(NotificationPlanner.isStale(record, at: at(2), after: .seconds(60)))
        // A failed poll keeps what the record says.
        var failed = PollReport(
            feed: "rx", type: "github", status: .failed, error: "timed out", started: at(3), duration: .zero)
        failed.lastNew = at(-72)
        #expect(
            self.health(feeds, [(3, .finished(failed))]).problems(now: at(4)).last?.contains("since 07:58:48") == true)
    }

    @Test("a hold the scheduler waits for before any poll of the run (stored by an earlier one) is a problem")
    func storedHold() {
        let feeds = [feed("rx")]
        let hold = RateBudgets.Hold(until: at(900), reason: "rate limit exhausted")
        let health = self.health(feeds, [(0, .scheduled(feed: "rx", next: at(900), skipped: 0, hold: hold))])
        #expect(health.problems(now: at(1)) == ["rx: held back until 08:15:00 UTC"])
        #expect(health.counts(now: at(1)) == (feeds: 1, failing: 0, held: 1))
        #expect(health.problems(now: at(900)) == [])
        // After a poll of this run, its report says the hold: the minimum interval the scheduler waits for is none.
        let polled = self.health(
            feeds,
            [
                (5, report("rx", .ok, at: 5)),
                (
                    6,
                    .scheduled(feed: "rx", next: at(65), skipped: 0, hold: RateBudgets.Hold(until: at(65), reason: "x"))
                ),
            ])
        #expect(polled.problems(now: at(7)) == [])
        #expect(polled.counts(now: at(7)) == (feeds: 1, failing: 0, held: 0))
    }

    @Test("an unreachable state is said once, first; a feed held elsewhere or removed is not reported")
    func stateLeasesAndRemovals() {
        let feeds = [feed("rx"), feed("planet"), feed("quiet")]
        var unreachable = PollReport(feed: "rx", type: "github", status: .failed, error: "x", started: at(50))
        unreachable.unreachableState = .unreachable("cannot reach postgres://monitor@db/monitor")
        let other = FeedHolder(owner: "host-b", until: at(900), isThisInstance: false)
        var health = health(
            feeds,
            [
                (50, .state(unreachable: .unreachable("cannot reach postgres://monitor@db/monitor"))),
                (50, .finished(unreachable)), (60, .lease(feed: "quiet", holder: other)),
                (70, report("planet", .failed, at: 70, error: "refused", failures: 1)), (80, .stopped(feed: "planet")),
            ])
        #expect(
            health.problems(now: at(700)) == [
                "state unreachable since 08:00:50 UTC: cannot reach postgres://monitor@db/monitor",
                "rx: no poll has ended since it started at 08:00:00 UTC",
            ])
        health.apply(.state(unreachable: nil), now: at(701))
        health.apply(report("rx", .ok, at: 701), now: at(702))
        #expect(health.problems(now: at(703)) == [])
        // Back in the feeds file: a new first interval.
        health.setFeeds(feeds, interval: .seconds(600), now: at(800))
        #expect(health.problems(now: at(1400)) == [])
        #expect(health.problems(now: at(1401)) == ["planet: no poll has ended since it started at 08:13:20 UTC"])
    }
}
