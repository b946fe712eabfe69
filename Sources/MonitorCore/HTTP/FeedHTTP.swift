import Foundation
import Logging
import Synchronization

/// The HTTP client a source gets for one poll. It makes every request conditional on the validators stored
/// for its URL and credential, retries transient failures with backoff, never hammers a rate limit, keeps
/// within the feed's and the global limit of requests in flight, and counts what it did.
public final class FeedHTTP: Sendable {
    /// What a poll's requests did.
    public struct Statistics: Sendable, Hashable {
        /// Requests sent, retries included.
        public var requests = 0
        /// Requests answered 304.
        public var notModified = 0
        /// Response body bytes received.
        public var bytes = 0
    }

    private struct State {
        var statistics = Statistics()
        var validators: [ValidatorKey: Validators]
        var updated: [ValidatorKey: Validators] = [:]
        /// The latest rate limit of each resource (`x-ratelimit-resource`: `core`, `search`…).
        var rateLimits: [String: RateLimit] = [:]
        /// Before when each resource must not be asked again.
        var blocked: [String: Date] = [:]
        var minimumInterval: Duration?
    }

    /// The resource of a request that names none, and of a response that says none.
    public static let defaultResource = "core"

    private let transport: any HTTPTransport
    /// How requests are sent: its limits (`timeout`, `maxBody`) are the settings' and bound a source's other work too.
    public let policy: HTTPPolicy
    private let limiters: [AsyncSemaphore]
    private let clock: PollClock
    private let logger: Logger
    private let state: Mutex<State>

    /// A client sending through `transport`, holding a permit of each of `limiters` (the feed's, then the
    /// global one) while a request is in flight, starting from the stored `validators`.
    public init(
        transport: any HTTPTransport, policy: HTTPPolicy, limiters: [AsyncSemaphore],
        validators: [ValidatorKey: Validators] = [:], rateLimit: RateLimit? = nil, clock: PollClock = .system,
        logger: Logger
    ) {
        self.transport = transport
        self.policy = policy
        self.limiters = limiters
        self.clock = clock
        self.logger = logger
        var initial = State(validators: validators)
        if let rateLimit { initial.rateLimits[rateLimit.resource ?? Self.defaultResource] = rateLimit }
        state = Mutex(initial)
    }

    /// What the poll's requests did so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }
    /// Validators learned in this poll, to be stored with its results.
    public var updatedValidators: [ValidatorKey: Validators] { state.withLock { $0.updated } }
    /// The rate limit of the default resource as the server reported it last, else of any other.
    public var rateLimit: RateLimit? {
        state.withLock { $0.rateLimits[Self.defaultResource] ?? $0.rateLimits.sorted { $0.key < $1.key }.first?.value }
    }
    /// The time before which the feed must not be polled again because its default resource is exhausted
    /// (rate limit, `Retry-After`).
    public var notBefore: Date? { state.withLock { $0.blocked[Self.defaultResource] } }
    /// The latest time before which any resource must not be asked again.
    public var latestBlock: Date? { state.withLock { $0.blocked.values.max() } }
    /// The shortest poll interval the server asked for (`X-Poll-Interval`).
    public var minimumInterval: Duration? { state.withLock { $0.minimumInterval } }

    /// GETs `url` with `headers`. `credential` is the secret the headers carry, if any: validators are kept
    /// per URL and credential. `resource` names the rate limit the request counts against (GitHub's
    /// `x-ratelimit-resource`): an exhausted one fails the request at once without sending it, while the
    /// others go on. A 304 is returned (never retried), not thrown; an error status, a rate limit or a failure
    /// after the retries is thrown as a `FetchError`.
    public func get(
        _ url: String, headers: HTTPHeaders = [:], credential: String? = nil,
        resource: String = FeedHTTP.defaultResource
    ) async throws -> HTTPResponse {
        let key = ValidatorKey(url: url, credentialValue: credential)
        var attempts = 0
        var waitedRetryAfter = false
        while true {
            try Task.checkCancellation()
            if let blocked = blockedUntil(resource) {
                throw FetchError(
                    url: url, reason: .rateLimited(until: blocked, detail: "rate limit exhausted"), attempts: attempts,
                    timeout: policy.timeout)
            }
            var request = HTTPRequest(url: url, headers: headers, timeout: policy.timeout, maxBody: policy.maxBody)
            request.headers.set("User-Agent", policy.userAgent)
            if let validators = state.withLock({ $0.updated[key] ?? $0.validators[key] }) {
                if let etag = validators.etag { request.headers.set("If-None-Match", etag) }
                if let lastModified = validators.lastModified { request.headers.set("If-Modified-Since", lastModified) }
            }
            attempts += 1
            let started = clock.now()
            let response: HTTPResponse
            do {
                response = try await send(request)
            } catch let error as TransportError {
                let failure = FetchError(
                    url: url, reason: .transport(error), attempts: attempts, timeout: policy.timeout)
                logger.debug("GET failed", metadata: ["url": "\(url)", "error": "\(failure)"])
                if failure.isTransient, attempts <= policy.retries {
                    try await backOff(attempt: attempts)
                    continue
                }
                throw failure
            }
            let elapsed = Int(clock.now().timeIntervalSince(started) * 1000)
            logger.debug("GET", metadata: ["url": "\(url)", "status": "\(response.status)", "ms": "\(elapsed)"])
            record(response, resource: resource)

            switch response.status {
            case 304:
                state.withLock { state in
                    state.statistics.notModified += 1
                    let old = state.updated[key] ?? state.validators[key] ?? Validators(etag: nil, lastModified: nil)
                    let new = Validators(
                        etag: response.headers["ETag"] ?? old.etag,
                        lastModified: response.headers["Last-Modified"] ?? old.lastModified)
                    if new != old { state.updated[key] = new }
                }
                return response
            case 200..<300:
                let validators = Validators(
                    etag: response.headers["ETag"], lastModified: response.headers["Last-Modified"])
                state.withLock { state in
                    if validators != state.validators[key] || state.updated[key] != nil {
                        state.updated[key] = validators
                    }
                }
                return response
            default:
                break
            }

            if let limited = rateLimitFailure(
                response, url: url, resource: resource, attempts: attempts, waited: waitedRetryAfter)
            {
                switch limited {
                case .wait(let duration):
                    waitedRetryAfter = true
                    attempts -= 1
                    try await clock.sleep(duration)
                    continue
                case .fail(let error):
                    throw error
                }
            }
            let failure = FetchError(
                url: url, reason: .status(response.status, message: Self.message(in: response.body)),
                attempts: attempts,
                timeout: policy.timeout)
            if failure.isTransient, attempts <= policy.retries {
                try await backOff(attempt: attempts)
                continue
            }
            throw failure
        }
    }

