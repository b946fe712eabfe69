import Foundation
import MonitorPostgres
import NIOCore
import NIOPosix
import TestSupport

@testable import MonitorCore

/// A TCP relay on 127.0.0.1 between a store and the test PostgreSQL server, which can be told to go silent: the
/// sockets on both sides of every connection stay open, but nothing more is forwarded (what arrives is held, in
/// order) until it is told to forward again — a server that says nothing, without closing anything. It can be told to
/// refuse too, as a server that stopped: it closes every connection and stops listening (a connection is refused)
/// until it is told to forward again, listening again on the same port — which it keeps bound meanwhile, so that no
/// other test's server is given it. It can be told to end the connection on which a client sends some text, as a
/// server that ends a connection in the middle of a call.
///
/// It counts the connections it accepted and which side ended each (``connections``), and the bytes it held
/// (``held``), for the tests to wait on. A connection ended on one side is ended on the other. ``stop()`` ends it.
package final class PostgresRelay: Sendable {
    /// The relay's connections so far.
    package struct Connections: Sendable, Equatable, CustomStringConvertible {
        /// Connections accepted from clients.
        package var accepted: Int
        /// Connections that the client closed first.
        package var closedByClient: Int
        /// Connections that the server (or the relay failing to reach it) closed first.
        package var closedByServer: Int

        /// `accepted` connections, of which `closedByClient` and `closedByServer` are closed.
        package init(accepted: Int = 0, closedByClient: Int = 0, closedByServer: Int = 0) {
            self.accepted = accepted
            self.closedByClient = closedByClient
            self.closedByServer = closedByServer
        }

        package var description: String {
            "accepted \(accepted), closed by the client \(closedByClient), by the server \(closedByServer)"
        }
    }

    /// The port it listens on, on 127.0.0.1.
    package let port: Int
    /// The connections so far, changed as they come and go.
    package let connections: Watched<Connections>
    /// The bytes held (not forwarded) while silent, in both directions, so far.
    package let held: Watched<Int>
    private let core: RelayCore

    private init(port: Int, core: RelayCore) {
        self.port = port
        self.core = core
        self.connections = core.connections
        self.held = core.held
    }

    /// A relay to the server listening on 127.0.0.1 at `port`, forwarding.
    package static func start(to port: Int) async throws -> PostgresRelay {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let core = RelayCore(loop: loop, target: port)
        let listener = try await core.listen(port: 0)
        guard let port = listener.localAddress?.port else {
            listener.close(promise: nil)
            throw PostgresServer.ServerError(description: "the relay has no port")
        }
        return PostgresRelay(port: port, core: core)
    }

    /// `url` through the relay: the same but for the port.
    package func relaying(_ url: PostgresURL) -> PostgresURL {
        var url = url
        url.host = "127.0.0.1"
        url.port = port
        return url
    }

    /// Goes silent now: nothing more is forwarded, either way, on any connection (new ones are accepted and held).
    package func silence() async throws {
        try await core.loop.submit { self.core.silent = true }.get()
    }

    /// Goes silent once a client sends `text` (in a query, say): that is still forwarded to the server, and nothing
    /// after it, either way — the server does what it was sent, but its answer never comes.
    package func silence(after text: String) async throws {
        let trigger = RelayCore.Trigger(text: Array(text.utf8), then: .silence)
        try await core.loop.submit { self.core.trigger = trigger }.get()
    }

    /// Ends the connection on which a client next sends `text` (in a query, say), as a server that ends a connection
    /// in the middle of a call: that is not forwarded, and both sides of that connection are closed (counted as
    /// closed by the server); the other connections go on.
    package func end(after text: String) async throws {
        let trigger = RelayCore.Trigger(text: Array(text.utf8), then: .end)
        try await core.loop.submit { self.core.trigger = trigger }.get()
    }

    /// Refuses from now on, as a server that stopped: stops listening (a new connection is refused) and closes every
    /// connection (not counted as closed by either side), until ``forward()``.
    package func refuse() async throws {
        let (core, port) = (core, port)
        try await core.loop.submit {
            guard let listener = core.listener else { return }
            guard let placeholder = RefusingPort(port: port) else {
                throw PostgresServer.ServerError(description: "cannot hold port \(port)")
            }
            core.placeholder = placeholder
            listener.close(promise: nil)
            core.listener = nil
            core.stop()
        }.get()
    }

    /// Forwards again, what it held first; after ``refuse()``, listening again on the same port.
    package func forward() async throws {
        let core = core
        let listening = try await core.loop.submit {
            core.forward()
            return core.listener != nil
        }.get()
        if !listening {
            _ = try await core.listen(port: port)
            try await core.loop.submit { core.placeholder = nil }.get()
        }
    }

    /// Stops listening and closes every connection (not counted as closed by either side).
    package func stop() {
        let core = core
        core.loop.execute {
            core.listener?.close(promise: nil)
            core.listener = nil
            core.placeholder = nil
            core.stop()
        }
    }
}

/// The relay's state and work, all on its one event loop.
private final class RelayCore: @unchecked Sendable {
    let loop: any EventLoop
    let target: Int
    let connections = Watched(PostgresRelay.Connections())
    let held = Watched(0)
    /// Bytes from a client that make the relay go silent or end their connection.
    struct Trigger {
        enum Action {
            /// Forwards them, then nothing more (``PostgresRelay/silence(after:)``).
            case silence
            /// Ends their connection without forwarding them (``PostgresRelay/end(after:)``).
            case end
        }

        var text: [UInt8]
        var then: Action
    }

