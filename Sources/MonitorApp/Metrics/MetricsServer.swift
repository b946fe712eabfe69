import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The HTTP/1.1 server of `run --metrics`: `GET /metrics` answers the metrics in the Prometheus text format,
/// `/healthz` the run's health (200 `ok`, or 503 with a line for each problem), `/readyz` whether it is ready (200
/// once every feed is scheduled, 503 before and while it stops); `HEAD` their heads, any other path 404, any other
/// method 405, a request that is not HTTP/1.x 400. A service of the run's group: it serves from
/// ``bind(_:export:health:readiness:limits:)`` until a graceful shutdown or cancellation, then closes its socket and
/// connections. Its ``Limits`` keep slow, idle and too many clients from holding descriptors.
final class MetricsServer: Service, Sendable {
    private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// How long a client may be slow or idle, and how many connections are held at once.
    struct Limits: Sendable {
        /// A request head must arrive whole within this time of the connection's opening; once it has, the rest of
        /// the request and its answer must be done within it too.
        var headTimeout: TimeAmount = .seconds(10)
        /// A kept-alive connection is closed when no whole request head arrives within this time of the previous
        /// answer (longer than the usual scrape intervals, so that a scraper's connection is reused).
        var idleTimeout: TimeAmount = .minutes(2)
        /// The most connections held at once: one more closes the one that has been quiet the longest.
        var connections = 32

        /// The limits of `monitor run`: the defaults, with at most a quarter of the open-files limit for connections,
        /// so that the feeds keep the rest whatever that limit is.
        static var standard: Limits {
            var limits = Limits()
            limits.connections = max(1, min(limits.connections, OpenFileLimit.current / 4))
            return limits
        }
    }

    /// Why the server could not listen.
    struct BindError: Error, CustomStringConvertible {
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
    private let health: RunHealth
    private let readiness: ServiceReadiness

    private init(
        address: MetricsAddress, listener: NIOAsyncChannel<Connection, Never>, export: MetricsExport,
        health: RunHealth, readiness: ServiceReadiness
    ) {
        self.address = address
        self.listener = listener
        self.export = export
        self.health = health
        self.readiness = readiness
    }

    /// Listens on `address` to serve `export`, `health` and `readiness`; throws a ``BindError`` saying why it cannot
    /// (the port in use, an address that is not this machine's, a port that needs privileges).
    static func bind(
        _ address: MetricsAddress, export: MetricsExport, health: RunHealth = RunHealth(),
        readiness: ServiceReadiness = ServiceReadiness(), limits: Limits = .standard
    ) async throws -> MetricsServer {
        let connections = MetricsConnections(limit: limits.connections)
        let listener: NIOAsyncChannel<Connection, Never>
        do {
            listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(connections.admission())
                    }
                }
                // A client that shuts its side after the request (`nc -N`) still gets the answer.
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .bind(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try configure(channel, connections: connections, limits: limits)
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
        return MetricsServer(address: bound, listener: listener, export: export, health: health, readiness: readiness)
    }

    /// Sets up the handlers of an accepted connection: HTTP/1.1, then the deadlines of `limits`; on its event loop.
    static func configure(_ channel: any Channel, connections: MetricsConnections, limits: Limits) throws {
        // No error handling of NIO's: it can answer one malformed request twice; serve() answers it.
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
        try channel.pipeline.syncOperations.addHandler(connections.deadlines(limits))
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
                    do {
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
                    } catch let error as HTTPParserError {
                        // A method the parser does not know: one 405; not HTTP/1.x: one 400. Then the connection is
                        // closed (the stream ends at its first error).
                        let (response, body) = Self.refusal(error == .invalidMethod)
                        try await outbound.write(contentsOf: [
                            .head(response), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil),
                        ])
                    }
                }
            } catch {
                // The client went away, or was closed for being slow, idle or the quietest beyond the limit.
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// The answer to `request`: its head and body (none for `HEAD`, whose head says the length of `GET`'s).
    func answer(_ request: HTTPRequestHead) -> (HTTPResponseHead, [UInt8]) {
        var headers = HTTPHeaders()
        let status: HTTPResponseStatus
        var body: [UInt8]
        let path = Self.path(of: request.uri)
        if !["/metrics", "/healthz", "/readyz"].contains(path) {
            status = .notFound
            body = Array("not found: the metrics are at /metrics\n".utf8)
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        } else if request.method != .GET && request.method != .HEAD {
            status = .methodNotAllowed
            body = Array("method not allowed: GET or HEAD \(path)\n".utf8)
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Allow", value: "GET, HEAD")
        } else if path == "/metrics" {
            status = .ok
            body = export.text()
            headers.add(name: "Content-Type", value: MetricsExport.contentType)
        } else {
            (status, body) = path == "/healthz" ? healthz() : readyz()
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        }
        headers.add(name: "Content-Length", value: String(body.count))
        if !request.isKeepAlive {
            headers.add(name: "Connection", value: "close")
        } else if request.version == .http1_0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        if request.method == .HEAD { body = [] }
        return (HTTPResponseHead(version: request.version, status: status, headers: headers), body)
    }

    /// `/healthz`: 200 `ok`, or 503 with a line for each problem; a rejected reload of the feeds file is a line
    /// after `ok` (or before the problems).
    private func healthz() -> (HTTPResponseStatus, [UInt8]) {
        let problems = health.problems(now: Date())
        let note = health.rejectedReload.map { [$0] } ?? []
        guard !problems.isEmpty else { return (.ok, Array((["ok"] + note).map { $0 + "\n" }.joined().utf8)) }
        return (.serviceUnavailable, Array((note + problems).map { $0 + "\n" }.joined().utf8))
    }

    /// `/readyz`: 200 `ready` once every feed is scheduled, 503 `not ready` before and while stopping.
    private func readyz() -> (HTTPResponseStatus, [UInt8]) {
        readiness.isReady ? (.ok, Array("ready\n".utf8)) : (.serviceUnavailable, Array("not ready\n".utf8))
    }

    /// The path of a request target, without its query: of the origin form (`/metrics?x`), or of the absolute form
    /// a proxy sends (`http://host:port/metrics`, RFC 9112 §3.2.2), whose host is not checked.
    static func path(of target: String) -> Substring {
        var rest = Substring(target)
        if let separator = rest.range(of: "://"),
            ["http", "https"].contains(rest[..<separator.lowerBound].lowercased())
        {
            let authority = rest[separator.upperBound...]
            rest = authority[(authority.firstIndex { $0 == "/" || $0 == "?" } ?? authority.endIndex)...]
        }
        return rest.prefix { $0 != "?" }
    }

    /// The answer to a request whose method the parser does not know (405), or that is not HTTP/1.x (400), after
    /// which the connection is closed.
    private static func refusal(_ unknownMethod: Bool) -> (HTTPResponseHead, [UInt8]) {
        let body = Array(
            (unknownMethod ? "method not allowed: GET or HEAD\n" : "bad request: this is not an HTTP/1.1 request\n")
                .utf8)
        var headers: HTTPHeaders = [
            "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.count), "Connection": "close",
        ]
        if unknownMethod { headers.add(name: "Allow", value: "GET, HEAD") }
        let status: HTTPResponseStatus = unknownMethod ? .methodNotAllowed : .badRequest
        return (HTTPResponseHead(version: .http1_1, status: status, headers: headers), body)
    }
}