    // MARK: - Sending

    private func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var held: [AsyncSemaphore] = []
        defer { held.reversed().forEach { $0.release() } }
        for limiter in limiters {
            try await limiter.acquire()
            held.append(limiter)
        }
        do {
            let response = try await transport.send(request)
            state.withLock { state in
                state.statistics.requests += 1
                state.statistics.bytes += response.body.count
            }
            return response
        } catch {
            state.withLock { $0.statistics.requests += 1 }
            throw error
        }
    }

    private func backOff(attempt: Int) async throws {
        let base = policy.retryBaseDelay * (1 << min(attempt - 1, 16))
        let capped = min(base, policy.retryMaxDelay)
        // Jitter: somewhere between half and all of the exponential delay.
        try await clock.sleep(capped * (0.5 + clock.random() / 2))
    }

    // MARK: - Rate limits

    private enum Limited {
        case wait(Duration)
        case fail(FetchError)
    }

    private func blockedUntil(_ resource: String) -> Date? {
        state.withLock { state in
            if let until = state.blocked[resource], until > clock.now() { return until }
            if let limit = state.rateLimits[resource], limit.remaining == 0, let reset = limit.reset,
                reset > clock.now()
            {
                return reset
            }
            return nil
        }
    }

    private func record(_ response: HTTPResponse, resource: String) {
        state.withLock { state in
            if let limit = RateLimit(headers: response.headers) { state.rateLimits[limit.resource ?? resource] = limit }
            if let seconds = response.headers["X-Poll-Interval"].flatMap({ Int($0.trimmingWhitespace()) }), seconds > 0
            {
                state.minimumInterval = max(state.minimumInterval ?? .zero, .seconds(seconds))
            }
        }
    }

    private func rateLimitFailure(
        _ response: HTTPResponse, url: String, resource: String, attempts: Int, waited: Bool
    ) -> Limited? {
        guard [403, 429, 503].contains(response.status) else { return nil }
        let now = clock.now()
        let fail = { (until: Date, detail: String) -> Limited in
            let key = RateLimit(headers: response.headers)?.resource ?? resource
            self.state.withLock { state in state.blocked[key] = max(state.blocked[key] ?? until, until) }
            return .fail(
                FetchError(
                    url: url, reason: .rateLimited(until: until, detail: detail), attempts: attempts,
                    timeout: self.policy.timeout))
        }
        if let retryAfter = response.headers["Retry-After"].flatMap({ Self.retryAfter($0, now: now) }) {
            if retryAfter <= policy.shortRetryAfter, !waited { return .wait(max(retryAfter, .zero)) }
            let seconds = Double(retryAfter.components.seconds)
            return fail(
                now.addingTimeInterval(max(seconds, 1)),
                "HTTP \(response.status): the server asked to retry after \(DurationFormat.string(retryAfter))")
        }
        guard response.status != 503 else { return nil }
        let limit = RateLimit(headers: response.headers)
        if limit?.remaining == 0 {
            let until = limit?.reset ?? now.addingTimeInterval(60)
            return fail(until, "HTTP \(response.status): rate limit exhausted (x-ratelimit-remaining: 0)")
        }
        if let message = Self.message(in: response.body), message.lowercased().contains("secondary rate limit") {
            return fail(now.addingTimeInterval(60), "HTTP \(response.status): secondary rate limit")
        }
        return nil
    }

    /// A `Retry-After` value: seconds, or an HTTP date.
    static func retryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingWhitespace()
        if let seconds = Int(text) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
    }

    /// The `message` of a JSON error body, or a short text body, made safe for a terminal.
    static func message(in body: [UInt8]) -> String? {
        guard !body.isEmpty, body.count <= 64 << 10 else { return nil }
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let message = object["message"] as? String ?? object["error"] as? String
        {
            return String(TerminalText.sanitized(message).prefix(200))
        }
        let text = TerminalText.sanitized(String(decoding: body.prefix(200), as: UTF8.self)).trimmingWhitespace()
        guard !text.isEmpty, !text.hasPrefix("<") else { return nil }
        return text
    }
}
