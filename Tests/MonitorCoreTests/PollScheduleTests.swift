import Foundation
import Testing

@testable import MonitorCore

@Suite("When a feed is polled next")
struct PollScheduleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("jitter keeps the delay within ±10% of the interval", arguments: [0.0, 0.25, 0.5, 0.75, 0.999])
    func jitter(random: Double) {
        let schedule = PollSchedule(interval: .seconds(600))
        let delay = schedule.delay(failures: 0, minimumInterval: nil, random: random).seconds
        #expect(delay >= 540 && delay <= 660)
        #expect(abs(delay - (540 + 120 * random)) < 0.001)
    }

    @Test("a failing feed backs off exponentially up to the cap, and the cap is the interval when that is longer")
    func backOff() {
        let schedule = PollSchedule(interval: .seconds(60), jitter: 0)
        let delays = (0...8).map { schedule.delay(failures: $0, minimumInterval: nil, random: 0.5).seconds }
        #expect(delays == [60, 60, 120, 240, 480, 960, 1920, 3600, 3600])
        let long = PollSchedule(interval: .seconds(7200), jitter: 0)
        #expect(long.delay(failures: 5, minimumInterval: nil, random: 0.5).seconds == 7200)
    }

    @Test("the server's minimum interval and not-before win over the interval")
    func serverLimits() {
        let schedule = PollSchedule(interval: .seconds(30), jitter: 0)
        #expect(schedule.delay(failures: 0, minimumInterval: .seconds(60), random: 0.5).seconds == 60)
        let notBefore = start.addingTimeInterval(900)
        let plan = schedule.plan(
            started: start, finished: start.addingTimeInterval(1), failures: 0, minimumInterval: nil,
            notBefore: notBefore,
            random: 0.5)
        #expect(plan.due == notBefore)
    }

    @Test(
        "a poll that overruns its interval skips the slots it covered",
        arguments: [(10.0, 60.0, 0), (59.0, 60.0, 0), (60.0, 60.0, 0), (61.0, 120.0, 1), (150.0, 180.0, 2)])
    func overrun(ran: Double, nextAt: Double, skipped: Int) {
        let schedule = PollSchedule(interval: .seconds(60), jitter: 0)
        let plan = schedule.plan(
            started: start, finished: start.addingTimeInterval(ran), failures: 0, minimumInterval: nil, notBefore: nil,
            random: 0.5)
        #expect(plan.due == start.addingTimeInterval(nextAt))
        #expect(plan.skipped == skipped)
    }
}
