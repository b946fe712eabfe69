import MonitorJSON

/// A notification written for one target: the body to send and how to label it.
struct RenderedNotification: Sendable {
    /// The body, UTF-8.
    var body: [UInt8]
    /// The `Content-Type` of the body.
    var contentType: String
    /// Headers the format adds (ntfy's `Title` and `Tags`), in order; their values are ASCII without line breaks.
    var headers: [(String, String)] = []

    /// A JSON object as the body.
    static func json(_ members: [(key: String, value: JSONValue)]) -> Self {
        Self(body: Array(JSONValue.object(members).text.utf8), contentType: "application/json")
    }
}
