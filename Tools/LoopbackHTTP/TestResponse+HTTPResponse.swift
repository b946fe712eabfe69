import MonitorCore

extension TestResponse {
    /// The server's answer carrying `response` (the core's terms): its status, header fields in order, and body.
    package init(_ response: HTTPResponse) {
        self.init(
            status: response.status, headers: response.headers.map { (name: $0.name, value: $0.value) },
            body: response.body)
    }
}