    /// Whether nothing is forwarded.
    var silent = false
    /// What a client's bytes make the relay do.
    var trigger: Trigger?
    /// Where it listens, nil while it refuses.
    var listener: (any Channel)?
    /// What keeps its port while it refuses.
    var placeholder: RefusingPort?
    private var pairs: [ObjectIdentifier: RelayPair] = [:]

    init(loop: any EventLoop, target: Int) {
        self.loop = loop
        self.target = target
    }

    /// Listens on 127.0.0.1 at `port` (0: a free port), and returns where.
    func listen(port: Int) async throws -> any Channel {
        let listener = try await ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            // Shares the port with the ``RefusingPort`` that holds it while the relay refuses.
            .serverChannelOption(
                ChannelOptions.Types.SocketOption(level: .socket, name: .init(rawValue: SO_REUSEPORT)), value: 1
            )
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture { try self.accepted(child) }
            }
            .bind(host: "127.0.0.1", port: port).get()
        try await loop.submit { self.listener = listener }.get()
        return listener
    }

    /// A client connected: the relay connects to the server for it.
    func accepted(_ client: any Channel) throws {
        loop.preconditionInEventLoop()
        let pair = RelayPair(client: client)
        pairs[ObjectIdentifier(pair)] = pair
        connections.update { $0.accepted += 1 }
        try client.pipeline.syncOperations.addHandler(RelaySide(core: self, pair: pair, fromClient: true))
        ClientBootstrap(group: loop)
            .channelInitializer { server in
                server.eventLoop.makeCompletedFuture {
                    try server.pipeline.syncOperations.addHandler(
                        RelaySide(core: self, pair: pair, fromClient: false))
                }
            }
            .connect(host: "127.0.0.1", port: target)
            .whenComplete { result in self.connected(pair, result) }
    }

    private func connected(_ pair: RelayPair, _ result: Result<any Channel, any Error>) {
        switch result {
        case .success(let server):
            guard !pair.ended else { return server.close(promise: nil) }
            pair.server = server
            if !silent { flush(pair) }
        case .failure:
            pair.client.close(promise: nil)
        }
    }

    /// `buffer` came from the client (or the server) of `pair`.
    func received(_ buffer: ByteBuffer, pair: RelayPair, fromClient: Bool) {
        if silent {
            if fromClient { pair.toServer.append(buffer) } else { pair.toClient.append(buffer) }
            held.update { $0 += buffer.readableBytes }
            return
        }
        var action: Trigger.Action?
        if fromClient, let trigger {
            pair.seen.append(contentsOf: buffer.readableBytesView)
            if pair.seen.firstRange(of: trigger.text) != nil {
                action = trigger.then
                self.trigger = nil
                pair.seen = []
            } else {
                pair.seen = Array(pair.seen.suffix(trigger.text.count - 1))
            }
        }
        if action == .end { return end(pair) }
        if fromClient { pair.toServer.append(buffer) } else { pair.toClient.append(buffer) }
        flush(pair)
        if action == .silence { silent = true }
    }

    /// Ends `pair` as its server would: both sides are closed, counted as closed by the server.
    private func end(_ pair: RelayPair) {
        guard !pair.ended else { return }
        pair.ended = true
        pairs[ObjectIdentifier(pair)] = nil
        connections.update { $0.closedByServer += 1 }
        pair.server?.close(promise: nil)
        pair.client.close(promise: nil)
    }

    /// One side of `pair` closed: the other is closed too.
    func closed(_ pair: RelayPair, fromClient: Bool) {
        guard !pair.ended else { return }
        pair.ended = true
        pairs[ObjectIdentifier(pair)] = nil
        if fromClient {
            connections.update { $0.closedByClient += 1 }
            pair.server?.close(promise: nil)
        } else {
            connections.update { $0.closedByServer += 1 }
            pair.client.close(promise: nil)
        }
    }

    func forward() {
        silent = false
        trigger = nil
        for pair in pairs.values { flush(pair) }
    }

    func stop() {
        let all = pairs.values
        pairs = [:]
        for pair in all {
            pair.ended = true
            pair.client.close(promise: nil)
            pair.server?.close(promise: nil)
        }
    }

    /// Writes what `pair` has for each side (to the server once it is connected).
    private func flush(_ pair: RelayPair) {
        if let server = pair.server, !pair.toServer.isEmpty {
            let buffers = pair.toServer
            pair.toServer = []
            for buffer in buffers { server.write(buffer, promise: nil) }
            server.flush()
        }
        if !pair.toClient.isEmpty {
            let buffers = pair.toClient
            pair.toClient = []
            for buffer in buffers { pair.client.write(buffer, promise: nil) }
            pair.client.flush()
        }
    }
}

/// One connection through the relay: the client's channel, the server's, and what is to be written to each.
private final class RelayPair: @unchecked Sendable {
    let client: any Channel
    var server: (any Channel)?
    var toServer: [ByteBuffer] = []
    var toClient: [ByteBuffer] = []
    /// The last bytes from the client, where the trigger is looked for.
    var seen: [UInt8] = []
    /// Whether one side closed.
    var ended = false

    init(client: any Channel) {
        self.client = client
    }
}

/// The handler of one side of a relayed connection: what it reads and its end go to the relay.
private final class RelaySide: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let core: RelayCore
    private let pair: RelayPair
    private let fromClient: Bool

    init(core: RelayCore, pair: RelayPair, fromClient: Bool) {
        self.core = core
        self.pair = pair
        self.fromClient = fromClient
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        core.received(unwrapInboundIn(data), pair: pair, fromClient: fromClient)
    }

    func channelInactive(context: ChannelHandlerContext) {
        core.closed(pair, fromClient: fromClient)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
