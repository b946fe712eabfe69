import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Serves the requests of one accepted connection, one after another, until either side closes it.
enum HTTPConnection {
    typealias AsyncConnection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// Bodies are handed to the connection in slices of this size (slices share the body's storage).
    private static let chunkSize = 1 << 20

    /// Sets up the HTTP/1.1 handlers on a just-accepted `channel` and wraps it; runs on the channel's event loop.
    static func configure(_ channel: any Channel) throws -> AsyncConnection {
        var encoder = HTTPResponseEncoder.Configuration()
        // NIO drops `Content-Length` from 204 and 304 responses and picks the framing itself; the server frames
        // every response on its own instead.
        encoder.automaticallySetFramingHeaders = false
        // Without pipelining assistance NIO keeps reading while a response is pending, so a client that closes the
        // connection during a hang or a delay is noticed at once.
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withEncoderConfiguration: encoder)
        return try AsyncConnection(wrappingChannelSynchronously: channel)
    }

    /// Answers every request on `connection` with `handler`, counting them in `state`; returns once the connection
    /// is closed. Cancellation closes the connection.
    static func serve(
        _ connection: AsyncConnection, handler: @escaping @Sendable (RecordedRequest) async -> TestResponse,
        state: NIOLockedValueBox<ServerState>
    ) async {
        let channel = connection.channel
        var unanswered = false
        await withTaskCancellationHandler {
            do {
                try await connection.executeThenClose { inbound, outbound in
                    var current: (request: RecordedRequest, head: HTTPRequestHead, place: (index: Int, resets: Int))?
                    for try await part in inbound {
                        switch part {
                        case .head(let head):
                            let request = RecordedRequest(
                                method: head.method.rawValue, uri: head.uri,
                                headers: head.headers.map { (name: $0.name, value: $0.value) })
                            let place = state.withLockedValue { $0.requestStarted(request) }
                            unanswered = true
                            current = (request, head, place)
                        case .body(let buffer):
                            current?.request.body += buffer.readableBytesView
                        case .end:
                            guard let (request, head, place) = current else { continue }
                            current = nil
                            if !request.body.isEmpty {
                                state.withLockedValue { $0.requestBody(request.body, at: place) }
                            }
                            guard let response = await HandlerCall.response(of: handler, to: request) else { return }
                            if response.hang {
                                try? await channel.closeFuture.get()
                                return
                            }
                            if response.delay > .zero {
                                try await Task.sleep(for: response.delay)
                            }
                            let keepAlive = try await write(response, answering: head, to: outbound) {
                                state.withLockedValue { $0.requestFinished() }
                                unanswered = false
                            }
                            if !keepAlive {
                                return
                            }
                        }
                    }
                }
            } catch {
                // The client went away, the request was malformed, or the server is shutting down.
            }
        } onCancel: {
            channel.close(promise: nil)
        }
        if unanswered {
            let waiters = state.withLockedValue { state in
                state.requestFinished()
                return state.requestAbandoned()
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Writes `response` to `outbound`, calling `finishing` just before the part that completes the response for the
    /// client is handed over; returns whether the connection stays open.
    private static func write(
        _ response: TestResponse, answering request: HTTPRequestHead,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, finishing: () -> Void
    ) async throws -> Bool {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        if !headers.contains(name: "content-length") && !headers.contains(name: "transfer-encoding") {
            headers.add(name: "Content-Length", value: String(response.body.count))
        }
        let keepAlive =
            request.isKeepAlive && !headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
        if !headers.contains(name: "connection") {
            if !keepAlive {
                headers.add(name: "Connection", value: "close")
            } else if request.version == .http1_0 {
                headers.add(name: "Connection", value: "keep-alive")
            }
        }
        let head = HTTPResponseHead(
            version: request.version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)

        var parts: [HTTPServerResponsePart] = [.head(head)]
        let mayHaveBody = request.method != .HEAD && head.status.mayHaveResponseBody
        if let interval = response.trickle, mayHaveBody, !response.body.isEmpty {
            try await outbound.write(.head(head))
            for byte in response.body.dropLast() {
                try await Task.sleep(for: interval)
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: [byte]))))
            }
            try await Task.sleep(for: interval)
            finishing()
            try await outbound.write(contentsOf: [
                .body(.byteBuffer(ByteBuffer(bytes: [response.body.last!]))), .end(nil),
            ])
            return keepAlive
        }
        if mayHaveBody && !response.body.isEmpty {
            var body = ByteBuffer(bytes: response.body)
            while body.readableBytes > 0 {
                parts.append(.body(.byteBuffer(body.readSlice(length: min(chunkSize, body.readableBytes))!)))
            }
        }
        parts.append(.end(nil))

        // The client has the whole response once the last part carrying data (the head when there is no body) and
        // the end are written, so the request stops counting as in flight just before that.
        let last = parts.count - 2
        for part in parts[..<last] {
            try await outbound.write(part)
        }
        finishing()
        try await outbound.write(contentsOf: parts[last...])
        return keepAlive
    }
}
