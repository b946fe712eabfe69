import Foundation
import LoopbackHTTP
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore

/// `HTTPClientTransport.prepare()`, which `monitor run` calls while the state opens: a request to a port that refuses
/// every connection, so that nothing reaches any server.
@Suite("The transport's warm-up before the first request", .timeLimit(.minutes(5)))
struct TransportPrepareTests {
    @Test("a connection to the refusing port is refused by the kernel, through the real HTTP client")
    func refusingPortRefuses() async throws {
        let port = try #require(RefusingPort())
        defer { port.close() }
        #expect(port.number > 0)
        let transport = HTTPClientTransport(timeout: .seconds(60))
        let request = MonitorCore.HTTPRequest(
            url: "http://127.0.0.1:\(port.number)/", headers: [:], timeout: .seconds(60), maxBody: 1024)
        await #expect(throws: TransportError.connection("connection refused")) {
            try await transport.send(request)
        }
        try await transport.shutdown()
    }

    @Test("a held port cannot be bound by a server asking for address reuse (as PostgreSQL does), only for port reuse")
    func heldPortNotTaken() async throws {
        let port = try #require(RefusingPort())
        defer { port.close() }
        #expect(bindWithAddressReuse(port.number) == EADDRINUSE)
        // A test's receiver coming up on it asks for port reuse, and may.
        let server = try await TestHTTPServer.start(port: port.number) { _ in .text("up") }
        #expect(server.port == port.number)
        try await server.shutdown()
    }

    /// Binds a socket allowing address reuse to `port` of 127.0.0.1: 0, or the errno of the failure.
    private func bindWithAddressReuse(_ port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return bound == 0 ? 0 : errno
    }

    @Test("prepare() sends no request to a running server, and the transport's first request after it is answered")
    func prepareThenSend() async throws {
        try await withTestHTTPServer({ _ in .text("answer") }) { server in
            let transport = HTTPClientTransport(timeout: .seconds(60))
            await transport.prepare()
            #expect(server.requests.isEmpty)
            let response = try await transport.send(
                MonitorCore.HTTPRequest(
                    url: "\(server.baseURL)/feed", headers: [:], timeout: .seconds(60), maxBody: 1024))
            #expect(response.status == 200)
            #expect(response.body == Array("answer".utf8))
            #expect(server.requests.map(\.uri) == ["/feed"])
            try await transport.shutdown()
        }
    }

    @Test("prepare() in a cancelled task returns without error, and the transport shuts down")
    func cancelled() async throws {
        let transport = HTTPClientTransport(timeout: .seconds(60))
        await withTaskGroup(of: Void.self) { group in
            group.cancelAll()
            group.addTask { await transport.prepare() }
        }
        try await transport.shutdown()
    }
}
