import MonitorConcurrency
import MonitorCore

/// How long the store waits for its database to answer one call, and the race that holds it to that.
///
/// Nothing a server sends, or leaves unsent, can hold a feed back forever: every call the store makes to the server
/// (a connection's opening, a transaction, a statement) is held to a deadline by `withDeadline`, even if the work
/// never ends (a query on a connection the server ended without a word). A cancelled caller (a stopping run) waits a
/// short ``grace`` more for the work, which is not cancelled: a commit or a delivery's record the server is answering
/// is kept, and a stop is not held by a silent server. A caller that gave up closes the connection, which ends the work
/// too.
package enum PostgresDeadline {
    /// The deadline of one call, unless told otherwise: longer than any sane statement, shorter than a test's time
    /// limit.
    package static let standard: Duration = .seconds(30)

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
            return "\(deadline.milliseconds) ms"
        }
    }

    /// The value of `work`, or its error; ``Expired`` (for `stage`) once `deadline` has passed on `clock`,
    /// `CancellationError` once the caller has been cancelled for `grace`, however long `work` goes on. A value `work`
    /// returns after its caller gave up is given to `late` (which closes what nobody will use); the caller does not
    /// wait for `work` to end.
    static func race<Value: Sendable>(
        within deadline: Duration, stage: Expired.Stage, grace: Duration = grace,
        on clock: any Clock<Duration> = ContinuousClock(), late: @escaping @Sendable (Value) -> Void = { _ in },
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await withDeadline(
            deadline, grace: grace, orThrow: Expired(deadline: deadline, stage: stage), leaving: late,
            sleep: { try await clock.sleep(for: $0) }, work)
    }
}
