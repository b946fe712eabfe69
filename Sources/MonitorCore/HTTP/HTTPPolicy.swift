import Foundation

/// How the core sends requests: identity, limits, retries, and how far a server's timing headers are believed.
package struct HTTPPolicy: Sendable {
    /// The longest a server can hold a feed back: a `Retry-After` (seconds or an HTTP date), an
    /// `X-RateLimit-Reset` or a source's own rate limit is cut to one hour from the answer. GitHub's limits reset
    /// within the hour, so a longer wait is a broken or hostile server and would lock the feed out for good.
    package static let maximumHold: Duration = .seconds(3600)
    /// The longest poll interval a server can ask for (GitHub's `X-Poll-Interval`): one hour, for the same reason.
    package static let maximumPollInterval: Duration = .seconds(3600)

    /// The `User-Agent` of every request.
    var userAgent: String
    /// The time limit of one request, from sending it to the last byte of its body.
    package var timeout: Duration
    /// The largest body accepted.
    package var maxBody: Int
    /// Retries of a transient failure.
    package var retries: Int
    /// The first retry waits up to this long; each next one twice as long, with jitter.
    var retryBaseDelay: Duration
    /// The longest wait between retries.
    var retryMaxDelay: Duration
    /// A `Retry-After` up to this long is waited out once; a longer one fails the request at once.
    var shortRetryAfter: Duration

    package init(settings: Settings) {
        userAgent = "monitor/\(MonitorVersion.current)"
        timeout = settings.timeout
        maxBody = settings.maxBody
        retries = settings.retries
        retryBaseDelay = .milliseconds(500)
        retryMaxDelay = .seconds(30)
        shortRetryAfter = .seconds(5)
    }

    /// `until`, but no later than ``maximumHold`` after `now`.
    static func capped(_ until: Date, now: Date) -> Date {
        min(until, now.addingTimeInterval(maximumHold.seconds))
    }
}
