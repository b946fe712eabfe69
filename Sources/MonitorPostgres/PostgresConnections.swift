import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The connections of one store to its database: opened when needed, at most `limit` at once, each lent to one
/// transaction at a time. A connection that failed is closed rather than lent again; one whose opening takes longer
/// than the deadline is given up (and closed if it opens after all).
actor PostgresConnections {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let limit: Int
    /// The clock the deadline of a new connection's opening is timed on.
    private let clock: any Clock<Duration>
    private var idle: [PostgresConnection] = []
    /// Connections open or being opened.
    private var count = 0
    private var nextID = 0
    /// Transactions waiting for a connection, in order: each is handed one, or nil when it may open one itself. Under
    /// a lock, so that a cancelled one leaves the line at once, from its cancellation handler.
    private let waiting = Mutex<[(id: Int, continuation: CheckedContinuation<PostgresConnection?, any Error>)]>([])
    private var nextWaiter = 0

    /// Connections made with `configuration`, at most `limit` at once, their openings timed on `clock`.
    init(configuration: PostgresConnection.Configuration, limit: Int, clock: any Clock<Duration>, logger: Logger) {
        self.configuration = configuration
        self.limit = max(1, limit)
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
        while let connection = idle.popLast() {
            if !connection.isClosed { return connection }
            count -= 1
        }
        if count >= limit {
            // Handed a connection, or the place of one that was closed.
            try Task.checkCancellation()
            nextWaiter += 1
            let id = nextWaiter
            let handed = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let cancelled = waiting.withLock { waiting in
                        if Task.isCancelled { return true }
                        waiting.append((id, continuation))
                        return false
                    }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                let waiter = waiting.withLock { waiting in
                    waiting.firstIndex { $0.id == id }.map { waiting.remove(at: $0) }
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
            if let handed { return handed }
        } else {
            count += 1
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
            giveUpPlace()
            throw error
        }
    }

    /// Gives `connection` back: to the next waiting transaction, else to the idle ones; closed when `broken` (its
    /// place is then free at once, even if the connection takes long to close).
    func release(_ connection: PostgresConnection, broken: Bool = false) {
        if broken || connection.isClosed {
            Self.close(connection)
            giveUpPlace()
        } else if let next = waiting.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            next.continuation.resume(returning: connection)
        } else {
            idle.append(connection)
        }
    }

    /// Closes `connection`, keeping it until it is closed (a connection must not go before).
    private static func close(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// A connection's place is free: a waiting transaction takes it, else there is one connection fewer.
    private func giveUpPlace() {
        if let next = waiting.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            next.continuation.resume(returning: nil)
        } else {
            count -= 1
        }
    }
}
