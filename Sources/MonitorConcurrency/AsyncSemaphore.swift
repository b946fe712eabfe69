import DequeModule
import Synchronization

/// A counting semaphore for async code: at most `limit` holders at once, waiters served in order.
/// A waiting task that is cancelled stops waiting and throws `CancellationError`. Thousands of waiters (one per
/// feed) cost each `release` no more than one.
package final class AsyncSemaphore: Sendable {
    private struct State {
        var available: Int
        /// The waiters, longest first.
        var waiters = Deque<(id: UInt64, continuation: CheckedContinuation<Void, any Error>)>()
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>
    /// The number of holders allowed at once.
    let limit: Int

    /// A semaphore allowing `limit` holders at once (at least 1).
    package init(limit: Int) {
        self.limit = max(1, limit)
        state = Mutex(State(available: max(1, limit)))
    }

    /// Waits for a permit.
    package func acquire() async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64? in
            if state.available > 0 {
                state.available -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // nil: queued; otherwise what to resume with at once (a permit returned since, or cancellation).
                let resumption = state.withLock { state -> Result<Void, CancellationError>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.available > 0 {
                        state.available -= 1
                        return .success(())
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let resumption { continuation.resume(with: resumption.mapError { $0 as any Error }) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Takes a permit if one is free, without waiting (and whether or not the task is cancelled): it may take one
    /// returned while an ``acquire()`` that found none is still on its way into the line.
    package func tryAcquire() -> Bool {
        state.withLock { state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
    }

    /// Returns a permit, waking the longest waiter.
    package func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard let waiter = state.waiters.popFirst() else {
                state.available = min(state.available + 1, limit)
                return nil
            }
            return waiter.continuation
        }
        waiter?.resume()
    }
}
