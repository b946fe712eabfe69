import Foundation
import Synchronization

/// The rate-limit budgets the feeds of one run share: one per API origin, credential and resource.
///
/// A server's rate limit belongs to whoever asks (a token, or the address of an unauthenticated client), not to a
/// feed: feeds that send the same credential to the same scheme, host and port spend one budget. What one feed
/// learns (the remaining count and the reset of a response, an exhausted limit, a `Retry-After`) holds for all of
/// them. A request is sent only while the least remaining count the server reported is larger than the number of
/// requests in flight (it waits for their answers when they may have used up the rest), so feeds polled at once
/// do not overspend; once the count is 0, or the server said to wait, none of them sends until the reset. Budgets are
/// keyed by a fingerprint of the credential, never the credential itself.
public final class RateBudgets: Sendable {
    /// Which budget a request spends.
    public struct Key: Sendable, Hashable {
        /// `scheme://host:port`, lowercased.
        public var origin: String
        /// The fingerprint of the credential (`ValidatorKey.fingerprint`), "" without one.
        public var credential: String
        /// The rate limit's resource (`core`, `search`…).
        public var resource: String

        /// The key of a request to `url` with `credential` counting against `resource`.
        public init(url: String, credential: String?, resource: String) {
            origin = Self.origin(of: url)
            self.credential = credential.map(ValidatorKey.fingerprint) ?? ""
            self.resource = resource
        }

        /// `scheme://host:port` of `url`, lowercased, with the scheme's default port when it names none.
        static func origin(of url: String) -> String {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
                let host = components.host?.lowercased()
            else { return url }
            let port = components.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : 0)
            return "\(scheme)://\(host):\(port)"
        }
    }

    /// Why and until when a budget is closed.
    public struct Hold: Sendable, Hashable {
        /// Until when nothing is sent.
        public var until: Date
        /// Why, in a few words (`rate limit exhausted`).
        public var reason: String

        /// A hold.
        public init(until: Date, reason: String) {
            self.until = until
            self.reason = reason
        }
    }

    private struct Budget {
        /// Requests sent whose answer has not come.
        var inFlight = 0
        /// The least remaining count the server reported in this window.
        var lowest: Int?
        /// When the window resets.
        var reset: Date?
        /// A hold the server asked for (an exhausted limit, `Retry-After`, a source's hidden limit).
        var hold: Hold?
        /// Requests waiting for the answers in flight to say whether the budget has room for them.
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    }

    private enum Decision {
        case send
        case held(Hold)
        case wait
    }

    private let budgets = Mutex<(budgets: [Key: Budget], nextWaiter: UInt64)>(([:], 0))

    /// Empty budgets: nothing is known of any server.
    public init() {}

    /// Takes one request from `key`'s budget, or returns the hold that keeps it from being sent. When the
    /// requests in flight may have used up what is left, waits for their answers first. Every request let through
    /// must be ended with ``settle(_:answer:)``. `now` is read again after each wait.
    public func spend(_ key: Key, now currentTime: @autoclosure @Sendable () -> Date) async throws -> Hold? {
        while true {
            let now = currentTime()
            let id = budgets.withLock { state -> UInt64 in
                state.nextWaiter += 1
                return state.nextWaiter
            }
            var decision = Decision.send
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let cancelled = Task.isCancelled
                    decision = budgets.withLock { state -> Decision in
                        if cancelled { return .send }
                        let decision = Self.decide(&state.budgets[key, default: Budget()], now: now)
                        if case .wait = decision { state.budgets[key]?.waiters[id] = continuation }
                        return decision
                    }
                    if cancelled {
                        continuation.resume(throwing: CancellationError())
                    } else if case .wait = decision {
                        return
                    } else {
                        continuation.resume()
                    }
                }
            } onCancel: {
                let waiter = budgets.withLock { $0.budgets[key]?.waiters.removeValue(forKey: id) }
                waiter?.resume(throwing: CancellationError())
            }
            switch decision {
            case .send: return nil
            case .held(let hold): return hold
            case .wait: continue
            }
        }
    }

    private static func decide(_ budget: inout Budget, now: Date) -> Decision {
        if let hold = budget.hold {
            if hold.until > now { return .held(hold) }
            budget.hold = nil
        }
        if let reset = budget.reset, reset <= now {
            // A new window: the count is unknown until the next answer.
            budget.lowest = nil
            budget.reset = nil
        }
        // The server's least count less every request in flight: some of those it may have counted already, so
        // this is exact once they are answered.
        if let lowest = budget.lowest, lowest - budget.inFlight <= 0 {
            if budget.inFlight > 0 { return .wait }
            if let reset = budget.reset, reset > now {
                return .held(Hold(until: reset, reason: "rate limit exhausted"))
            }
        }
        budget.inFlight += 1
        return .send
    }

    /// Ends a request ``spend(_:now:)`` let through, with the rate limit its answer reported (its reset already
    /// capped), or nil when there was no answer or it said nothing of the limit.
    public func settle(_ key: Key, answer limit: RateLimit?) {
        update(key, limit, ending: true)
    }

    /// Learns a rate limit reported for `key` by the answer to a request that counted against another budget.
    public func learn(_ limit: RateLimit, for key: Key) {
        update(key, limit, ending: false)
    }

    private func update(_ key: Key, _ limit: RateLimit?, ending: Bool) {
        let waiters = budgets.withLock { state -> [CheckedContinuation<Void, any Error>] in
            var budget = state.budgets[key] ?? Budget()
            defer { state.budgets[key] = budget }
            if ending { budget.inFlight = max(budget.inFlight - 1, 0) }
            if let limit, let remaining = limit.remaining {
                let remaining = max(remaining, 0)
                switch (budget.reset, limit.reset) {
                case (let known?, let reported?) where reported < known:
                    break  // A late answer from a window that is over.
                case (let known, let reported) where known != reported || budget.lowest == nil:
                    budget.lowest = remaining
                    budget.reset = reported
                default:
                    budget.lowest = min(budget.lowest ?? remaining, remaining)
                }
            }
            let waiters = Array(budget.waiters.values)
            budget.waiters = [:]
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Closes `key`'s budget until `hold.until` (a later hold already there stays).
    public func hold(_ key: Key, _ hold: Hold) {
        budgets.withLock { state in
            var budget = state.budgets[key] ?? Budget()
            if let existing = budget.hold, existing.until >= hold.until { return }
            budget.hold = hold
            state.budgets[key] = budget
        }
    }
}
