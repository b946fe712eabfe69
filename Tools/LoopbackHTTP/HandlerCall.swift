import NIOConcurrencyHelpers

/// One call of a request handler that its caller can stop waiting for.
///
/// A handler that ignores cancellation (e.g. one waiting on a continuation that is never resumed) must not keep a
/// shutdown waiting: when the waiting task is cancelled the call is abandoned, and the handler's task is cancelled
/// and left to finish on its own.
final class HandlerCall: Sendable {
    private enum State {
        case running
        case waiting(CheckedContinuation<TestResponse?, Never>)
        case finished(TestResponse?)
        case delivered
    }

    private let state = NIOLockedValueBox(State.running)

    /// Calls `handler` with `request` in a task of its own; returns its response, or `nil` when the calling task is
    /// cancelled first.
    static func response(
        of handler: @escaping @Sendable (RecordedRequest) async -> TestResponse, to request: RecordedRequest
    ) async -> TestResponse? {
        let call = HandlerCall()
        let task = Task { call.finish(await handler(request)) }
        return await withTaskCancellationHandler {
            await call.result()
        } onCancel: {
            task.cancel()
            call.finish(nil)
        }
    }

    /// Delivers `response`, unless a response (or the cancellation's `nil`) was delivered already.
    private func finish(_ response: TestResponse?) {
        let continuation: CheckedContinuation<TestResponse?, Never>? = state.withLockedValue { state in
            switch state {
            case .running:
                state = .finished(response)
                return nil
            case .waiting(let continuation):
                state = .delivered
                return continuation
            case .finished, .delivered:
                return nil
            }
        }
        continuation?.resume(returning: response)
    }

    /// Waits for the first value given to `finish`.
    private func result() async -> TestResponse? {
        await withCheckedContinuation { continuation in
            let ready: TestResponse?? = state.withLockedValue { state in
                switch state {
                case .running:
                    state = .waiting(continuation)
                    return nil
                case .finished(let response):
                    state = .delivered
                    return .some(response)
                case .waiting, .delivered:
                    preconditionFailure("a HandlerCall's result is awaited once")
                }
            }
            if let ready {
                continuation.resume(returning: ready)
            }
        }
    }
}
