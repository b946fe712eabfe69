/// What the server answers.
package struct TestResponse: Sendable {
    /// The status code, e.g. 200, 304 or 503.
    package var status: Int
    /// The header fields, written in this order.
    ///
    /// The server adds `Content-Length` (the body's size, 0 for an empty body) unless this sets `Content-Length`
    /// or `Transfer-Encoding` itself; with `Transfer-Encoding: chunked` the body is sent chunked.
    package var headers: [(name: String, value: String)]
    /// The body; not sent for a `HEAD` request or a 1xx, 204 or 304 status.
    package var body: [UInt8]
    /// How long to wait before answering.
    package var delay: Duration
    /// Whether to never answer, e.g. to make a client's timeout fire.
    ///
    /// The request stays in flight until the client closes the connection or the server shuts down.
    package var hang: Bool
    /// When set, the body is sent one byte at a time, each after waiting this long (a slow server), with the
    /// head first, at once.
    package var trickle: Duration?

    /// Makes a response.
    package init(
        status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = [], delay: Duration = .zero
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.hang = false
        self.trickle = nil
    }

    /// A response whose `body` is sent one byte every `interval` after the head (with its `Content-Length`).
    package static func trickling(_ body: String, every interval: Duration) -> TestResponse {
        var response = TestResponse.text(body)
        response.trickle = interval
        return response
    }

    /// A response with `text` as its body and `Content-Type: application/json` (unless `headers` has a
    /// `Content-Type`) before `headers`.
    package static func json(
        _ text: String, status: Int = 200, headers: [(name: String, value: String)] = []
    ) -> TestResponse {
        TestResponse(status: status, headers: adding("application/json", to: headers), body: Array(text.utf8))
    }

    /// A response with `text` as its body and `Content-Type: text/plain; charset=utf-8` (unless `headers` has a
    /// `Content-Type`) before `headers`.
    package static func text(
        _ text: String, status: Int = 200, headers: [(name: String, value: String)] = []
    ) -> TestResponse {
        TestResponse(status: status, headers: adding("text/plain; charset=utf-8", to: headers), body: Array(text.utf8))
    }

    /// A response that never comes: see ``hang``.
    package static let hang: TestResponse = {
        var response = TestResponse()
        response.hang = true
        return response
    }()

    private static func adding(
        _ contentType: String, to headers: [(name: String, value: String)]
    ) -> [(name: String, value: String)] {
        if headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            return headers
        }
        return [(name: "Content-Type", value: contentType)] + headers
    }
}
