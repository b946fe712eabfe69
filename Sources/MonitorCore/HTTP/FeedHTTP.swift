import Foundation
import Logging
import MonitorConcurrency
import MonitorJSON
import MonitorText
import Synchronization

/// The HTTP client a source gets for one poll. It makes every request conditional on the validators stored
/// for its URL and credential, retries transient failures with backoff, never hammers a rate limit, keeps
/// within the feed's and the global limit of requests in flight, and counts what it did.
package final class FeedHTTP: Sendable {
    /// What a poll's requests did.
    struct Statistics: Sendable, Hashable {
        /// Requests sent, retries included.
        var requests = 0
        /// Requests answered 304.
        var notModified = 0
        /// Response body bytes received.
        var bytes = 0
    }

    private struct State {
        var statistics = Statistics()
        var validators: [ValidatorKey: Validators]
        var updated: [ValidatorKey: Validators] = [:]
        /// The latest rate limit of each resource (`core`, `search`…).
        var rateLimits: [String: RateLimit] = [:]
        /// Until when, and why, each resource must not be asked again.
        var blocked: [String: Hold] = [:]
        var minimumInterval: Duration?
    }

    /// Until when, and why, a server holds requests back.
    typealias Hold = RateBudgets.Hold

    private let transport: any HTTPTransport
    /// How requests are sent: its limits (`timeout`, `maxBody`) are the settings' and bound a source's other work too.
    package let policy: HTTPPolicy
    private let sourcePolicy: any HTTPSourcePolicy
    /// The resource of a request that names none, and of a response that says none: the source policy's.
    private let defaultResource: String
    private let budgets: RateBudgets
    private let limiters: [AsyncSemaphore]
    private let clock: any PollClock
    private let logger: Logger
    private let metrics: MonitorMetrics.Requests
    private let state: Mutex<State>

    /// A client sending through `transport`, holding a permit of each of `limiters` (the feed's, then the
    /// global one) while a request is in flight, starting from the stored `validators` and `rateLimit`.
    /// `sourcePolicy` adds what the source's API says beyond the generic headers; `budgets` are the rate limits
    /// shared with the other feeds of the run (by default this client's own). What the requests do is recorded in
    /// `metrics`.
    package init(
        transport: any HTTPTransport, policy: HTTPPolicy, sourcePolicy: any HTTPSourcePolicy = GenericHTTPPolicy(),
        budgets: RateBudgets = RateBudgets(), limiters: [AsyncSemaphore], validators: [ValidatorKey: Validators] = [:],
        rateLimit: RateLimit? = nil, clock: any PollClock = WallClock(), logger: Logger,
        metrics: MonitorMetrics.Requests = .disabled
    ) {
        self.transport = transport
        self.policy = policy
        self.sourcePolicy = sourcePolicy
        defaultResource = sourcePolicy.defaultResource
        self.budgets = budgets
        self.limiters = limiters
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
        var initial = State(validators: validators)
        // Validators under an earlier version's fingerprint of a credential can never be used: forgotten, so that
        // the poll's results delete them from the state.
        for key in validators.keys where !key.isCurrent {
            initial.updated[key] = Validators(etag: nil, lastModified: nil)
        }
        if var rateLimit {
            rateLimit.reset = rateLimit.reset.map { HTTPPolicy.capped($0, now: clock.now.date) }
            initial.rateLimits[rateLimit.resource ?? defaultResource] = rateLimit
        }
        state = Mutex(initial)
    }

    /// What the poll's requests did so far.
    var statistics: Statistics { state.withLock { $0.statistics } }
    /// Validators learned in this poll, to be stored with its results.
    var updatedValidators: [ValidatorKey: Validators] { state.withLock { $0.updated } }
    /// The rate limit of the default resource as the server reported it last, else of any other.
    package var rateLimit: RateLimit? {
        state.withLock { $0.rateLimits[defaultResource] ?? $0.rateLimits.sorted { $0.key < $1.key }.first?.value }
    }
    /// Until when and why the feed must not be polled again because its default resource is held back (rate
    /// limit, `Retry-After`).
    var hold: Hold? { state.withLock { $0.blocked[defaultResource] } }
    /// The latest hold of any resource.
    var latestHold: Hold? { state.withLock { $0.blocked.values.max { $0.until < $1.until } } }
    /// The shortest poll interval the server asked for (the source policy's, e.g. `X-Poll-Interval`), at most
    /// ``HTTPPolicy/maximumPollInterval``.
    var minimumInterval: Duration? { state.withLock { $0.minimumInterval } }

    /// Forgets the validators of `url` (with `credential`): the source could not use the body it was answered,
    /// so the next request must not be answered 304 for it (the stored ones are removed with the poll's results).
    package func forget(_ url: String, credential: String? = nil) {
        let key = ValidatorKey(url: url, credentialValue: credential)
        state.withLock { $0.updated[key] = Validators(etag: nil, lastModified: nil) }
    }

    /// GETs `url` with `headers`. `credential` is the secret the headers carry, if any (several: one a line):
    /// validators are kept per URL and credential, and rate limits per origin and credential. `resource` names the
    /// rate limit the request counts against (GitHub's `search`; nil: the default one): an exhausted one fails the
    /// request at once without sending it, while the others go on. A 304 is returned (never retried), not thrown,
    /// unless the request sent no validator; an error status, a rate limit or a failure after the retries is thrown
    /// as a `FetchError`.
    package func get(
        _ url: String, headers: HTTPHeaders = [:], credential: String? = nil,
        resource: String? = nil
    ) async throws -> HTTPResponse {
        let resource = resource ?? defaultResource
        let key = ValidatorKey(url: url, credentialValue: credential)
        var attempts = 0
        var waitedRetryAfter = false
        func failure(_ reason: FetchError.Reason) -> FetchError {
            FetchError(url: url, reason: reason, attempts: attempts, timeout: policy.timeout)
        }
        while true {
            try Task.checkCancellation()
            if let blocked = blockedUntil(resource) {
                throw failure(.rateLimited(until: blocked.until, detail: blocked.reason))
            }
            var request = HTTPRequest(url: url, headers: headers, timeout: policy.timeout, maxBody: policy.maxBody)
            request.headers.set("User-Agent", policy.userAgent)
            if let validators = state.withLock({ $0.updated[key] ?? $0.validators[key] }) {
                if let etag = validators.etag { request.headers.set("If-None-Match", etag) }
                if let lastModified = validators.lastModified { request.headers.set("If-Modified-Since", lastModified) }
            }
            let conditional = request.headers["If-None-Match"] != nil || request.headers["If-Modified-Since"] != nil
            let budget = RateBudgets.Key(url: url, credential: credential, resource: resource)
            attempts += 1
            let started = clock.now
            let response: HTTPResponse
            let limited: Limited?
            do {
                (response, limited) = try await send(
                    request, budget: budget, resource: resource, attempts: attempts, waited: waitedRetryAfter)
            } catch let hold as HeldBack {
                attempts -= 1
                holdBack(resource, hold.hold)
                throw failure(.rateLimited(until: hold.hold.until, detail: hold.hold.reason))
            } catch let error as TransportError {
                let transport = failure(.transport(error))
                logger.debug("GET failed", metadata: ["url": "\(url)", "error": "\(transport)"])
                if transport.isTransient, attempts <= policy.retries {
                    try await backOff(attempt: attempts)
                    continue
                }
                throw transport
            }
            let elapsed = started.duration(to: clock.now).milliseconds
            logger.debug("GET", metadata: ["url": "\(url)", "status": "\(response.status)", "ms": "\(elapsed)"])

            switch response.status {
            case 304 where !conditional:
                throw failure(.unrequestedNotModified)
            case 304:
                metrics.notModified()
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

            if let limited {
                switch limited {
                case .wait(let duration):
                    waitedRetryAfter = true
                    attempts -= 1
                    try await clock.sleep(for: duration)
                    continue
                case .fail(let error):
                    throw error
                }
            }
            // A redirect not followed (`validate --online` follows none) says where it goes.
            let redaction = Redaction(values: Self.secrets(credential))
            let location = response.headers["Location"].map { redaction.message($0, limit: 200) }
            let message =
                (300..<400).contains(response.status) && location != nil
                ? "redirected to \(location ?? ""), not followed"
                : Self.message(in: response.body, hiding: credential)
            let refused = failure(.status(response.status, message: message))
            if refused.isTransient, attempts <= policy.retries {
                try await backOff(attempt: attempts)
                continue
            }
            throw refused
        }
    }

    // MARK: - Sending

    /// A request the shared budget did not let through.
    private struct HeldBack: Error {
        var hold: Hold
    }

    /// Sends `request` once a permit of each limiter is held and `budget` has a request left, and learns what
    /// the answer says of the rate limit (its count, and an exhausted limit, a `Retry-After` or a secondary limit,
    /// held back for every feed sharing the budget) before the permits are released: the next request waiting for
    /// them knows it. `attempts` and `waited` are the request's so far.
    private func send(
        _ request: HTTPRequest, budget: RateBudgets.Key, resource: String, attempts: Int, waited: Bool
    ) async throws -> (HTTPResponse, Limited?) {
        var held: [AsyncSemaphore] = []
        defer { held.reversed().forEach { $0.release() } }
        for limiter in limiters {
            try await limiter.acquire()
            held.append(limiter)
        }
        // Asked only now, with the permits held: feeds waiting for a slot learn what the ones before them spent.
        let ticket: Int64?
        switch try await budgets.spend(budget, now: clock.now.date) {
        case .held(let hold): throw HeldBack(hold: hold)
        case .send(let taken): ticket = taken
        }
        do {
            let response = try await transport.send(request)
            state.withLock { state in
                state.statistics.requests += 1
                state.statistics.bytes += response.body.count
            }
            metrics.answered(status: response.status, bytes: response.body.count)
            await record(response, resource: resource, url: request.url, budget: budget, ticket: ticket)
            let limited = await rateLimitFailure(
                response, url: request.url, resource: answeredResource(response, requested: resource),
                budget: budget, attempts: attempts, waited: waited)
            return (response, limited)
        } catch {
            state.withLock { $0.statistics.requests += 1 }
            metrics.failed()
            await budgets.settle(budget, answer: nil, ticket: ticket)
            throw error
        }
    }

    private func backOff(attempt: Int) async throws {
        let backoff = Backoff(base: policy.retryBaseDelay, maximum: policy.retryMaxDelay)
        try await clock.sleep(for: backoff.delay(afterAttempts: attempt, retryAfter: nil, random: clock.random()))
    }

    // MARK: - Rate limits

    private enum Limited {
        case wait(Duration)
        case fail(FetchError)
    }

    private func blockedUntil(_ resource: String) -> Hold? {
        state.withLock { state in
            let now = clock.now.date
            if let hold = state.blocked[resource], hold.until > now { return hold }
            if let limit = state.rateLimits[resource], limit.remaining == 0, let reset = limit.reset, reset > now {
                let hold = Hold(until: reset, reason: "rate limit exhausted")
                state.blocked[resource] = hold
                return hold
            }
            return nil
        }
    }

    private func holdBack(_ resource: String, _ hold: Hold) {
        state.withLock { state in
            if let existing = state.blocked[resource], existing.until >= hold.until { return }
            state.blocked[resource] = hold
        }
    }

    /// The rate limit `response` counted against: the one the source's policy reads from it, else `requested`.
    private func answeredResource(_ response: HTTPResponse, requested: String) -> String {
        sourcePolicy.rateLimitResource(of: response).flatMap { $0.isEmpty ? nil : $0 } ?? requested
    }

    /// Learns the rate limit and poll interval of `response`, here and in the shared budget, and ends its request
    /// (of `ticket`) in `budget`.
    private func record(
        _ response: HTTPResponse, resource: String, url: String, budget: RateBudgets.Key, ticket: Int64?
    ) async {
        let now = clock.now.date
        let answered = answeredResource(response, requested: resource)
        var limit = RateLimit(headers: response.headers, resource: answered)
        if let reset = limit?.reset { limit?.reset = HTTPPolicy.capped(reset, now: now) }
        if let limit {
            state.withLock { $0.rateLimits[answered] = limit }
            metrics.rateLimit(limit, resource: answered, url: url)
        }
        if answered == resource {
            await budgets.settle(budget, answer: limit, ticket: ticket)
        } else {
            // The answer names another resource than the request did: the request ends in its own budget, the
            // limit is learned in the named one's.
            await budgets.settle(budget, answer: nil, ticket: ticket)
            var named = budget
            named.resource = answered
            if let limit { await budgets.learn(limit, for: named) }
        }
        if let interval = sourcePolicy.pollInterval(of: response), interval > .zero {
            let capped = min(interval, HTTPPolicy.maximumPollInterval)
            state.withLock { $0.minimumInterval = max($0.minimumInterval ?? .zero, capped) }
        }
    }

    private func rateLimitFailure(
        _ response: HTTPResponse, url: String, resource: String, budget: RateBudgets.Key, attempts: Int, waited: Bool
    ) async -> Limited? {
        guard [403, 429, 503].contains(response.status) else { return nil }
        let now = clock.now.date
        let fail = { (until: Date, reason: String, detail: String) async -> Limited in
            let hold = Hold(until: HTTPPolicy.capped(until, now: now), reason: reason)
            self.holdBack(resource, hold)
            var key = budget
            key.resource = resource
            await self.budgets.hold(key, hold)
            return .fail(
                FetchError(
                    url: url, reason: .rateLimited(until: hold.until, detail: detail), attempts: attempts,
                    timeout: self.policy.timeout))
        }
        if let retryAfter = response.headers["Retry-After"].flatMap({ Self.retryAfter($0, now: now) }) {
            if retryAfter <= policy.shortRetryAfter, !waited { return .wait(max(retryAfter, .zero)) }
            let wait = max(retryAfter.seconds, 1)
            return await fail(
                now.addingTimeInterval(wait), "HTTP \(response.status) asked to retry later",
                "HTTP \(response.status): the server asked to retry after \(DurationFormat.string(retryAfter))")
        }
        guard response.status != 503 else { return nil }
        let limit = RateLimit(headers: response.headers)
        if limit?.remaining == 0 {
            let until = limit?.reset ?? now.addingTimeInterval(60)
            return await fail(
                until, "rate limit exhausted",
                "HTTP \(response.status): rate limit exhausted (x-ratelimit-remaining: 0)"
            )
        }
        if let hidden = sourcePolicy.hiddenRateLimit(of: response, message: Self.message(in: response.body)) {
            return await fail(
                now.addingTimeInterval(max(hidden.wait.seconds, 1)), hidden.reason,
                "HTTP \(response.status): \(hidden.reason)")
        }
        return nil
    }

    /// A `Retry-After` value (seconds, or an HTTP date) as a wait from `now`, cut to ``HTTPPolicy/maximumHold``; nil
    /// when it is neither.
    package static func retryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingWhitespace()
        let cap = HTTPPolicy.maximumHold.seconds
        if !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
            // Digits only (RFC 9110); a number too large for any type is still "very long".
            return .seconds(min(Double(text) ?? cap, cap))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .seconds(min(max(0, date.timeIntervalSince(now).rounded(.up)), cap))
    }

    /// The secrets of a credential: one a line.
    static func secrets(_ credential: String?) -> [String] {
        credential?.split(separator: "\n").map(String.init) ?? []
    }

    /// The `message` of a JSON error body, or a short text body, made safe for a terminal, with `credential` hidden
    /// as a notifier's secrets are (a server may echo the token it was sent): every error, report and notification
    /// made of it shows none of it.
    static func message(in body: [UInt8], hiding credential: String? = nil) -> String? {
        guard !body.isEmpty, body.count <= 64 << 10 else { return nil }
        let redaction = Redaction(values: Self.secrets(credential))
        if let member = messageMember(in: body) { return redaction.message(member, limit: 200) }
        let text = redaction.message(String(decoding: body, as: UTF8.self), limit: 200)
        guard !text.isEmpty, !text.hasPrefix("<") else { return nil }
        return text
    }

    /// The text of a JSON object's `message` member, else of its `error` member; nil when the body is not a JSON
    /// object or neither is a text.
    private static func messageMember(in body: [UInt8]) -> String? {
        try? JSONReader.document(body) { (reader) throws(JSONError) in
            var message: String?
            var error: String?
            try reader.members { (key, reader) throws(JSONError) in
                let isMessage = reader.key(key, is: "message")
                guard isMessage || reader.key(key, is: "error") else { return }
                let text = try reader.kind() == .string ? try reader.string() : nil
                if isMessage { message = text } else { error = text }
            }
            return message ?? error
        } ?? nil
    }
}
