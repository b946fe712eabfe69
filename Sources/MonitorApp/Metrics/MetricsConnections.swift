import NIOCore
import NIOHTTP1
import Synchronization

/// The connections the metrics server holds: at most `limit` at once, so that a flood of connections can never take
/// the descriptors the feeds need; one more closes the connection that has been quiet the longest, so that a flood of
/// idle ones cannot keep a scrape out either.
final class MetricsConnections: Sendable {
    private struct Held {
        var channel: any Channel
        /// When it last opened, received a request head or finished an answer, on this table's own count.
        var active: UInt64
    }

    private struct State {
        var held: [ObjectIdentifier: Held] = [:]
        var clock: UInt64 = 0
    }

    /// The most connections held at once.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes `channel` in; returns the connection to close to make room for it, if there was none left.
    private func admit(_ channel: any Channel) -> (any Channel)? {
        state.withLock { state in
            var quietest: (any Channel)?
            if state.held.count >= limit, let oldest = state.held.min(by: { $0.value.active < $1.value.active }) {
                state.held[oldest.key] = nil
                quietest = oldest.value.channel
            }
            state.clock += 1
            state.held[ObjectIdentifier(channel)] = Held(channel: channel, active: state.clock)
            return quietest
        }
    }

    /// Notes that `channel` is active now.
    private func touch(_ channel: any Channel) {
        state.withLock { state in
            state.clock += 1
            state.held[ObjectIdentifier(channel)]?.active = state.clock
        }
    }

    private func remove(_ channel: any Channel) {
        state.withLock { state in
            if state.held[ObjectIdentifier(channel)]?.channel === channel {
                state.held[ObjectIdentifier(channel)] = nil
            }
        }
    }

    /// The handler of the listening socket that admits each accepted connection.
    func admission() -> some ChannelInboundHandler { Admission(connections: self) }

    /// The handler of a connection that closes it when a client is too slow or idle too long.
    func deadlines(_ limits: MetricsServer.Limits) -> some ChannelDuplexHandler {
        Deadlines(connections: self, limits: limits)
    }

    // MARK: - Handlers

    /// On the listening socket, before the bootstrap's own handlers: admits each accepted connection, closing the
    /// quietest one beyond the limit, and forgets it when it closes.
    private final class Admission: ChannelInboundHandler {
        typealias InboundIn = any Channel
        typealias InboundOut = any Channel

        let connections: MetricsConnections

        init(connections: MetricsConnections) {
            self.connections = connections
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let channel = Self.unwrapInboundIn(data)
            connections.admit(channel)?.close(promise: nil)
            let connections = self.connections
            channel.closeFuture.whenComplete { _ in connections.remove(channel) }
            context.fireChannelRead(data)
        }
    }

    /// On a connection, after the HTTP handlers: a request head must arrive whole within the head timeout of the
    /// connection's opening (then the rest of the request and its answer within it again), the next one within the
    /// idle timeout of the previous answer; otherwise the connection is closed.
    private final class Deadlines: ChannelDuplexHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        typealias OutboundOut = HTTPServerResponsePart

        let connections: MetricsConnections
        let limits: MetricsServer.Limits
        private var deadline: Scheduled<Void>?

        init(connections: MetricsConnections, limits: MetricsServer.Limits) {
            self.connections = connections
            self.limits = limits
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { closeAfter(limits.headTimeout, context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            if deadline == nil { closeAfter(limits.headTimeout, context) }
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head = Self.unwrapInboundIn(data) {
                connections.touch(context.channel)
                closeAfter(limits.headTimeout, context)
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = Self.unwrapOutboundIn(data) {
                connections.touch(context.channel)
                closeAfter(limits.idleTimeout, context)
            }
            context.write(data, promise: promise)
        }

        func channelInactive(context: ChannelHandlerContext) {
            deadline?.cancel()
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            deadline?.cancel()
        }

        private func closeAfter(_ timeout: TimeAmount, _ context: ChannelHandlerContext) {
            deadline?.cancel()
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                context.close(promise: nil)
            }
        }
    }
}
