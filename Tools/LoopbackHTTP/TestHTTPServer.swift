import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on `127.0.0.1` and an ephemeral port, for tests that run a real HTTP client against it.
///
/// Each connection is kept alive as long as the client wants and serves its requests one after another; requests on
/// different connections are handled concurrently. Request bodies are recorded with their requests.
package final class TestHTTPServer: Sendable {
    /// The port the server listens on.
    package let port: Int
    private let listener: any Channel
    private let state: NIOLockedValueBox<ServerState>
    private let serving: Task<Void, Never>

    private init(port: Int, listener: any Channel, state: NIOLockedValueBox<ServerState>, serving: Task<Void, Never>) {
        self.port = port
        self.listener = listener
        self.state = state
        self.serving = serving
    }

    private static let reusePort = ChannelOptions.Types.SocketOption(
        level: .socket, name: .init(rawValue: SO_REUSEPORT))

    /// Starts a server whose answers come from `handler` (called concurrently, once per request), on `port` of
    /// 127.0.0.1 (0, the default, picks a free one).
    ///
    /// When the server shuts down, a handler still running is cancelled and no longer waited for.
    package static func start(
        port: Int = 0, _ handler: @escaping @Sendable (RecordedRequest) async -> TestResponse
    ) async throws -> TestHTTPServer {
        let state = NIOLockedValueBox(ServerState())
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // A port held by a RefusingPort (a receiver that was down) can be bound with port reuse only.
            .serverChannelOption(Self.reusePort, value: port == 0 ? 0 : 1)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let id = ObjectIdentifier(channel)
                    let accepted = state.withLockedValue { state in
                        guard !state.isShutDown else { return false }
                        state.connections[id] = channel
                        return true
                    }
                    guard accepted else {
                        channel.close(promise: nil)
                        throw ChannelError.ioOnClosedChannel
                    }
                    channel.closeFuture.whenComplete { _ in
                        state.withLockedValue { $0.connections[id] = nil }
                    }
                    return try HTTPConnection.configure(channel)
                }
            }
        guard let port = listener.channel.localAddress?.port else {
            try? await listener.channel.close()
            throw ChannelError.unknownLocalAddress
        }
        let serving = Task {
            await withDiscardingTaskGroup { group in
                do {
                    try await listener.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await HTTPConnection.serve(connection, handler: handler, state: state) }
                        }
                    }
                } catch {
                    // The listener was closed or the task cancelled: shutting down.
                }
                group.cancelAll()
            }
        }
        return TestHTTPServer(port: port, listener: listener.channel, state: state, serving: serving)
    }

    deinit {
        // A server that was never shut down still closes its socket and connections once it is released.
        listener.close(promise: nil)
        serving.cancel()
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    package var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far (since the last ``resetCounters()``), in arrival order.
    ///
    /// A request is recorded as soon as its head arrives, before its handler is called.
    package var requests: [RecordedRequest] { state.withLockedValue { $0.requests } }

    /// The most requests handled at once, from the arrival of a request's head until its response is fully handed
    /// to the connection (just before its last bytes are written, so a client that has a whole response never sees it
    /// still counted).
    package var maxInFlight: Int { state.withLockedValue { $0.maxInFlight } }

    /// The number of requests being handled now; a hanging request counts until its connection closes.
    package var inFlight: Int { state.withLockedValue { $0.inFlight } }

    /// Waits until exactly `count` requests are in flight (see ``inFlight``).
    ///
    /// The wait is event-driven, with no real-time deadline: cancelling the waiting task ends it.
    package func waitForInFlight(_ count: Int) async throws {
        try await wait { inFlight, _ in inFlight == count }
    }

    /// Waits until at least `count` requests were received (see ``requests``).
    ///
    /// The wait is event-driven, with no real-time deadline: cancelling the waiting task ends it.
    package func waitForRequests(_ count: Int) async throws {
        try await wait { _, requests in requests >= count }
    }

    private func wait(until condition: @escaping @Sendable (_ inFlight: Int, _ requests: Int) -> Bool) async throws {
        let id = state.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.withLockedValue { state in
                    if condition(state.inFlight, state.requests.count) {
                        continuation.resume()
                    } else if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        state.waiters[id] = ServerState.Waiter(condition: condition, continuation: continuation)
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLockedValue { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// How many responses the server gave up because their connection closed before they were complete (a client
    /// that timed out on a hanging or trickling response, or a shutdown).
    package var abandonedResponses: Int { state.withLockedValue { $0.abandoned } }

    /// Waits until ``abandonedResponses`` is at least `count`.
    package func waitForAbandonedResponses(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state in
                guard state.abandoned < count else { return true }
                state.abandonWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Clears ``requests`` and ``maxInFlight`` (which starts again from the requests in flight now, 0 when idle).
    package func resetCounters() {
        state.withLockedValue { state in
            state.requests = []
            state.resets += 1
            state.maxInFlight = state.inFlight
            state.wakeWaiters()
        }
    }

    /// Closes the listening socket and every open connection (also those with a hanging request or a running
    /// handler), and waits until they are closed; calling it again does nothing more.
    package func shutdown() async throws {
        let connections = state.withLockedValue { state in
            state.isShutDown = true
            return Array(state.connections.values)
        }
        listener.close(promise: nil)
        for connection in connections {
            connection.close(promise: nil)
        }
        serving.cancel()
        await serving.value
        try? await listener.closeFuture.get()
        for connection in connections {
            try? await connection.closeFuture.get()
        }
    }
}

/// Runs `body` with a started server and always shuts it down, also when `body` throws.
package func withTestHTTPServer<T: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ handler: @escaping @Sendable (RecordedRequest) async -> TestResponse,
    _ body: (TestHTTPServer) async throws -> T
) async throws -> T {
    let server = try await TestHTTPServer.start(handler)
    let result: T
    do {
        result = try await body(server)
    } catch {
        try? await server.shutdown()
        throw error
    }
    try await server.shutdown()
    return result
}
