import MonitorCore

extension HTTPRequest {
    /// The request `recorded` by the server, in the core's terms: its URL is `http://HOST` (from the `Host` header,
    /// `127.0.0.1` without one) followed by the URI as sent, with the header fields in order.
    ///
    /// The timeout and body limit mean nothing on the server's side; they are a minute and a gibibyte.
    package init(_ recorded: RecordedRequest) {
        self.init(
            method: recorded.method, url: "http://\(recorded.header("Host") ?? "127.0.0.1")" + recorded.uri,
            headers: HTTPHeaders(recorded.headers.map { ($0.name, $0.value) }), timeout: .seconds(60),
            maxBody: 1 << 30)
    }
}
