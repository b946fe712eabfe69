/// How the core sends requests: identity, limits, retries.
public struct HTTPPolicy: Sendable {
    /// The `User-Agent` of every request.
    public var userAgent: String
    /// The time limit of one request.
    public var timeout: Duration
    /// The largest body accepted.
    public var maxBody: Int
    /// Retries of a transient failure.
    public var retries: Int
    /// The first retry waits up to this long; each next one twice as long, with jitter.
    public var retryBaseDelay: Duration
    /// The longest wait between retries.
    public var retryMaxDelay: Duration
    /// A `Retry-After` up to this long is waited out once; a longer one fails the request at once.
    public var shortRetryAfter: Duration

    /// The policy for `settings`.
    public init(settings: Settings) {
        userAgent = "monitor/\(MonitorVersion.current)"
        timeout = settings.timeout
        maxBody = settings.maxBody
        retries = settings.retries
        retryBaseDelay = .milliseconds(500)
        retryMaxDelay = .seconds(30)
        shortRetryAfter = .seconds(5)
    }
}
