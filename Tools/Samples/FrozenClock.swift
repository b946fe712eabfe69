import Foundation
import MonitorConcurrency
import MonitorCore

/// A clock that stands still at one date and does not wait, its jitter fixed: for a run that must not move in time (a
/// bench's delivery round, a test whose polls last 0 ms).
package struct FrozenClock: PollClock {
    package let now: WallClock.Instant
    private let jitter: Double

    /// A clock showing `date` forever, whose `random` is always `jitter`.
    package init(at date: Date, random jitter: Double = 0.5) {
        now = WallClock.Instant(date)
        self.jitter = jitter
    }

    package var minimumResolution: Duration { .zero }

    package func sleep(until deadline: WallClock.Instant, tolerance: Duration? = nil) async throws {}

    package func random() -> Double { jitter }
}
