import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The HTTP/1.1 server of `run --metrics`: `GET /metrics` answers the metrics in the Prometheus text format,
/// any other path 404, any other method on it 405. A service of the run's group: it serves from
/// ``bind(_:export:)`` until a graceful shutdown or cancellation, then closes its socket and connections.
final class MetricsServer: Service, Sendable {
    private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// Why the server could not listen.
    struct BindError: Error, CustomStringConvertible {
        /// The address asked for.
        var address: MetricsAddress
        /// What went wrong, in words.
        var reason: String

        var description: String {
            let shown = address.host.contains(":") ? "[\(address.host)]" : address.host
            return "cannot serve metrics on \(shown):\(address.port): \(reason)"
        }
    }

    /// The address listened on, with the port chosen when 0 was asked.
    let address: MetricsAddress
    private let listener: NIOAsyncChannel<Connection, Never>
    private let export: MetricsExport

    private init(address: MetricsAddress, listener: NIOAsyncChannel<Connection, Never>, export: MetricsExport) {
        self.address = address
        self.listener = listener
        self.export = export
    }

    /// Listens on `address`; throws a ``BindError`` saying why it cannot (the port in use, an address that is
    /// not this machine's, a port that needs privileges).
    static func bind(_ address: MetricsAddress, export: MetricsExport) async throws -> MetricsServer {
        let listener: NIOAsyncChannel<Connection, Never>
        do {
            listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 64)
                .bind(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError {
            throw BindError(address: address, reason: Self.reason(error.errnoCode))
        } catch {
            throw BindError(address: address, reason: "\(error)")
        }
        var bound = address
        bound.port = listener.channel.localAddress?.port ?? address.port
        return MetricsServer(address: bound, listener: listener, export: export)
    }

    private static func reason(_ code: Int32) -> String {
        switch code {
        case EADDRINUSE: "the port is already in use"
        case EADDRNOTAVAIL: "the address is not one of this machine's"
        case EACCES: "permission denied (ports below 1024 need privileges)"
        default: String(cString: strerror(code))
        }
    }

    /// Serves until a graceful shutdown or cancellation; then closes the socket and every connection.
    func run() async throws {
        try await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                do {
                    try await listener.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask { await self.serve(connection) }
                        }
                    }
                } catch {
                    // The listener was closed: shutting down.
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.listener.channel.close(promise: nil)
        }
    }

    /// Answers the requests of `connection` one after another until either side closes it, or cancellation does.
    private func serve(_ connection: Connection) async {
        let channel = connection.channel
        await withTaskCancellationHandler {
            do {
                try await connection.executeThenClose { inbound, outbound in
                    var head: HTTPRequestHead?
                    for try await part in inbound {
                        switch part {
                        case .head(let request):
                            head = request
                        case .body:
                            continue
                        case .end:
                            guard let request = head else { continue }
                            head = nil
                            let (response, body) = answer(request)
                            try await outbound.write(contentsOf: [
                                .head(response), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil),
                            ])
                            if !request.isKeepAlive { return }
                        }
                    }
                }
            } catch {
                // The client went away or sent something that is not HTTP.
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// The answer to `request`: its head and body.
    func answer(_ request: HTTPRequestHead) -> (HTTPResponseHead, [UInt8]) {
        let path = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var headers = HTTPHeaders()
        let status: HTTPResponseStatus
        let body: [UInt8]
        if path != "/metrics" {
            status = .notFound
            body = Array("not found: the metrics are at /metrics\n".utf8)
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        } else if request.method != .GET {
            status = .methodNotAllowed
            body = Array("method not allowed: GET /metrics\n".utf8)
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Allow", value: "GET")
        } else {
            status = .ok
            body = export.text()
            headers.add(name: "Content-Type", value: MetricsExport.contentType)
        }
        headers.add(name: "Content-Length", value: String(body.count))
        if !request.isKeepAlive {
            headers.add(name: "Connection", value: "close")
        } else if request.version == .http1_0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        return (HTTPResponseHead(version: request.version, status: status, headers: headers), body)
    }
}
