import Synchronization

/// A value given once and waited for: the first ``fulfil(_:)`` sets it and later ones are refused; ``value`` waits
/// until it is set (returns at once when it is).
package final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Value, Never>])
        case set(Value)
    }

    private let state = Mutex(State.waiting([]))

    /// A value not given yet.
    package init() {}

    /// Sets the value, unless it is set already, and resumes whoever waits for it; returns whether it did.
    @discardableResult
    package func fulfil(_ value: Value) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Never>]? in
            guard case .waiting(let waiters) = state else { return nil }
            state = .set(value)
            return waiters
        }
        for waiter in waiters ?? [] { waiter.resume(returning: value) }
        return waiters != nil
    }

    /// The value, once given. Cancellation does not end the wait: whoever waits relies on someone to give it.
    package var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let given = state.withLock { state -> Value? in
                    switch state {
                    case .set(let value):
                        return value
                    case .waiting(let waiters):
                        state = .waiting(waiters + [continuation])
                        return nil
                    }
                }
                if let given { continuation.resume(returning: given) }
            }
        }
    }
}
