/// What one API adds to the core's generic HTTP rules, supplied by its source (`FeedSource.httpPolicy`).
///
/// The core keeps the generic parts: validators, retries, `Retry-After`, 429 and 503, the `x-ratelimit-*`
/// counts and the caps of ``HTTPPolicy``. A source names here what only its API says: which rate limit an answer
/// counted against, the poll interval it asks for, and error answers that are rate limits without saying so in
/// headers. Whatever a policy returns is capped like the generic headers.
package protocol HTTPSourcePolicy: Sendable {
    /// The rate limit a request counts against when it names none, and an answer when the API names none
    /// (GitHub's `core`); by default `core`.
    var defaultResource: String { get }
    /// The rate limit `response` counted against, when the API names it (GitHub's `x-ratelimit-resource`);
    /// nil: the one the request named.
    func rateLimitResource(of response: HTTPResponse) -> String?
    /// The shortest poll interval `response` asks for (GitHub's `X-Poll-Interval`); nil: none.
    func pollInterval(of response: HTTPResponse) -> Duration?
    /// Whether the error `response` (whose short `message` is given) is a rate limit its headers do not show,
    /// such as GitHub's secondary rate limit: how long to hold back and why; nil: it is not.
    func hiddenRateLimit(of response: HTTPResponse, message: String?) -> (wait: Duration, reason: String)?
}

extension HTTPSourcePolicy {
    package var defaultResource: String { "core" }
    package func rateLimitResource(of response: HTTPResponse) -> String? { nil }
    package func pollInterval(of response: HTTPResponse) -> Duration? { nil }
    package func hiddenRateLimit(of response: HTTPResponse, message: String?) -> (wait: Duration, reason: String)? {
        nil
    }
}

/// The policy of a source whose API needs nothing beyond the generic rules.
package struct GenericHTTPPolicy: HTTPSourcePolicy {
    package init() {}
}
