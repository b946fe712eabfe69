import LoopbackHTTP
import TestSupport
import Testing

/// Checks the bytes `TestHTTPServer` writes, with hand-written requests on one plain connection.
@Suite("TestHTTPServer on the wire", .timeLimit(.minutes(5)))
struct WireFormatTests {
    @Test("one keep-alive connection serves several requests, and Connection: close ends it")
    func keepAlive() async throws {
        try await withTestHTTPServer({ request in
            switch request.path {
            case "/a": .text("first")
            case "/b": TestResponse(status: 304, headers: [("ETag", #""v1""#)])
            default: .json("{}", headers: [("X-Last", "yes")])
            }
        }) { server in
            try await RawHTTPConnection.withConnection(port: server.port) { connection in
                try await connection.send("GET /a HTTP/1.1\r\nHost: test\r\n\r\n")
                let first = try await connection.readResponse()
                #expect(first.head == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5")
                #expect(first.body == "first")

                try await connection.send(
                    "GET /b HTTP/1.1\r\nHost: test\r\nIf-None-Match: \"v1\"\r\nx-SPACE:   padded  value \t \r\n\r\n")
                let second = try await connection.readResponse()
                #expect(second.head == "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nContent-Length: 0")

                try await connection.send("GET /c HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
                let third = try await connection.readResponse()
                #expect(
                    third.head
                        == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Last: yes\r\nContent-Length: 2\r\n"
                        + "Connection: close")
                #expect(third.body == "{}")
                #expect(try await connection.isClosedByServer())
            }
            #expect(server.requests.map(\.uri) == ["/a", "/b", "/c"])
            #expect(server.requests[1].headers.map(\.name) == ["Host", "If-None-Match", "x-SPACE"])
            // NIO drops the whitespace before a value but keeps what follows it.
            #expect(server.requests[1].header("x-space") == "padded  value \t ")
        }
    }

    @Test("pipelined requests are answered in order")
    func pipelining() async throws {
        try await withTestHTTPServer({ request in
            TestResponse(body: Array(request.path.utf8), delay: request.path == "/slow" ? .milliseconds(200) : .zero)
        }) { server in
            try await RawHTTPConnection.withConnection(port: server.port) { connection in
                try await connection.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /fast HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try await connection.readResponse().body == "/slow")
                #expect(try await connection.readResponse().body == "/fast")
            }
            #expect(server.maxInFlight == 1)
        }
    }

    @Test("a HEAD response has the body's Content-Length but no body")
    func head() async throws {
        try await withTestHTTPServer({ _ in .text("eleven char") }) { server in
            try await RawHTTPConnection.withConnection(port: server.port) { connection in
                try await connection.send("HEAD /file HTTP/1.1\r\nHost: t\r\n\r\n")
                let head = try await connection.readResponse(bodyless: true)
                #expect(head.head.hasSuffix("\r\nContent-Length: 11"))
                // Nothing stray follows: the next response on the connection parses.
                try await connection.send("GET /file HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try await connection.readResponse().body == "eleven char")
            }
            #expect(server.requests.map(\.method) == ["HEAD", "GET"])
        }
    }

    @Test("a request body is read and discarded")
    func requestBody() async throws {
        try await withTestHTTPServer({ request in .text(request.method) }) { server in
            try await RawHTTPConnection.withConnection(port: server.port) { connection in
                try await connection.send("POST /submit HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
                #expect(try await connection.readResponse().body == "POST")
                try await connection.send(
                    "PUT /up HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
                #expect(try await connection.readResponse().body == "PUT")
                try await connection.send("GET /next HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(try await connection.readResponse().body == "GET")
            }
            #expect(server.requests.map(\.path) == ["/submit", "/up", "/next"])
            #expect(server.requests[0].header("content-length") == "5")
        }
    }

    @Test("an HTTP/1.0 request without keep-alive gets Connection: close and the connection closed")
    func http10() async throws {
        try await withTestHTTPServer({ _ in .text("old") }) { server in
            try await RawHTTPConnection.withConnection(port: server.port) { connection in
                try await connection.send("GET /old HTTP/1.0\r\n\r\n")
                let response = try await connection.readResponse()
                #expect(response.head.hasPrefix("HTTP/1.0 200 OK\r\n"))
                #expect(response.head.hasSuffix("\r\nConnection: close"))
                #expect(response.body == "old")
                #expect(try await connection.isClosedByServer())
            }
        }
    }

    @Test("a client that closes during a hang stops counting as in flight")
    func clientGoesAway() async throws {
        try await withTestHTTPServer({ _ in .hang }) { server in
            try await RawHTTPConnection.withConnection(port: server.port) { connection in
                try await connection.send("GET /hang HTTP/1.1\r\nHost: t\r\n\r\n")
                try await server.waitForInFlight(1)
            }
            try await server.waitForInFlight(0)
            #expect(server.maxInFlight == 1)
        }
    }
}
