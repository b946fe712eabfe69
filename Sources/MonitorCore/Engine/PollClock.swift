import Foundation

/// Where the engine gets the time and how it waits: the real clock, or one a test controls.
package struct PollClock: Sendable {
    /// The current wall-clock time.
    package var now: @Sendable () -> Date
    /// Waits `duration` (throws when cancelled).
    package var sleep: @Sendable (Duration) async throws -> Void
    /// A random fraction in 0..<1, for jitter.
    package var random: @Sendable () -> Double

    /// A clock from its parts.
    package init(
        now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.now = now
        self.sleep = sleep
        self.random = random
    }

    /// The system's clock.
    package static let system = PollClock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}
