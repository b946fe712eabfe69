import Foundation
import Logging
import MonitorConcurrency
import MonitorText
import Synchronization

/// The rate-limit budgets the feeds of one run share: one per API origin, credential and resource.
///
/// A server's rate limit belongs to whoever asks (a token, or the address of an unauthenticated client), not to a
/// feed: feeds that send the same credential to the same scheme, host and port spend one budget. What one feed
/// learns (the remaining count and the reset of a response, an exhausted limit, a `Retry-After`) holds for all of
/// them. A request is sent only while the least remaining count the server reported is larger than the number of
/// requests in flight (it waits for their answers when they may have used up the rest), so feeds polled at once
/// do not overspend; once the count is 0, or the server said to wait, none of them sends until the reset. Budgets are
/// keyed by a fingerprint of the credential, never the credential itself. With ``Sharing``, the budgets of tokens are
/// kept in a state several instances share (``RateBudgetStoring``), and a request goes only when both this instance's
/// budget and the shared one let it.
package final class RateBudgets: Sendable {
    /// Which budget a request spends.
    package struct Key: Sendable, Hashable {
        /// `scheme://host:port`, lowercased.
        package var origin: String
        /// The fingerprint of the credential (`ValidatorKey.fingerprint`), "" without one.
        package var credential: String
        /// The rate limit's resource (`core`, `search`…).
        package var resource: String

        /// The key of a request to `url` with `credential` counting against `resource`.
        init(url: String, credential: String?, resource: String) {
            origin = Self.origin(of: url)
            self.credential = credential.map(ValidatorKey.fingerprint) ?? ""
            self.resource = resource
        }

        /// `scheme://host:port` of `url`, lowercased, with the scheme's default port when it names none; a URL that
        /// cannot be read is named by its fingerprint (`unparsed:…`), never itself (it may hold a password).
        static func origin(of url: String) -> String {
            guard let origin = URLOrigin(url) else { return "unparsed:" + ValidatorKey.fingerprint(url) }
            return "\(origin.scheme)://\(origin.host):\(origin.effectivePort)"
        }
    }

    /// Why and until when a budget is closed.
    package struct Hold: Sendable, Hashable {
        /// Until when nothing is sent.
        package var until: Date
        /// Why, in a few words (`rate limit exhausted`).
        package var reason: String

        /// A hold.
        package init(until: Date, reason: String) {
            self.until = until
            self.reason = reason
        }
    }

    /// What ``spend(_:now:)`` decided.
    enum Spend: Sendable, Hashable {
        /// The request may be sent; `ticket` is its place in the shared budget, nil when none was asked.
        case send(ticket: Int64?)
        /// The budget is closed until the hold ends: the request is not sent.
        case held(Hold)
    }

    /// The budgets kept in a state several instances share: how they are asked.
    package struct Sharing: Sendable {
        /// The state.
        var store: any RateBudgetStoring
        /// How long a request counts as in flight for the other instances when this one never ends it (it died):
        /// longer than a request may take.
        var flight: Duration
        /// How long the state is waited for before this instance decides alone, on its own budget.
        var patience: Duration
        /// How long to wait before asking again while the requests in flight of other instances may use up what is
        /// left: doubled at each wait, up to ``longestRetry``.
        var retry: Duration
        /// Where a state that cannot be asked is told.
        var logger: Logger
        /// How long a state that could not be asked is left alone (each instance deciding on its own budget) before
        /// it is asked again: once, by the first request after it.
        var probe: Duration
        /// The runner's clock, which times the ``probe``.
        var clock: @Sendable () -> Date

        /// Budgets kept in `store`.
        package init(
            store: any RateBudgetStoring, flight: Duration, patience: Duration = .seconds(5),
            retry: Duration = .milliseconds(100), logger: Logger, probe: Duration = .seconds(10),
            clock: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.store = store
            self.flight = flight
            self.patience = patience
            self.retry = retry
            self.logger = logger
            self.probe = probe
            self.clock = clock
        }
    }

    /// Why a budget whose count is 0 is closed.
    static let exhausted = "rate limit exhausted"

    /// The longest wait before asking the shared state again while other instances' requests may use up what is
    /// left.
    static let longestRetry = Duration.seconds(2)

    private struct Budget {
        /// What is known of the server's limit.
        var state = RateBudgetState()
        /// Requests of this instance sent whose answer has not come.
        var inFlight = 0
        /// Requests waiting for the answers in flight to say whether the budget has room for them.
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    }

    private struct Budgets {
        var budgets: [Key: Budget] = [:]
        var nextWaiter: UInt64 = 0
        /// Whether the shared state could not be asked last time.
        var unreachable = false
        /// While unreachable: when (by ``Sharing/clock``) it may be asked again.
        var probeAt = Date.distantPast
    }

    private let budgets = Mutex(Budgets())
    /// The state the budgets are shared through, nil when they are this instance's alone.
    let sharing: Sharing?

    /// Empty budgets: nothing is known of any server. With `sharing`, every decision about a token's budget (a key
    /// with a credential) is also the shared state's, with the requests in flight of every instance; when it cannot
    /// be asked (within its patience), this instance's own budget decides alone and a warning is logged.
    package init(sharing: Sharing? = nil) {
        self.sharing = sharing
    }

    /// Takes one request from `key`'s budget, or returns the hold that keeps it from being sent. When the
    /// requests in flight may have used up what is left, waits for their answers first (of this instance; those of
    /// others are asked about again every `sharing.retry`). Every request let through must be ended with
    /// ``settle(_:answer:ticket:)`` and its ticket. `now` is read again after each wait.
    func spend(_ key: Key, now currentTime: @autoclosure @Sendable () -> Date) async throws -> Spend {
        var retry = sharing?.retry ?? .zero
        while true {
            if let hold = try await spendLocally(key, now: currentTime()) { return .held(hold) }
            guard let sharing = sharing(of: key) else { return .send(ticket: nil) }
            let now = currentTime()
            let stored = Self.stored(key)
            let ticket = Int64.random(in: 1...Int64.max)
            let answer: RateBudgetState.Decision
            do {
                answer = try await ask(sharing) { store in
                    try await store.takeRequest(
                        stored, ticket: ticket, now: now, expires: now.addingTimeInterval(sharing.flight.seconds))
                }
            } catch {
                // A take not waited for (no answer in time, or cancelled) may still be committed: its ticket is
                // ended (if the state answers in time) rather than left to expire. One that failed was not.
                if error is SharingTimeout || Task.isCancelled { endAside(sharing, stored, ticket: ticket) }
                if Task.isCancelled {
                    update(key, nil, ending: true)
                    throw CancellationError()
                }
                return .send(ticket: nil)
            }
            switch answer {
            case .send:
                return .send(ticket: ticket)
            case .held(let hold):
                update(key, nil, ending: true)
                budgets.withLock { $0.budgets[key, default: Budget()].state.hold(hold) }
                return .held(hold)
            case .wait:
                update(key, nil, ending: true)
                try await Task.sleep(for: retry)
                retry = min(retry * 2, Self.longestRetry)
            }
        }
    }

    /// This instance's decision: nil when the request may go (counted in flight), else the hold. Waits for the
    /// answers of this instance's requests in flight when they may use up what is left.
    private func spendLocally(_ key: Key, now currentTime: @autoclosure () -> Date) async throws -> Hold? {
        while true {
            let now = currentTime()
            let id = budgets.withLock { state -> UInt64 in
                state.nextWaiter += 1
                return state.nextWaiter
            }
            var decision = RateBudgetState.Decision.send
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let cancelled = Task.isCancelled
                    decision = budgets.withLock { state -> RateBudgetState.Decision in
                        if cancelled { return .send }
                        var budget = state.budgets[key] ?? Budget()
                        defer { state.budgets[key] = budget }
                        let decision = budget.state.decide(inFlight: budget.inFlight, now: now)
                        switch decision {
                        case .send: budget.inFlight += 1
                        case .wait: budget.waiters[id] = continuation
                        case .held: break
                        }
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

    /// Ends a request ``spend(_:now:)`` let through, with the rate limit its answer reported (its reset already
    /// capped), or nil when there was no answer or it said nothing of the limit, and the ticket it was given.
    /// The shared state is told even when the caller is cancelled (a poll stopped by a signal, a reload, a removed
    /// feed), within its patience, so that the request does not stay in flight for every instance.
    func settle(_ key: Key, answer limit: RateLimit?, ticket: Int64? = nil) async {
        update(key, limit, ending: true)
        guard let sharing = sharing(of: key), ticket != nil || limit?.remaining != nil else { return }
        let stored = Self.stored(key)
        _ = try? await ask(sharing, grace: sharing.patience) {
            try await $0.endRequest(stored, ticket: ticket, answer: limit)
        }
    }

    /// Ends `ticket` in the shared state without waiting, whatever becomes of the caller; asked even while the
    /// state is left alone, since the take that failed just now may have been committed after all. Its task outlives
    /// the caller, which has given up on the state (cancelled, or out of patience) and must not wait for it again.
    private func endAside(_ sharing: Sharing, _ key: Key, ticket: Int64) {
        Task {
            _ = try? await ask(sharing, always: true) { try await $0.endRequest(key, ticket: ticket, answer: nil) }
        }
    }

    /// `key` as the shared state keeps it: its resource a server's name for one (`core`, `search`) when it is one,
    /// else `core`, so that a server cannot make the state keep a row per header it invents.
    private static func stored(_ key: Key) -> Key {
        let resource = key.resource
        let allowed = resource.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-")
        }
        var stored = key
        stored.resource = allowed && (1...40).contains(resource.utf8.count) ? resource : "core"
        return stored
    }

    /// Learns a rate limit reported for `key` by the answer to a request that counted against another budget.
    func learn(_ limit: RateLimit, for key: Key) async {
        update(key, limit, ending: false)
        guard let sharing = sharing(of: key), limit.remaining != nil else { return }
        let stored = Self.stored(key)
        _ = try? await ask(sharing) { try await $0.endRequest(stored, ticket: nil, answer: limit) }
    }

    private func update(_ key: Key, _ limit: RateLimit?, ending: Bool) {
        let waiters = budgets.withLock { state -> [CheckedContinuation<Void, any Error>] in
            var budget = state.budgets[key] ?? Budget()
            defer { state.budgets[key] = budget }
            if ending { budget.inFlight = max(budget.inFlight - 1, 0) }
            if let limit { budget.state.learn(limit) }
            let waiters = Array(budget.waiters.values)
            budget.waiters = [:]
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Closes `key`'s budget until `hold.until` (a later hold already there stays), for every instance when the
    /// budgets are shared.
    func hold(_ key: Key, _ hold: Hold) async {
        budgets.withLock { $0.budgets[key, default: Budget()].state.hold(hold) }
        guard let sharing = sharing(of: key) else { return }
        let stored = Self.stored(key)
        _ = try? await ask(sharing) { try await $0.holdRequests(stored, hold) }
    }

    // MARK: - The shared state

    /// How `key`'s budget is shared: only a token's. Without a credential the limit is the client address's, which
    /// instances on other machines do not share; such a budget stays this instance's, and costs the state nothing.
    private func sharing(of key: Key) -> Sharing? {
        key.credential.isEmpty ? nil : sharing
    }

    /// What `question` answers within the state's patience; a failure or no answer in time is logged (once until
    /// the state answers again) and thrown. Cancelling the caller cancels the question, after `grace` (see
    /// ``withDeadline(_:grace:orThrow:leaving:sleep:_:)``). After a failure the state is not asked (``Skipped``) until
    /// `sharing.probe` has passed, then once, by the first question after it (`always`: asked all the same).
    private func ask<Value: Sendable>(
        _ sharing: Sharing, always: Bool = false, grace: Duration = .zero,
        _ question: @escaping @Sendable (any RateBudgetStoring) async throws -> Value
    ) async throws -> Value {
        let now = sharing.clock()
        let skip = budgets.withLock { state in
            guard state.unreachable else { return false }
            if now < state.probeAt { return true }
            state.probeAt = now.addingTimeInterval(sharing.probe.seconds)
            return false
        }
        if skip, !always { throw Skipped() }
        do {
            // A state that hangs cannot hang a poll: the question is cancelled and not waited for.
            let value = try await withDeadline(
                sharing.patience, grace: grace, orThrow: SharingTimeout(), leaving: { _ in }
            ) {
                try await question(sharing.store)
            }
            let recovered = budgets.withLock { state in
                defer { state.unreachable = false }
                return state.unreachable
            }
            if recovered { sharing.logger.notice("the shared rate budgets answer again") }
            return value
        } catch {
            // A question given up for a cancelled caller says nothing of the state.
            guard !(error is CancellationError) else { throw error }
            let failed = sharing.clock()
            let first = budgets.withLock { state in
                defer {
                    state.unreachable = true
                    state.probeAt = failed.addingTimeInterval(sharing.probe.seconds)
                }
                return !state.unreachable
            }
            if first {
                let reason =
                    error is SharingTimeout ? "no answer within \(DurationFormat.string(sharing.patience))" : "\(error)"
                let every = DurationFormat.string(sharing.probe)
                sharing.logger.warning(
                    """
                    cannot ask the shared rate budgets: this instance decides alone, on its own budget, until they \
                    answer again (asked again every \(every))
                    """,
                    metadata: ["error": "\(reason)"])
            }
            throw error
        }
    }

    /// The state did not answer in time.
    private struct SharingTimeout: Error {}

    /// The state was not asked: it could not be last time, and the probe time has not come.
    private struct Skipped: Error {}
}
