import MonitorCore
import MonitorText

/// What the GitHub REST API adds to the core's HTTP rules: rate limits per resource (`x-ratelimit-resource`),
/// the poll interval of the events API (`X-Poll-Interval`) and the secondary rate limit, which a 403 or 429
/// announces only in its message.
struct GitHubHTTPPolicy: HTTPSourcePolicy {
    /// How long to hold back after a secondary rate limit that gives no `Retry-After`: GitHub asks to wait "at
    /// least one minute".
    static let secondaryWait: Duration = .seconds(60)

    /// The rate limit of the REST API's requests, but for search (`search`).
    var defaultResource: String { "core" }

    func rateLimitResource(of response: HTTPResponse) -> String? {
        response.headers["x-ratelimit-resource"]?.trimmingWhitespace()
    }

    func pollInterval(of response: HTTPResponse) -> Duration? {
        guard let text = response.headers["X-Poll-Interval"]?.trimmingWhitespace(), let seconds = Double(text),
            seconds > 0, seconds.isFinite
        else { return nil }
        // Capped here already so that an absurd number cannot overflow a Duration (the core caps it again).
        return .seconds(min(seconds, HTTPPolicy.maximumPollInterval.seconds))
    }

    func hiddenRateLimit(of response: HTTPResponse, message: String?) -> (wait: Duration, reason: String)? {
        guard [403, 429].contains(response.status), let message,
            message.lowercased().contains("secondary rate limit")
        else { return nil }
        return (Self.secondaryWait, "secondary rate limit")
    }
}
