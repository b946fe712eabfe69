import Synchronization

/// A signal one task waits for: a signal given while nobody waits is kept for the next wait.
package final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// A wake-up not yet signalled.
    package init() {}

    /// Wakes the waiting task, or the next one to wait.
    package func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.signalled = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Forgets a signal kept for the next wait.
    package func reset() {
        state.withLock { $0.signalled = false }
    }

    /// Returns when signalled (at once when a signal is kept) or when the task is cancelled.
    package func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.signalled || Task.isCancelled {
                        state.signalled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Sleeps on `clock` until `deadline`, or less when signalled first. Throws when cancelled.
    ///
    /// A race of two child tasks rather than `withDeadline`, whose task and third child every sleeping feed would keep.
    package func wait(until deadline: WallClock.Instant, on clock: any PollClock) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await clock.sleep(until: deadline, tolerance: nil) }
            group.addTask { await self.wait() }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
