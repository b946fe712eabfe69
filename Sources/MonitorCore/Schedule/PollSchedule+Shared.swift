import Foundation

/// When a feed on a shared schedule (``FeedLeasing``) is polled next. Its loop claims it once due, through a
/// database that many loops share, so each poll starts a little after its due time; counting the next due time from
/// the start would add that lateness to every interval, and counting it from the due time alone would let a late
/// poll be followed by an early one. So the next due time keeps to the due times' cadence, with the jitter narrowed
/// by the lateness, and a poll later than the jitter is followed by the next soon after the interval less its jitter
/// allows (a little randomly, so that feeds claimed together late do not stay in step): every gap between two polls
/// is at least the interval less its jitter, and on average the interval.
extension PollSchedule {
    /// The next poll after one that was due at `due` and started (claimed) at `started`, ran until `finished`.
    ///
    /// A poll started late by less than the jitter (`jitter × interval`) is followed by one due `interval` after
    /// `due`, jittered by the jitter less that lateness either way; one started later is followed by one due
    /// `(1 − jitter) × interval` after it started (where the first rule ends as the lateness reaches the jitter),
    /// plus a random part of half the jitter (`jitter × interval × random / 2`): feeds claimed together, late on a
    /// loaded machine, are spread again rather than kept in step. Either way the next starts at least
    /// `(1 − jitter) × interval` after `started`. Otherwise (a failure, a start before it was due — a "poll now" —,
    /// a minimum interval from the server that is longer, or a poll that overran) the next due time is
    /// ``plan(started:finished:failures:minimumInterval:notBefore:random:)``'s, counted from `started`. Never before
    /// `notBefore`.
    func plan(
        due: Date, started: Date, finished: Date, failures: Int, minimumInterval: Duration?, notBefore: Date?,
        random: Double
    ) -> (due: Date, skipped: Int) {
        let late = started.timeIntervalSince(due)
        let spread = jitter * interval.seconds
        let fromStart = {
            plan(
                started: started, finished: finished, failures: failures, minimumInterval: minimumInterval,
                notBefore: notBefore, random: random)
        }
        guard failures == 0, late >= 0 else { return fromStart() }
        var next =
            late < spread
            ? due.addingTimeInterval(interval.seconds + (spread - late) * (random * 2 - 1))
            : started.addingTimeInterval(interval.seconds - spread + spread * random / 2)
        if let minimumInterval, started.addingTimeInterval(minimumInterval.seconds) > next { return fromStart() }
        guard next >= finished, next >= started.addingTimeInterval(1) else { return fromStart() }
        if let notBefore, notBefore > next { next = notBefore }
        return (next, 0)
    }
}
