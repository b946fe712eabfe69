import Foundation
import MonitorText

/// The clock the engine reads and waits on: the system's (``WallClock``) or one a test moves.
///
/// Its instants are wall-clock dates, since the state stores dates. It also gives the jitter (`random`), so that a test
/// that moves the time fixes the jitter too.
package protocol PollClock: Clock where Instant == WallClock.Instant {
    /// A random fraction in 0..<1, for jitter.
    func random() -> Double
}

extension PollClock {
    package func random() -> Double { Double.random(in: 0..<1) }
}

/// The system's clock: the time is `Date()`, and a wait until a date sleeps the time left until it.
package struct WallClock: PollClock {
    /// A moment of wall-clock time: a `Date`, with `Duration` arithmetic.
    package struct Instant: InstantProtocol {
        package var date: Date

        package init(_ date: Date) {
            self.date = date
        }

        package func advanced(by duration: Duration) -> Self {
            Self(date.addingTimeInterval(duration.seconds))
        }

        package func duration(to other: Self) -> Duration {
            .seconds(other.date.timeIntervalSince(date))
        }

        package static func < (lhs: Self, rhs: Self) -> Bool {
            lhs.date < rhs.date
        }
    }

    package init() {}

    package var now: Instant { Instant(Date()) }

    package var minimumResolution: Duration { .microseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await Task.sleep(for: now.duration(to: deadline), tolerance: tolerance)
    }
}
