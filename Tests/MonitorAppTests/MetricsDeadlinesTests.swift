import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import MonitorApp

/// The deadlines of a metrics connection to the millisecond: the server's own handlers on an `EmbeddedChannel`, whose
/// clock moves only when the test moves it. The wire tests (MetricsServerTests) show the same on real sockets, where
/// a busy machine can delay anything.
@Suite("metrics: the head and idle timeouts of a connection, on a clock the test moves")
struct MetricsDeadlinesTests {
    /// A connection with the server's handlers and `limits`, opened at the time of `loop` (by default a new loop, at
    /// its start); admitted by `listener` first when given, as the server admits each accepted connection.
    private static func open(
        _ limits: MetricsServer.Limits, connections: MetricsConnections = MetricsConnections(limit: 4),
        loop: EmbeddedEventLoop = EmbeddedEventLoop(), listener: EmbeddedChannel? = nil
    ) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        try listener?.writeInbound(channel as any Channel)
        _ = try listener?.readInbound(as: (any Channel).self)
        try MetricsServer.configure(channel, connections: connections, limits: limits)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9464)).wait()
        return channel
    }

    /// Moves the clock of `channel` to `milliseconds` after the opening.
    private static func advance(_ channel: EmbeddedChannel, to milliseconds: Int64) {
        channel.embeddedEventLoop.advanceTime(to: .uptimeNanoseconds(0) + .milliseconds(milliseconds))
    }

    /// The bytes written to the client so far.
    private static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
            text += buffer.readString(length: buffer.readableBytes) ?? ""
        }
        return text
    }

    /// The request parts the server was handed so far.
    private static func parts(_ channel: EmbeddedChannel) throws -> [String] {
        var parts: [String] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let head): parts.append("head \(head.method) \(head.uri)")
            case .body(let body): parts.append("body \(body.readableBytes)")
            case .end: parts.append("end")
            }
        }
        return parts
    }

    /// Answers as the server does: a head, a body, then the end.
    private static func answer(_ channel: EmbeddedChannel) throws {
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "3"])
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "ok\n"))))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
    }

    /// Expects `channel` open 1 ms before `milliseconds` after the opening and closed at it, having written nothing
    /// more.
    private static func expectClosed(
        _ channel: EmbeddedChannel, at milliseconds: Int64, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        advance(channel, to: milliseconds - 1)
        #expect(channel.isActive, sourceLocation: sourceLocation)
        advance(channel, to: milliseconds)
        #expect(!channel.isActive, sourceLocation: sourceLocation)
        #expect(try written(channel) == "", sourceLocation: sourceLocation)
    }

    /// Sends `GET /metrics` on `channel`, expects it handed to the server whole, and answers it as the server does.
    private static func scrape(_ channel: EmbeddedChannel, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try channel.writeInbound(ByteBuffer(string: "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"))
        #expect(try parts(channel) == ["head GET /metrics", "end"], sourceLocation: sourceLocation)
        try answer(channel)
        #expect(
            try written(channel) == "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n", sourceLocation: sourceLocation)
    }

    @Test("bytes of a head do not put the head timeout off: half a head at 0 and 0.6 s, closed at 1 s, unanswered")
    func halfAHead() throws {
        let channel = try Self.open(MetricsServer.Limits(headTimeout: .seconds(1), idleTimeout: .minutes(10)))
        try channel.writeInbound(ByteBuffer(string: "GET /metrics HTTP/1.1\r\nHost: x"))
        Self.advance(channel, to: 600)
        try channel.writeInbound(ByteBuffer(string: "\r\nUser-Agent: slow"))
        try Self.expectClosed(channel, at: 1000)
        #expect(try Self.parts(channel) == [])
    }

    @Test("nothing sent at all: closed at the head timeout, not a moment before")
    func silent() throws {
        let channel = try Self.open(MetricsServer.Limits(headTimeout: .milliseconds(200), idleTimeout: .minutes(10)))
        try Self.expectClosed(channel, at: 200)
    }

    @Test("an answer's end starts the idle timeout: answered at 0.9 s, open until 5.899 s, closed at 5.9 s")
    func idleAfterAnswer() throws {
        let channel = try Self.open(MetricsServer.Limits(headTimeout: .seconds(1), idleTimeout: .seconds(5)))
        Self.advance(channel, to: 500)
        try channel.writeInbound(ByteBuffer(string: "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"))
        #expect(try Self.parts(channel) == ["head GET /metrics", "end"])
        Self.advance(channel, to: 900)
        try Self.answer(channel)
        #expect(try Self.written(channel) == "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
        // Past the head timeouts of the opening (1 s) and of the head (1.5 s): the idle timeout replaced them.
        try Self.expectClosed(channel, at: 5900)
    }

    @Test("a whole head starts the head timeout again, also after an answer: the request and its answer within it")
    func headRestartsTheHeadTimeout() throws {
        let channel = try Self.open(MetricsServer.Limits(headTimeout: .seconds(1), idleTimeout: .seconds(3)))
        Self.advance(channel, to: 800)
        try Self.scrape(channel)
        // Answered at 0.8 s: the next head comes within the idle timeout, at 3.3 s, and its body never ends.
        Self.advance(channel, to: 3300)
        try channel.writeInbound(ByteBuffer(string: "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab"))
        #expect(try Self.parts(channel) == ["head POST /metrics", "body 2"])
        // Past the idle timeout of the answer (3.8 s): the head's timeout replaced it.
        try Self.expectClosed(channel, at: 4300)
    }

    @Test("one connection beyond the cap closes the one quiet the longest; a head or an answer counts as activity")
    func connectionCap() throws {
        let limits = MetricsServer.Limits(headTimeout: .minutes(10), idleTimeout: .minutes(10), connections: 2)
        let connections = MetricsConnections(limit: limits.connections)
        let loop = EmbeddedEventLoop()
        let listener = EmbeddedChannel(handler: connections.admission(), loop: loop)
        let first = try Self.open(limits, connections: connections, loop: loop, listener: listener)
        let second = try Self.open(limits, connections: connections, loop: loop, listener: listener)
        // Heads from the first, then the second; answers to the second, then the first: the second is now the
        // quieter one, though it opened and sent its head later.
        try first.writeInbound(ByteBuffer(string: "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"))
        try second.writeInbound(ByteBuffer(string: "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"))
        for channel in [second, first] {
            #expect(try Self.parts(channel) == ["head GET /metrics", "end"])
            try Self.answer(channel)
            #expect(try Self.written(channel) == "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
        }
        let third = try Self.open(limits, connections: connections, loop: loop, listener: listener)
        #expect(!second.isActive)
        #expect(first.isActive && third.isActive)
        // Only a head, no answer yet: the first is active later than the third's opening; a fourth closes the third.
        try first.writeInbound(ByteBuffer(string: "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"))
        let fourth = try Self.open(limits, connections: connections, loop: loop, listener: listener)
        #expect(!third.isActive)
        #expect(first.isActive && fourth.isActive)
        // A closed connection no longer counts: with the fourth closed by its client, a fifth closes nobody.
        try fourth.close().wait()
        loop.run()
        let fifth = try Self.open(limits, connections: connections, loop: loop, listener: listener)
        #expect(first.isActive && fifth.isActive)
    }
}
