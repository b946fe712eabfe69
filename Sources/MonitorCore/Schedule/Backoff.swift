import Foundation

/// How retries after failures are spaced: `base` after the first failure, twice that after the second, and so on up
/// to `maximum`. Each caller names its base and cap: a request's retries (0.5 s to 30 s, ``HTTPPolicy``), a notifier's
/// deliveries (5 s to 15 minutes), a failing feed (its interval to an hour, ``PollSchedule``), a feed whose state cannot
/// be reached (a few seconds to its interval).
package struct Backoff: Sendable, Hashable {
    /// The wait after the first failure; each next one waits twice as long.
    var base: Duration
    /// The longest wait.
    var maximum: Duration

    /// The wait after `failures` failures in a row, without jitter: `base × 2^(failures-1)`, at most `maximum` (`base`
    /// for one failure or none).
    func step(after failures: Int) -> Duration {
        min(base * (1 << min(max(failures - 1, 0), 30)), maximum)
    }

    /// The wait after the `attempts`-th failure, with jitter from `random` (in 0..<1): between half and the whole of
    /// ``step(after:)``. A `retryAfter` asked for (capped at ``HTTPPolicy/maximumHold``) can only lengthen it: the wait
    /// is then the longer of the two and never less than `base`, so that a `Retry-After: 0` or a date in the past
    /// cannot make a receiver be asked again at once.
    func delay(afterAttempts attempts: Int, retryAfter: Duration?, random: Double) -> Duration {
        let backoff = step(after: attempts) * (0.5 + random / 2)
        guard let retryAfter else { return backoff }
        return max(min(retryAfter, HTTPPolicy.maximumHold), backoff, base)
    }
}
