/// One HTTP request, as the core hands it to a transport.
package struct HTTPRequest: Sendable {
    /// The method, `GET` unless said otherwise.
    package var method: String
    /// The absolute URL.
    package var url: String
    /// The header fields to send.
    package var headers: HTTPHeaders
    /// The time limit of the whole exchange.
    package var timeout: Duration
    /// The largest body accepted; a larger one fails with `TransportError.bodyTooLarge` without being buffered
    /// (unless `truncatesBody`).
    package var maxBody: Int
    /// The body to send (a notification's); empty for none.
    package var body: [UInt8]
    /// A body larger than `maxBody` is cut to its first `maxBody` bytes (the rest is not read) instead of failing
    /// the request: for answers whose body matters little, like a webhook's.
    package var truncatesBody: Bool

    /// A request.
    package init(
        method: String = "GET", url: String, headers: HTTPHeaders, timeout: Duration, maxBody: Int, body: [UInt8] = [],
        truncatesBody: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.maxBody = maxBody
        self.body = body
        self.truncatesBody = truncatesBody
    }
}

/// A response with its whole body.
package struct HTTPResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The header fields received.
    package var headers: HTTPHeaders
    /// The body.
    package var body: [UInt8]

    /// A response.
    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a transport could not get a response.
package enum TransportError: Error, Sendable, Hashable {
    /// The time limit ran out.
    case timeout
    /// No connection, or it broke (the detail says how).
    case connection(String)
    /// The body was larger than the limit.
    case bodyTooLarge(limit: Int)
    /// Anything else (a malformed URL, an unsupported scheme).
    case invalid(String)
}

/// The small seam the core sends HTTP through; the app adapts AsyncHTTPClient to it, tests may substitute it.
package protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response with its body, or throws a `TransportError`.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
