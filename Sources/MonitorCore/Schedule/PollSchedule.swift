import Foundation

/// When a feed is polled next: its interval with a little jitter, never before the server allows, backing off
/// exponentially while it fails. Pure functions, so the rules are tested with any clock.
struct PollSchedule: Sendable, Hashable {
    /// The feed's interval.
    var interval: Duration
    /// The jitter, as a fraction of the interval either way (0.1: ±10%).
    var jitter = 0.1
    /// The longest back-off of a failing feed (the interval itself when that is longer): an hour by default.
    var backOffCap: Duration = .seconds(3600)

    /// The delay after a poll before the next one.
    ///
    /// - Parameters:
    ///   - failures: how many polls in a row failed (0 after a success).
    ///   - minimumInterval: the shortest interval the server allows (`X-Poll-Interval`).
    ///   - random: a fraction in 0..<1 choosing the jitter.
    func delay(failures: Int, minimumInterval: Duration?, random: Double) -> Duration {
        var delay = interval
        if failures > 0 {
            // interval, 2×, 4×… up to the cap (or the interval itself when that is longer).
            delay = Backoff(base: interval, maximum: max(interval, backOffCap)).step(after: failures)
        }
        delay = delay * (1 + jitter * (random * 2 - 1))
        if let minimumInterval { delay = max(delay, minimumInterval) }
        return max(delay, .seconds(1))
    }

    /// The wait before a feed asks its state again after `failures` calls in a row found it unreachable: from 5 s (or
    /// the interval when shorter), doubling, up to the interval (between half and the whole of each, at random): the
    /// feed is polled within an interval of the state answering again, however long it was away.
    func unreachableStateDelay(failures: Int, random: Double) -> Duration {
        Backoff(base: min(.seconds(5), interval), maximum: interval).delay(
            afterAttempts: failures, retryAfter: nil, random: random)
    }

    /// The next poll after one that ran from `started` to `finished`: `delay` after it started, in cadence;
    /// slots that passed while it ran are skipped, not stacked; never before `notBefore`.
    func plan(
        started: Date, finished: Date, failures: Int, minimumInterval: Duration?, notBefore: Date?, random: Double
    ) -> (due: Date, skipped: Int) {
        let step = delay(failures: failures, minimumInterval: minimumInterval, random: random).seconds
        var due = started.addingTimeInterval(step)
        var skipped = 0
        if due < finished {
            skipped = Int((finished.timeIntervalSince(due) / step).rounded(.up))
            due = due.addingTimeInterval(Double(skipped) * step)
            if due < finished {
                skipped += 1
                due = due.addingTimeInterval(step)
            }
        }
        if let notBefore, notBefore > due { due = notBefore }
        return (due, skipped)
    }
}

extension PollRunner {
    /// The schedule of `feed`: its own interval, else the settings' (the one place a feed's interval is resolved).
    func schedule(of feed: FeedConfig) -> PollSchedule {
        PollSchedule(interval: feed.interval(default: settings.interval))
    }
}
