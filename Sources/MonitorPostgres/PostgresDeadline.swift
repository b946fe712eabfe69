import Synchronization

/// How long the store waits for its database to answer one call, and the race that holds it to that.
///
/// Nothing a server sends, or leaves unsent, can hold a feed back forever: every call the store makes to the server
/// (a connection's opening, a transaction, a statement) runs in a task of its own, and its caller returns as soon as
/// that work ends or the deadline passes, whichever comes first — even if the work never ends (a query on a
/// connection the server ended without a word, whose answer never comes). A cancelled caller (a stopping run) waits
/// a short ``grace`` more for the work, which is not cancelled: a commit or a delivery's record the server is
/// answering is kept, as it was before there was a deadline, and a stop is not held by a silent server. A caller that
/// gave up closes the connection, which ends the work too (an exception to "no task outlives its scope": the work's
/// task lives until PostgresNIO lets go of it).
enum PostgresDeadline {
    /// The deadline of one call, unless told otherwise: longer than any sane statement, shorter than a test's time
    /// limit.
    static let standard: Duration = .seconds(30)

    /// How long a cancelled caller still waits for its call: time enough for a call the server answers, short enough
    /// for a stopping run.
    static let grace: Duration = .seconds(5)

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
    /// once the caller has been cancelled for `grace`, however long `work` goes on. A value `work` returns after its
    /// caller gave up is given to `late` (which closes what nobody will use), in the work's task.
    static func race<Value: Sendable>(
        within deadline: Duration, stage: Expired.Stage, grace: Duration = grace,
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
                // A stopping run does not drop a call in flight (a poll's commit, a delivery being recorded): the
                // work goes on, unaware of the cancellation, and the caller waits `grace` at most for it.
                Task {
                    try? await Task.sleep(for: grace)
                    finish.settle(.failure(CancellationError()))
                }
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
