import Foundation
import Testing

@testable import MonitorCore

@Suite("When a feed on a shared schedule is polled next")
struct SharedPollScheduleTests {
    let due = Date(timeIntervalSince1970: 1_800_000_000)
    /// 30 s, jittered by ±3 s.
    let schedule = PollSchedule(interval: .seconds(30))

    func at(_ seconds: Double) -> Date { due.addingTimeInterval(seconds) }

    @Test(
        "a late poll keeps the due times' cadence, its jitter narrowed by the lateness, never sooner than 27 s after it",
        arguments: [
            // (late, random, next due after `due`): the jitter is ±(3 − late).
            (1.0, 0.5, 30.0), (1.0, 0.0, 28.0), (1.0, 0.75, 31.0), (0.0, 0.0, 27.0), (0.0, 0.5, 30.0),
            (2.5, 0.0, 29.5), (2.5, 0.5, 30.0), (2.5, 0.9, 30.4),
            // Later than the jitter (first polls queued behind each other, a loaded machine): 27 s after its start,
            // plus 0–1.5 s (half the jitter) at random.
            (3.0, 0.0, 30.0), (3.0, 0.5, 30.75), (3.0, 0.75, 31.125), (4.5, 0.0, 31.5), (40.0, 0.25, 67.375),
        ])
    func cadence(late: Double, random: Double, next: Double) {
        let plan = schedule.plan(
            due: due, started: at(late), finished: at(late + 1), failures: 0, minimumInterval: nil, notBefore: nil,
            random: random)
        #expect(plan.due == at(next))
        #expect(plan.skipped == 0)
    }

    @Test(
        "otherwise the next due time counts from the start, as on a schedule of its own",
        arguments: [
            // (late, failures, minimum interval, finished after `due`, random, next due after `due`, skipped)
            (-5.0, 0, nil, -4.0, 0.5, 25.0, 0),  // started before it was due: a "poll now"
            (1.0, 1, nil, 2.0, 0.5, 31.0, 0),  // a failure: backing off from the start
            (1.0, 3, nil, 2.0, 0.5, 121.0, 0),
            (1.0, 0, 40, 2.0, 0.5, 41.0, 0),  // the server's minimum interval is longer
            (1.0, 0, 20, 2.0, 0.5, 30.0, 0),  // shorter: the cadence holds
            (1.0, 0, nil, 40.0, 0.5, 61.0, 1),  // the poll overran its next due time
        ] as [(Double, Int, Int?, Double, Double, Double, Int)])
    func fromStart(
        late: Double, failures: Int, minimum: Int?, finished: Double, random: Double, next: Double, skipped: Int
    ) {
        let plan = schedule.plan(
            due: due, started: at(late), finished: at(finished), failures: failures,
            minimumInterval: minimum.map { .seconds($0) }, notBefore: nil, random: random)
        #expect(plan.due == at(next))
        #expect(plan.skipped == skipped)
    }

    @Test("never before the server's not-before")
    func notBefore() {
        let plan = schedule.plan(
            due: due, started: at(1), finished: at(2), failures: 0, minimumInterval: nil, notBefore: at(50),
            random: 0.5)
        #expect(plan.due == at(50))
        let earlier = schedule.plan(
            due: due, started: at(1), finished: at(2), failures: 0, minimumInterval: nil, notBefore: at(10),
            random: 0.5)
        #expect(earlier.due == at(30))
    }

    /// 3,000 polls of one feed, each started 0–2.9 s after it was due, with evenly spread jitter draws.
    func polls(rule: (Date, Date, Double) -> Date) -> [Double] {
        var due = self.due
        var starts: [Double] = []
        for index in 0..<3000 {
            // Lateness and jitter draws that cover their ranges evenly, and independently of each other.
            let late = 2.9 * (Double(index) * 0.754_877_666).truncatingRemainder(dividingBy: 1)
            let random = (Double(index) * 0.569_840_291).truncatingRemainder(dividingBy: 1)
            let started = due.addingTimeInterval(late)
            starts.append(started.timeIntervalSince(self.due))
            due = rule(due, started, random)
        }
        return zip(starts, starts.dropFirst()).map { $1 - $0 }
    }

    @Test("polled late by more than the jitter, the gap is 27 s, plus up to 1.5 s at random, plus the next lateness")
    func laterThanJitter() {
        // Started 5 s late every time: due 27–28.5 s after each start (1.5 s × the draw), started 5 s after that.
        var due = self.due
        var starts: [Date] = []
        let draws = (0..<10).map { Double($0 % 8) / 8 }
        for draw in draws {
            let started = due.addingTimeInterval(5)
            starts.append(started)
            due =
                schedule.plan(
                    due: due, started: started, finished: started.addingTimeInterval(1), failures: 0,
                    minimumInterval: nil, notBefore: nil, random: draw
                ).due
        }
        let gaps = zip(starts, starts.dropFirst()).map { $1.timeIntervalSince($0) }
        let expected: [Double] = draws.dropLast().map { draw in 32 + 1.5 * draw }
        #expect(gaps == expected)
    }

    @Test("feeds claimed together and late are due apart again, by their draws, within 27–28.5 s of the start")
    func lateFeedsSpread() {
        // Eight feeds due at once, all started 10 s late together, with different draws.
        let started = at(10)
        let next = (0..<8).map { draw in
            schedule.plan(
                due: due, started: started, finished: started.addingTimeInterval(1), failures: 0,
                minimumInterval: nil, notBefore: nil, random: Double(draw) / 8
            ).due.timeIntervalSince(started)
        }
        let expected: [Double] = (0..<8).map { draw in 27 + 1.5 * Double(draw) / 8 }
        #expect(next == expected)
        #expect(Set(next).count == 8)
    }

    @Test("polled late every time, a feed is still polled once per interval, never sooner than 27 s after the last")
    func oncePerInterval() {
        let gaps = polls { due, started, random in
            schedule.plan(
                due: due, started: started, finished: started.addingTimeInterval(0.5), failures: 0,
                minimumInterval: nil, notBefore: nil, random: random
            ).due
        }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        #expect(abs(mean - 30) < 0.01, "mean gap \(mean) s")
        #expect(gaps.min()! >= 27 - 1e-9, "shortest gap \(gaps.min()!) s")
        #expect(gaps.max()! <= 33 + 2.9 + 1e-9, "longest gap \(gaps.max()!) s")
        // Counted from the start, as before, the lateness adds up: one poll per 31.45 s on average.
        let fromStart = polls { _, started, random in
            schedule.plan(
                started: started, finished: started.addingTimeInterval(0.5), failures: 0, minimumInterval: nil,
                notBefore: nil, random: random
            ).due
        }
        let slower = fromStart.reduce(0, +) / Double(fromStart.count)
        #expect(abs(slower - 31.45) < 0.05, "mean gap counted from the start \(slower) s")
    }
}
