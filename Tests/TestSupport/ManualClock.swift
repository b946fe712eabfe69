import Foundation
import MonitorConcurrency
import Synchronization

@testable import MonitorCore

/// A clock the test moves by hand: `sleep` suspends until `advance` moves the time past its deadline.
///
/// A test waits for the system under test to catch up with ``waitForSleepers(_:)``, which returns when the
/// sleepers are there, with no polling and no real-time deadline.
package final class ManualClock: PollClock {
    package typealias Instant = WallClock.Instant

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Instant
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        var randoms: [Double] = []
    }

    private let state: Watched<State>

    /// A clock starting at `start`.
    package init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Watched(State(now: Instant(start)))
    }

    /// The current time.
    package var now: Instant { state.value.now }

    /// The current time, as a date.
    package var date: Date { now.date }

    package var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock.
    package var sleepers: Int { state.value.sleepers.count }

    /// The earliest deadline of a sleeping task.
    package var nextDeadline: Date? { state.value.sleepers.values.map(\.deadline).min()?.date }

    /// The values `random` returns next, in order (then 0.5).
    package func queueRandom(_ values: [Double]) {
        state.update { $0.randoms += values }
    }

    /// Moves the time forward by `duration`, waking every sleeper whose deadline has come.
    package func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration).date)
    }

    /// Moves the time to `date` (never backwards), waking every sleeper whose deadline has come.
    package func advance(to date: Date) {
        let woken = state.update { state -> [CheckedContinuation<Void, any Error>] in
            state.now = max(state.now, Instant(date))
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.sorted { $0.value.deadline < $1.value.deadline }.map(\.value.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Waits until at least `count` tasks sleep on the clock: the system under test has caught up.
    ///
    /// There is no real-time limit: the suite's `.timeLimit` ends a wait that never comes true.
    package func waitForSleepers(_ count: Int) async throws {
        try await state.wait { $0.sleepers.count >= count }
    }

    /// The next value queued by ``queueRandom(_:)``, else 0.5.
    package func random() -> Double {
        state.update { state in state.randoms.isEmpty ? 0.5 : state.randoms.removeFirst() }
    }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        guard deadline > now else { return }
        let id = state.update { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.update { state -> Bool in
                    if Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.update { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
