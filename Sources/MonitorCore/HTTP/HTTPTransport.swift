/// One HTTP request, as the core hands it to a transport.
public struct HTTPRequest: Sendable {
    /// The method, `GET` unless said otherwise.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// The header fields to send.
    public var headers: HTTPHeaders
    /// The time limit of the whole exchange.
    public var timeout: Duration
    /// The largest body accepted; a larger one fails with `TransportError.bodyTooLarge` without being buffered
    /// (unless `truncatesBody`).
    public var maxBody: Int
    /// The body to send (a notification's); empty for none.
    public var body: [UInt8]
    /// A body larger than `maxBody` is cut to its first `maxBody` bytes (the rest is not read) instead of failing
    /// the request: for answers whose body matters little, like a webhook's.
    public var truncatesBody: Bool

    /// A request.
    public init(
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
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields received.
    public var headers: HTTPHeaders
    /// The body.
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a transport could not get a response.
public enum TransportError: Error, Sendable, Hashable {
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
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response with its body, or throws a `TransportError`.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
