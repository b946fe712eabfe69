import MonitorCore

/// A request as the server received it.
package struct RecordedRequest: Sendable {
    /// The method, e.g. `GET`.
    package var method: String
    /// The path and query, exactly as sent, e.g. `/repos/a/b/events?per_page=100`.
    package var uri: String
    /// The URI without the query.
    package var path: String
    /// The decoded query items; when a name repeats, the last one wins.
    ///
    /// Items are split on `&` and `=` and then percent-decoded as `URLComponents` does (a `+` stays a `+`);
    /// an item without `=` has the value `""`.
    package var query: [String: String]
    /// The header fields in order, exactly as received.
    package var headers: [(name: String, value: String)]
    /// The body, once it has been received whole (``TestHTTPServer/requests`` lists a request from its head on,
    /// with its body added when it ends; a handler always gets it whole).
    package var body: [UInt8]

    /// Makes a request as the server would record it, e.g. to call a handler directly in a unit test.
    package init(
        method: String = "GET", uri: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []
    ) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
        let queryStart = uri.firstIndex(of: "?")
        path = String(uri[..<(queryStart ?? uri.endIndex)])
        query = [:]
        if let queryStart {
            for item in uri[uri.index(after: queryStart)...].split(separator: "&") {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0]).percentDecoded()
                query[name] = parts.count > 1 ? String(parts[1]).percentDecoded() : ""
            }
        }
    }

    /// The value of the first header field called `name`, compared case-insensitively, or `nil`.
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
