import AsyncHTTPClient
import LoopbackHTTP
import MonitorConcurrency
import NIOCore
import TestSupport
import Testing

@testable import MonitorCore

/// Runs AsyncHTTPClient against `TestHTTPServer`.
@Suite("TestHTTPServer with AsyncHTTPClient", .timeLimit(.minutes(5)))
struct TestHTTPServerTests {
    struct Failure: Error {}

    @Test("a 200 arrives with exactly the handler's headers, Content-Length and body")
    func okResponse() async throws {
        let headers = [("X-Custom", "one"), ("X-Custom", "two"), ("ETag", #"W/"abc""#)]
        try await withTestHTTPServer({ _ in TestResponse(headers: headers, body: Array("hello".utf8)) }) { server in
            try await withClient { client in
                let response = try await client.execute(
                    HTTPClientRequest(url: server.baseURL + "/hello"), timeout: .hours(1))
                #expect(response.status.code == 200)
                #expect(
                    response.headers.map { "\($0.name): \($0.value)" }
                        == ["X-Custom: one", "X-Custom: two", #"ETag: W/"abc""#, "Content-Length: 5"])
                #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)) == "hello")
            }
        }
    }

    @Test("the recorded request has the exact uri, query and headers the client sent")
    func recordsRequest() async throws {
        try await withTestHTTPServer({ _ in .json("[]") }) { server in
            try await withClient { client in
                var request = HTTPClientRequest(url: server.baseURL + "/repos/a/b/events?per_page=100&page=2&q=a%20b")
                request.headers.add(name: "If-None-Match", value: #"W/"abc""#)
                request.headers.add(name: "Accept", value: "application/vnd.github+json")
                request.headers.add(name: "x-lower-case", value: "  kept  inside ")
                let response = try await client.execute(request, timeout: .hours(1))
                #expect(response.headers.first(name: "content-type") == "application/json")
                #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)) == "[]")
            }
            let recorded = try #require(server.requests.first)
            #expect(server.requests.count == 1)
            #expect(recorded.method == "GET")
            #expect(recorded.uri == "/repos/a/b/events?per_page=100&page=2&q=a%20b")
            #expect(recorded.path == "/repos/a/b/events")
            #expect(recorded.query == ["per_page": "100", "page": "2", "q": "a b"])
            #expect(recorded.header("if-none-match") == #"W/"abc""#)
            #expect(recorded.header("IF-NONE-MATCH") == #"W/"abc""#)
            #expect(recorded.header("Authorization") == nil)
            // AsyncHTTPClient adds `host` (in lower case, last); NIO drops the spaces before a value, not after it.
            let sent = recorded.headers.filter { $0.name.lowercased() != "host" }.map { "\($0.name): \($0.value)" }
            #expect(
                sent == [
                    #"If-None-Match: W/"abc""#, "Accept: application/vnd.github+json", "x-lower-case: kept  inside ",
                ])
            #expect(recorded.header("Host") == "127.0.0.1:\(server.port)")
        }
    }

    @Test("a 304 arrives with Content-Length: 0 and an empty body")
    func notModified() async throws {
        try await withTestHTTPServer({ _ in TestResponse(status: 304, headers: [("ETag", #"W/"abc""#)]) }) { server in
            try await withClient { client in
                for _ in 0..<2 {
                    var request = HTTPClientRequest(url: server.baseURL + "/events")
                    request.headers.add(name: "If-None-Match", value: #"W/"abc""#)
                    let response = try await client.execute(request, timeout: .hours(1))
                    #expect(response.status == .notModified)
                    #expect(
                        response.headers.map { "\($0.name): \($0.value)" } == [#"ETag: W/"abc""#, "Content-Length: 0"])
                    #expect(try await response.body.collect(upTo: 1 << 20).readableBytes == 0)
                }
            }
            #expect(server.requests.count == 2)
        }
    }

    @Test("a handler's own Transfer-Encoding: chunked is kept and the body sent chunked")
    func chunked() async throws {
        let response = TestResponse(headers: [("Transfer-Encoding", "chunked")], body: Array("in chunks".utf8))
        try await withTestHTTPServer({ _ in response }) { server in
            try await withClient { client in
                let response = try await client.execute(HTTPClientRequest(url: server.baseURL), timeout: .hours(1))
                #expect(response.headers.map { "\($0.name): \($0.value)" } == ["Transfer-Encoding: chunked"])
                #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)) == "in chunks")
            }
        }
    }

    @Test("maxInFlight is 2 when a client limited to 2 connections sends 10 requests at once")
    func boundedConcurrency() async throws {
        // The first two requests are answered only once both are in flight.
        let two = Rendezvous(2)
        try await withTestHTTPServer({ _ in
            await two.arrive()
            return TestResponse(body: [1])
        }) { server in
            try await withClient(connectionLimit: 2) { client in
                try await send(10, to: server.baseURL + "/slow", with: client)
            }
            #expect(server.requests.count == 10)
            #expect(server.maxInFlight == 2)
            #expect(server.inFlight == 0)
        }
    }

    @Test("maxInFlight is 5 when 5 requests are in flight at once, and resetCounters starts over")
    func fiveAtOnce() async throws {
        let five = Rendezvous(5)
        try await withTestHTTPServer({ _ in
            await five.arrive()
            return TestResponse()
        }) { server in
            try await withClient { client in
                try await send(5, to: server.baseURL, with: client)
                #expect(server.maxInFlight == 5)
                #expect(server.requests.count == 5)
                #expect(server.inFlight == 0)

                server.resetCounters()
                #expect(server.requests.isEmpty)
                #expect(server.maxInFlight == 0)
                for _ in 0..<3 {
                    _ = try await client.execute(
                        HTTPClientRequest(url: server.baseURL + "/again"), timeout: .hours(1))
                }
                #expect(server.maxInFlight == 1)
                #expect(server.requests.map(\.uri) == ["/again", "/again", "/again"])
            }
        }
    }

    @Test("a hanging response never comes: the client's deadline fires, and shutdown still returns")
    func hang() async throws {
        let server = try await TestHTTPServer.start { _ in .hang }
        try await withClient { client in
            // The request arrives and stays unanswered until the client gives up.
            let waiting = Task {
                try await client.execute(HTTPClientRequest(url: server.baseURL + "/hang"), timeout: .hours(1))
            }
            try await server.waitForInFlight(1)
            #expect(server.requests.map(\.path) == ["/hang"])
            waiting.cancel()
            await #expect(throws: (any Error).self) { try await waiting.value }
            try await server.waitForInFlight(0)
            // Whether or not it reaches the server before its deadline, a request is never answered.
            await #expect(throws: HTTPClientError.deadlineExceeded) {
                try await client.execute(
                    HTTPClientRequest(url: server.baseURL + "/hang"), deadline: .now() + .milliseconds(200))
            }

            // A shutdown that waited for the hanging request would never return: the suite's time limit ends it.
            try await server.shutdown()
            #expect(server.inFlight == 0)
            try await server.shutdown()
            await expectNotListening(server.baseURL, client)
        }
    }

    @Test("shutdown closes a hanging connection that the client still holds open")
    func hangWithOpenConnection() async throws {
        let server = try await TestHTTPServer.start { _ in .hang }
        try await withClient { client in
            // The client's own timeout is far beyond the suite's time limit: only the server can end the request.
            let request = Task {
                try await client.execute(HTTPClientRequest(url: server.baseURL + "/hang"), timeout: .hours(1))
            }
            try await server.waitForInFlight(1)
            try await server.shutdown()
            // The client sees the connection closed.
            await #expect(throws: (any Error).self) { try await request.value }
            #expect(server.inFlight == 0)
        }
    }

    @Test("shutdown does not wait for a handler that never returns")
    func stuckHandler() async throws {
        let gate = Gate()
        let server = try await TestHTTPServer.start { _ in
            await gate.wait()
            return .text("late")
        }
        try await withClient { client in
            let request = Task {
                try await client.execute(HTTPClientRequest(url: server.baseURL), timeout: .hours(1))
            }
            // The handler is running (and stuck) once it waits at the gate.
            try await gate.waitForWaiters(1)
            try await server.shutdown()
            await #expect(throws: (any Error).self) { try await request.value }
            await expectNotListening(server.baseURL, client)
        }
        gate.open()
    }

    @Test("a 40 MiB body arrives intact")
    func largeBody() async throws {
        // Filling 40 MiB takes a while in a debug build: off the cooperative pool.
        let expected = await offThePool {
            var body = [UInt8](repeating: 0, count: 40 << 20)
            var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
            body.withUnsafeMutableBytes { bytes in
                for index in stride(from: 0, to: bytes.count, by: 8) {
                    seed ^= seed << 13
                    seed ^= seed >> 7
                    seed ^= seed << 17
                    bytes.storeBytes(of: seed, toByteOffset: index, as: UInt64.self)
                }
            }
            return body
        }
        try await withTestHTTPServer({ _ in TestResponse(body: expected) }) { server in
            try await withClient { client in
                let response = try await client.execute(
                    HTTPClientRequest(url: server.baseURL + "/big"), timeout: .hours(1))
                #expect(response.headers.first(name: "content-length") == String(40 << 20))
                let received = try await response.body.collect(upTo: 64 << 20)
                #expect(received.readableBytes == expected.count)
                // ByteBuffer's == compares with memcmp, which stays fast in a debug build.
                #expect(received == ByteBuffer(bytes: expected))
            }
            #expect(server.inFlight == 0)
        }
    }

    @Test("withTestHTTPServer shuts the server down when its body throws")
    func withServerThrows() async throws {
        try await withClient { client in
            var baseURL: String?
            do {
                try await withTestHTTPServer({ _ in .text("hi") }) { server in
                    baseURL = server.baseURL
                    let response = try await client.execute(
                        HTTPClientRequest(url: server.baseURL), timeout: .hours(1))
                    #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)) == "hi")
                    throw Failure()
                }
                Issue.record("withTestHTTPServer did not rethrow")
            } catch is Failure {
            }
            // The client's idle keep-alive connection was closed as well as the listening socket.
            await expectNotListening(try #require(baseURL), client)
        }
    }

    @Test("withTestHTTPServer returns its body's result and shuts the server down")
    func withServerReturns() async throws {
        try await withClient { client in
            let baseURL = try await withTestHTTPServer({ _ in .text("hi") }) { server in
                _ = try await client.execute(HTTPClientRequest(url: server.baseURL), timeout: .hours(1))
                return server.baseURL
            }
            await expectNotListening(baseURL, client)
        }
    }

    @Test("withTestHTTPServer runs its body on the caller's actor")
    @MainActor
    func withServerOnMainActor() async throws {
        let log = Log()
        let count = try await withTestHTTPServer({ _ in .text("hi") }) { server in
            MainActor.assertIsolated()
            log.entries.append(server.baseURL)
            return log.entries.count
        }
        #expect(count == 1)
    }

    // MARK: - Helpers

    /// Runs `body` with a new client that does not retry failed connections, and shuts the client down.
    ///
    /// Its time limits (for a connection, and each request's) are an hour: on a loaded machine a queued request may
    /// wait long for a connection; a test that hangs ends at the suite's time limit.
    private func withClient<T>(
        connectionLimit: Int = 8, _ body: (HTTPClient) async throws -> T
    ) async throws -> T {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionLimit)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .hours(1))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: T
        do {
            result = try await body(client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return result
    }

    /// Sends `count` GET requests to `url` at once and expects each to succeed.
    private func send(_ count: Int, to url: String, with client: HTTPClient) async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count {
                group.addTask {
                    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .hours(1))
                    _ = try await response.body.collect(upTo: 1 << 20)
                    return Int(response.status.code)
                }
            }
            for try await status in group {
                #expect(status == 200)
            }
        }
    }

    /// Expects a request to `baseURL` to fail: nothing listens there any more. (A server still listening would
    /// answer, or hang until the suite's time limit: the client's own timeout is far beyond it.)
    private func expectNotListening(_ baseURL: String, _ client: HTTPClient) async {
        await #expect(throws: (any Error).self) {
            try await client.execute(HTTPClientRequest(url: baseURL + "/after-shutdown"), timeout: .hours(1))
        }
    }
}

/// Keeps handlers waiting, without regard to cancellation, until it is opened.
private final class Gate: Sendable {
    private let state = Watched((isOpen: false, waiting: [CheckedContinuation<Void, Never>]()))

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.update { state in
                if !state.isOpen {
                    state.waiting.append(continuation)
                }
                return state.isOpen
            }
            if isOpen {
                continuation.resume()
            }
        }
    }

    /// Waits until `count` handlers wait at the gate.
    func waitForWaiters(_ count: Int) async throws {
        try await state.wait { $0.waiting.count >= count }
    }

    func open() {
        let waiting = state.update { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting {
            continuation.resume()
        }
    }
}

/// Something that is not `Sendable`, to show that `withTestHTTPServer`'s body may use one of its caller's.
private final class Log {
    var entries: [String] = []
}
