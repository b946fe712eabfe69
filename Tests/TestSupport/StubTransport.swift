import Synchronization

@testable import MonitorCore

/// An in-memory stand-in for the HTTP protocol, for a plugin's unit tests; behaviour on the wire is tested
/// against `TestHTTPServer` instead.
package final class StubTransport: HTTPTransport {
    private let handler: @Sendable (HTTPRequest) async throws -> HTTPResponse
    private let recorded = Mutex<[HTTPRequest]>([])

    /// A transport answering every request with `handler`.
    package init(_ handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) {
        self.handler = handler
    }

    /// Every request sent so far, in order.
    package var requests: [HTTPRequest] { recorded.withLock { $0 } }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        return try await handler(request)
    }
}
