import Logging
import MonitorConcurrency
import NIOCore
import NIOPosix
import PostgresNIO

/// The connections of one store to its database: opened when needed, at most `limit` at once, each lent to one
/// transaction at a time. A connection that failed is closed rather than lent again; one whose opening takes longer
/// than the deadline is given up (and closed if it opens after all).
actor PostgresConnections {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    /// The clock the deadline of a new connection's opening is timed on.
    private let clock: any Clock<Duration>
    /// A place for each connection lent or being opened: transactions wait for one in order, and stop waiting when
    /// cancelled.
    private let places: AsyncSemaphore
    private var idle: [PostgresConnection] = []
    private var nextID = 0

    /// Connections made with `configuration`, at most `limit` at once, their openings timed on `clock`.
    init(configuration: PostgresConnection.Configuration, limit: Int, clock: any Clock<Duration>, logger: Logger) {
        self.configuration = configuration
        places = AsyncSemaphore(limit: limit)
        self.clock = clock
        self.logger = logger
    }

    deinit {
        for connection in idle { Self.close(connection) }
    }

    /// A connection for the caller alone, until it gives it back with ``release(_:broken:)``. Waiting for one
    /// ends when the caller is cancelled (a stopping run, a test's time limit): nothing waits for a connection that
    /// may never come back. A new connection that is not open within `deadline` is given up (``PostgresDeadline``).
    func lease(within deadline: Duration) async throws -> PostgresConnection {
        // A free place is taken even by a cancelled caller (a stopping run's last commit); only waiting is not.
        if !places.tryAcquire() { try await places.acquire() }
        while let connection = idle.popLast() {
            if !connection.isClosed { return connection }
        }
        nextID += 1
        let (configuration, id, logger) = (configuration, nextID, logger)
        do {
            // A server that accepts the connection and then says nothing must not hold the caller.
            return try await PostgresDeadline.race(within: deadline, stage: .connecting, on: clock, late: Self.close) {
                try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id,
                    logger: logger)
            }
        } catch {
            places.release()
            throw error
        }
    }

    /// Gives `connection` back to the idle ones, or closes it when `broken`; its place goes to the next waiting
    /// transaction at once, even if the connection takes long to close.
    func release(_ connection: PostgresConnection, broken: Bool = false) {
        if broken || connection.isClosed {
            Self.close(connection)
        } else {
            idle.append(connection)
        }
        places.release()
    }

    /// Closes `connection`, keeping it until it is closed (a connection must not go before).
    private static func close(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }
}
