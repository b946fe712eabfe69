import Synchronization

/// A value that tasks change and wait on: ``wait(until:)`` returns as soon as the value satisfies a condition.
///
/// Waiting is event-driven: no polling and no real-time deadline. A suite's `.timeLimit` is the only clock; when
/// it cancels the waiting test, the wait throws `CancellationError`.
package final class Watched<Value: Sendable>: Sendable {
    private struct Waiter {
        var condition: @Sendable (Value) -> Bool
        var continuation: CheckedContinuation<Value, any Error>
    }

    private struct State {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private enum Outcome {
        case ready(Value)
        case cancelled
        case waiting
    }

    private let state: Mutex<State>

    /// A watched `value`.
    package init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    /// The value now.
    package var value: Value { state.withLock { $0.value } }

    /// Changes the value with `body` and wakes every waiter whose condition now holds; returns what `body` returns.
    ///
    /// `body` runs under the lock: it must not use this `Watched` again.
    @discardableResult
    package func update<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        let (result, woken) = try state.withLock { state in
            let result = try body(&state.value)
            let value = state.value
            let due = state.waiters.filter { $0.value.condition(value) }
            for id in due.keys { state.waiters[id] = nil }
            return (result, due.values.map { ($0.continuation, value) })
        }
        for (continuation, value) in woken { continuation.resume(returning: value) }
        return result
    }

    /// Waits until the value satisfies `condition` (at once when it already does) and returns the value that did.
    ///
    /// `condition` is called under the lock, on every change: it must be quick and must not use this `Watched`.
    @discardableResult
    package func wait(until condition: @escaping @Sendable (Value) -> Bool) async throws -> Value {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let outcome = state.withLock { state -> Outcome in
                    if condition(state.value) { return .ready(state.value) }
                    if Task.isCancelled { return .cancelled }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return .waiting
                }
                switch outcome {
                case .ready(let value): continuation.resume(returning: value)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
