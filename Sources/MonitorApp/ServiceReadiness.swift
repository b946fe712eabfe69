import Synchronization

/// Whether `monitor run` is ready: the feeds file is loaded, the state is open and every feed is scheduled. Created
/// with the service's options, set by ``MonitorService`` at that point (and unset when it stops), read by who needs it
/// (`/readyz`), or waited for.
package final class ServiceReadiness: Sendable {
    private struct State {
        var ready = false
        var next = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether the service is ready now.
    package var isReady: Bool { state.withLock { $0.ready } }

    /// Sets whether the service is ready; becoming ready wakes who waits for it.
    package func set(_ value: Bool) {
        let waiters = state.withLock { state in
            state.ready = value
            guard value else { return [CheckedContinuation<Void, Never>]() }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the service is ready (at once when it is), or when the task is cancelled.
    package func untilReady() async {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.ready || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
