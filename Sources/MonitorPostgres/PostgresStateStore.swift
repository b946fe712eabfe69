import Foundation
import Logging
import MonitorCore
import NIOSSL
import PostgresNIO
import Synchronization

/// The state in a PostgreSQL database: the same tables, guarantees and answers as `SQLiteStateStore`.
///
/// A poll's results are written in one transaction, which first takes the lock of the feed's row, so that two
/// writers of one feed (two processes) follow each other; a failed or interrupted transaction is rolled back and
/// changes nothing. Items are written in a few statements whatever their number (arrays unnested by the server),
/// and read newest first, ties by id descending, through the indexes. The schema is created and migrated by
/// ``open(_:logger:)``, never by ``reading(_:logger:)``.
///
/// No call waits on the server for more than a deadline (``PostgresDeadline/standard``): past it, or
/// ``PostgresDeadline/grace`` after the caller was cancelled, the call returns with a ``StateError``, its connection
/// is closed and never lent again, and the server rolls back what the call had begun.
package final class PostgresStateStore: StateStoring {
    /// The database.
    package let url: PostgresURL
    private let connections: PostgresConnections
    private let readOnly: Bool
    let logger: Logger
    private let deadlineSetting: Mutex<Duration>
    /// The clock the deadlines are timed on: the system's, or a test's.
    private let clock: any Clock<Duration>

    /// The database's URL without its password.
    package var location: String { url.description }

    private init(
        url: PostgresURL, readOnly: Bool, deadline: Duration, clock: any Clock<Duration>, logger: Logger
    ) throws {
        self.url = url
        self.readOnly = readOnly
        self.logger = logger
        self.deadlineSetting = Mutex(deadline)
        self.clock = clock
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: .disable)
        switch url.tls {
        case .disable:
            break
        case .prefer, .require, .verifyFull:
            var tls = TLSConfiguration.makeClientConfiguration()
            // As libpq: only verify-full checks the certificate (prefer and require only encrypt).
            if url.tls != .verifyFull { tls.certificateVerification = .none }
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: tls)
            } catch {
                throw StateError("cannot connect to \(url): TLS cannot be set up")
            }
            configuration.tls = url.tls == .prefer ? .prefer(context) : .require(context)
        }
        configuration.options.connectTimeout = .seconds(10)
        connections = PostgresConnections(configuration: configuration, limit: 8, clock: clock, logger: logger)
    }

    /// How long one call waits for the server: for a new connection to open, then for the call's last answer
    /// (``PostgresDeadline/standard`` unless the store was opened with another); a test shortens it for one call.
    var deadline: Duration {
        get { deadlineSetting.withLock { $0 } }
        set { deadlineSetting.withLock { $0 = newValue } }
    }

    /// A logger that says nothing: the store's errors are thrown, not logged.
    package static let silent = Logger(label: "monitor-postgres") { _ in SwiftLogNoOpLogHandler() }

    /// Opens the state in the database at `url`, creating or migrating its tables when needed; each call to the
    /// server is given `deadline`, timed on `clock`.
    package static func open(
        _ url: PostgresURL, logger: Logger = silent, deadline: Duration = PostgresDeadline.standard,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> PostgresStateStore {
        let store = try PostgresStateStore(
            url: url, readOnly: false, deadline: deadline, clock: clock, logger: logger)
        _ = try await store.transaction { connection in
            try await PostgresSchema.migrate(connection, logger: logger) { Self.newerVersion(url, version: $0) }
        }
        return store
    }

    /// Opens the state in the database at `url` for reading only, nil when it holds none yet: nothing is created
    /// or written (a state of an earlier version is brought up to date first, when it may be written). A store
    /// opened so refuses `commit`. Each call to the server is given `deadline`.
    package static func reading(
        _ url: PostgresURL, logger: Logger = silent, deadline: Duration = PostgresDeadline.standard
    ) async throws -> PostgresStateStore? {
        let store = try PostgresStateStore(
            url: url, readOnly: true, deadline: deadline, clock: ContinuousClock(), logger: logger)
        let version = try await store.transaction { connection in
            try await PostgresSchema.version(connection, logger: logger)
        }
        guard let version else { return nil }
        if version > PostgresSchema.latest { throw newerVersion(url, version: version) }
        if version < PostgresSchema.latest {
            do {
                _ = try await open(url, logger: logger, deadline: deadline)
            } catch {
                throw StateError(
                    "\(url) was written by an earlier version of monitor and must be brought up to date by a command "
                        + "that may write it (`monitor run --once`), but it cannot be written here")
            }
        }
        return store
    }

    /// The database at `url` holds a schema of `version`, later than this `monitor`'s.
    private static func newerVersion(_ url: PostgresURL, version: Int) -> StateError {
        StateError(
            "\(url) was written by a newer version of monitor (schema version \(version); this monitor's is "
                + "\(PostgresSchema.latest)): upgrade monitor to use it")
    }

    // MARK: - Transactions

    /// Runs `body`, which sends one statement, on a connection of its own, outside of a transaction block: the
    /// statement is its own transaction, in one round trip instead of three (`BEGIN`, it, `COMMIT`). A store opened
    /// for reading runs it in a read-only ``transaction(_:)``. Errors become ``StateError``s about the URL.
    func statement<Value: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        if readOnly { return try await transaction(body) }
        return try await answered { connection in
            do {
                return .value(try await body(connection))
            } catch {
                return .failed(error, broken: false)
            }
        }
    }

    /// Runs `body` in one transaction on a connection of its own (read-only for a store opened for reading):
    /// committed when it returns, rolled back when it throws. Errors become ``StateError``s about the URL.
    func transaction<Value: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let (readOnly, logger) = (readOnly, logger)
        return try await answered { connection in
            do {
                try await connection.query(readOnly ? "BEGIN READ ONLY" : "BEGIN", logger: logger)
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return .value(value)
            } catch let failure {
                // A connection the failure ended has nothing to roll back (the server does it), and a ROLLBACK sent on
                // it would never be answered (PostgresNIO drops what is written to a closed connection): the call
                // would wait for its deadline. It is closed at once.
                if connection.isClosed || PostgresFailure.endsConnection(failure) {
                    return .failed(failure, broken: true)
                }
                do {
                    try await connection.query("ROLLBACK", logger: logger)
                } catch {
                    return .failed(failure, broken: true)
                }
                return .failed(failure, broken: false)
            }
        }
    }

    /// What a call's work on its connection came to.
    private enum Outcome<Value: Sendable>: Sendable {
        /// Its value; the connection may be lent again.
        case value(Value)
        /// Its error; the connection is closed when `broken`.
        case failed(any Error, broken: Bool)
    }

    /// Runs `work` on a connection of its own, within the deadline, and gives the connection back. Past the deadline,
    /// or the grace after the caller was cancelled, returns whatever the work still waits for: the connection is closed
    /// (the server rolls back the transaction open on it) and its place is free. Errors become ``StateError``s about
    /// the URL.
    private func answered<Value: Sendable>(
        _ work: @escaping @Sendable (PostgresConnection) async -> Outcome<Value>
    ) async throws -> Value {
        let deadline = deadline
        let connection: PostgresConnection
        do {
            connection = try await connections.lease(within: deadline)
        } catch {
            throw PostgresFailure.stateError(error, url: url)
        }
        let outcome: Outcome<Value>
        do {
            outcome = try await PostgresDeadline.race(within: deadline, stage: .answering, on: clock) {
                await work(connection)
            }
        } catch {
            await connections.release(connection, broken: true)
            throw PostgresFailure.stateError(error, url: url)
        }
        switch outcome {
        case .value(let value):
            await connections.release(connection)
            return value
        case .failed(let error, let broken):
            await connections.release(connection, broken: broken)
            throw PostgresFailure.stateError(error, url: url)
        }
    }

    // MARK: - Writing

    @discardableResult
    package func commit(_ commit: PollCommit, feed: String) async throws -> CommitStatistics {
        try await transaction { connection in
            try await PostgresCommit(connection: connection, feed: feed, logger: self.logger).write(commit)
        }
    }
}
