import Synchronization

/// How long the store waits for its database to answer one call, and the race that holds it to that.
///
/// Nothing a server sends, or leaves unsent, can hold a feed back forever: every call the store makes to the server
/// (a connection's opening, a transaction, a statement) runs in a task of its own, and its caller returns as soon as
/// that work ends, the deadline passes or the caller is cancelled, whichever comes first — even if the work never
/// ends (a query on a connection the server ended without a word, whose answer never comes, whatever PostgresNIO
/// makes of the cancellation). The caller then closes the connection, which ends the work too (an exception to
/// "no task outlives its scope": the work's task lives until PostgresNIO lets go of it).
enum PostgresDeadline {
    /// The deadline of one call, unless told otherwise: longer than any sane statement, shorter than a test's time
    /// limit.
    static let standard: Duration = .seconds(30)

    /// The server did not answer within the deadline.
    struct Expired: Error, Equatable {
        /// What was waited for.
        enum Stage: Equatable, Sendable {
            /// A new connection's opening (the TCP connection, TLS, the login).
            case connecting
            /// A transaction's or a statement's answers.
            case answering
        }

        /// The deadline that passed.
        var deadline: Duration
        /// What was waited for.
        var stage: Stage

        /// The deadline in words: `30 s`, `250 ms`.
        var deadlineText: String {
            let (seconds, attoseconds) = deadline.components
            if attoseconds == 0 { return "\(seconds) s" }
            return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
        }
    }

    /// The value of `work`, or its error; ``Expired`` (for `stage`) once `deadline` has passed, `CancellationError`
    /// once the caller is cancelled, at once, however long `work` goes on. A value `work` returns after its caller
    /// gave up is given to `late` (which closes what nobody will use), in the work's task.
    static func race<Value: Sendable>(
        within deadline: Duration, stage: Expired.Stage,
        late: @escaping @Sendable (Value) -> Void = { _ in },
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let finish = Finish<Value>()
        let worker = Task {
            do {
                let value = try await work()
                if !finish.settle(.success(value)) { late(value) }
            } catch {
                finish.settle(.failure(error))
            }
        }
        let timer = Task {
            try await Task.sleep(for: deadline)
            finish.settle(.failure(Expired(deadline: deadline, stage: stage)))
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { finish.wait($0) }
            } onCancel: {
                finish.settle(.failure(CancellationError()))
            }
        } catch {
            // Given up (or failed, when this changes nothing): the work is asked to stop, and not waited for.
            worker.cancel()
            throw error
        }
    }
}

/// The end of a race: the first outcome settles it; the caller waits for it (or finds it there).
private final class Finish<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var outcome: Result<Value, any Error>?
    }

    private let state = Mutex(State())

    /// Settles the race with `outcome` unless it is settled already; returns whether it did.
    @discardableResult
    func settle(_ outcome: Result<Value, any Error>) -> Bool {
        let (settled, continuation) = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.continuation = nil }
            return (true, state.continuation)
        }
        continuation?.resume(with: outcome)
        return settled
    }

    /// Resumes `continuation` with the outcome: at once when there is one, else when it comes.
    func wait(_ continuation: CheckedContinuation<Value, any Error>) {
        let outcome = state.withLock { state -> Result<Value, any Error>? in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let outcome { continuation.resume(with: outcome) }
    }
}
