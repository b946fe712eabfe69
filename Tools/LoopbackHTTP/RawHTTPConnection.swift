import Foundation
import NIOCore
import NIOPosix

/// A plain TCP connection that sends hand-written HTTP/1.1 requests and reads the raw responses, to check the bytes
/// on the wire.
package struct RawHTTPConnection {
    /// The connection ended before a whole response arrived.
    package struct EndOfStream: Error {}

    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var received = ByteBuffer()

    /// Connects to `127.0.0.1:port`, runs `body` with the connection, and closes it.
    package static func withConnection<T: Sendable>(
        port: Int, _ body: (inout RawHTTPConnection) async throws -> T
    ) async throws -> T {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true))
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var connection = RawHTTPConnection(iterator: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(&connection)
        }
    }

    private init(
        iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) {
        self.iterator = iterator
        self.outbound = outbound
    }

    /// Sends `text` as it is.
    package func send(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Sends `text` unless the server closed the connection first; returns whether it went out. A write after the
    /// server's close fails (this side closed on reading the end, or the server reset the connection): a test of a
    /// server that closes on a deadline then asserts on the close, with ``readUntilClosed()``.
    package func sendUnlessClosed(_ text: String) async throws -> Bool {
        do {
            try await send(text)
            return true
        } catch let error where Self.isClose(error) {
            return false
        }
    }

    /// Shuts this side of the connection (a TCP half-close): the server reads the end after what was sent.
    package func finishSending() {
        outbound.finish()
    }

    /// Reads one response framed by `Content-Length` (or without a body: `bodyless`, or a 204 or 304 status); returns
    /// its head (the status line and header lines, without the blank line) and its body.
    package mutating func readResponse(bodyless: Bool = false) async throws -> (head: String, body: String) {
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            let bytes = Array(received.readableBytesView)
            headEnd = bytes.indices.dropLast(separator.count - 1).first {
                bytes[$0..<$0 + separator.count].elementsEqual(separator)
            }
            if headEnd == nil {
                try await receiveMore()
            }
        }
        let head = received.readString(length: headEnd!)!
        received.moveReaderIndex(forwardBy: separator.count)
        let lines = head.components(separatedBy: "\r\n")
        let status = lines[0].split(separator: " ")[1]
        var length = 0
        if !bodyless && status != "204" && status != "304" {
            for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
                length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))!
            }
        }
        while received.readableBytes < length {
            try await receiveMore()
        }
        return (head, received.readString(length: length)!)
    }

    /// Whether the server closes the connection now, without sending anything more.
    package mutating func isClosedByServer() async throws -> Bool {
        guard received.readableBytes == 0 else { return false }
        return try await iterator.next() == nil
    }

    /// Everything the server sends from now on until it closes the connection.
    package mutating func readToEnd() async throws -> String {
        while var more = try await iterator.next() {
            received.writeBuffer(&more)
        }
        return received.readString(length: received.readableBytes) ?? ""
    }

    /// Everything the server sends from now on until it closes the connection, a reset counting as its close: a
    /// server that closes with bytes of the client's unread (or receives some after) resets the connection.
    package mutating func readUntilClosed() async throws -> String {
        do {
            while var more = try await iterator.next() {
                received.writeBuffer(&more)
            }
        } catch let error where Self.isClose(error) {}
        return received.readString(length: received.readableBytes) ?? ""
    }

    /// Whether `error` says that the connection was closed or reset by the other side.
    private static func isClose(_ error: any Error) -> Bool {
        switch error {
        case ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed, ChannelError.outputClosed: true
        case let error as IOError: error.errnoCode == ECONNRESET || error.errnoCode == EPIPE
        default: false
        }
    }

    private mutating func receiveMore() async throws {
        guard var more = try await iterator.next() else { throw EndOfStream() }
        received.writeBuffer(&more)
    }
}
