import CoreMetrics

extension MonitorMetrics {
    /// What one feed's HTTP requests record: each answer by status code, transport failures, 304s, bytes and the
    /// rate limits the answers report.
    package struct Requests: Sendable {
        /// Records nothing.
        static let disabled = MonitorMetrics.disabled.requests(feed: "")

        let metrics: MonitorMetrics
        let feed: String

        /// Records an answer with `status` and a body of `bytes` bytes.
        func answered(status: Int, bytes: Int) {
            Counter(
                label: Name.requests, dimensions: [("feed", feed), ("code", String(status))],
                factory: metrics.factory
            ).increment()
            Counter(label: Name.responseBytes, dimensions: [("feed", feed)], factory: metrics.factory)
                .increment(by: bytes)
        }

        /// Records a request that got no answer (a transport failure: refused, reset, timed out, too large).
        func failed() {
            Counter(label: Name.requests, dimensions: [("feed", feed), ("code", "error")], factory: metrics.factory)
                .increment()
        }

        /// Records a conditional request answered 304 Not Modified.
        func notModified() {
            Counter(label: Name.notModified, dimensions: [("feed", feed)], factory: metrics.factory).increment()
        }

        /// Records the `remaining` count of `limit`, reported for `resource` by the server of `url` (only its
        /// scheme, host and port are shown).
        func rateLimit(_ limit: RateLimit, resource: String, url: String) {
            guard let remaining = limit.remaining else { return }
            let dimensions = [("origin", MonitorMetrics.origin(of: url)), ("resource", metrics.resource(resource))]
            Gauge(label: Name.rateLimitRemaining, dimensions: dimensions, factory: metrics.factory).record(remaining)
        }
    }
}
