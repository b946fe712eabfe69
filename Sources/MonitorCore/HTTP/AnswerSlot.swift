import Synchronization

/// The first of an answer, a timeout and a cancellation, handed to the one waiting for it.
final class AnswerSlot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, any Error>)
        case finished(Result<Value, any Error>)
        case done
    }

    private let state = Mutex(State.empty)

    /// Waits with `continuation` (resumed at once when the answer came first).
    func wait(_ continuation: CheckedContinuation<Value, any Error>) {
        let ready = state.withLock { state -> Result<Value, any Error>? in
            guard case .finished(let result) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .done
            return result
        }
        if let ready { continuation.resume(with: ready) }
    }

    /// The answer; only the first counts.
    func finish(_ result: Result<Value, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .empty:
                state = .finished(result)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .finished, .done:
                return nil
            }
        }
        waiting?.resume(with: result)
    }
}
