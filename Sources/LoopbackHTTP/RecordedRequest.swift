/// A request as the server received it.
public struct RecordedRequest: Sendable {
    /// The method, e.g. `GET`.
    public var method: String
    /// The path and query, exactly as sent, e.g. `/repos/a/b/events?per_page=100`.
    public var uri: String
    /// The URI without the query.
    public var path: String
    /// The decoded query items; when a name repeats, the last one wins.
    ///
    /// Items are split on `&` and `=` and then percent-decoded as `URLComponents` does (a `+` stays a `+`);
    /// an item without `=` has the value `""`.
    public var query: [String: String]
    /// The header fields in order, exactly as received.
    public var headers: [(name: String, value: String)]
    /// The body, once it has been received whole (``TestHTTPServer/requests`` lists a request from its head on,
    /// with its body added when it ends; a handler always gets it whole).
    public var body: [UInt8]

    /// Makes a request as the server would record it, e.g. to call a handler directly in a unit test.
    public init(
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
                let name = Self.percentDecoded(parts[0])
                query[name] = parts.count > 1 ? Self.percentDecoded(parts[1]) : ""
            }
        }
    }

    /// The value of the first header field called `name`, compared case-insensitively, or `nil`.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// `text` with every valid `%XX` escape replaced by its byte; malformed escapes are kept as they are.
    private static func percentDecoded(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
