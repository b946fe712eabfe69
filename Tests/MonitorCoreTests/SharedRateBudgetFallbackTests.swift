import Foundation
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

/// A shared state that never answers (a database that accepted the connection and hangs), ignoring cancellation:
/// its questions wait until ``release()``.
private final class HangingBudgets: RateBudgetStoring {
    private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
    private let released = Mutex(false)
    let asked = Watched(0)

    private func hang() async {
        asked.update { $0 += 1 }
        await withCheckedContinuation { continuation in
            let now = released.withLock { released in
                if !released { waiting.withLock { $0.append(continuation) } }
                return released
            }
            if now { continuation.resume() }
        }
    }

    /// Ends every question, now and later.
    func release() {
        released.withLock { $0 = true }
        for continuation in waiting.withLock({ list in
            defer { list = [] }; return list
        }) { continuation.resume() }
    }

    func takeRequest(_ key: RateBudgets.Key, ticket: Int64, now: Date, expires: Date) async throws
        -> RateBudgetState.Decision
    {
        await hang()
        return .send
    }

    func endRequest(_ key: RateBudgets.Key, ticket: Int64?, answer: RateLimit?) async throws { await hang() }

    func holdRequests(_ key: RateBudgets.Key, _ hold: RateBudgets.Hold) async throws { await hang() }
}

/// A shared state that fails every question while `failing`, else lets every request through; counts the questions.
private final class FailingBudgets: RateBudgetStoring {
    struct Down: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    let failing = Mutex(true)
    let asked = Mutex(0)

    private func answer() throws {
        asked.withLock { $0 += 1 }
        if failing.withLock({ $0 }) { throw Down() }
    }

    func takeRequest(_ key: RateBudgets.Key, ticket: Int64, now: Date, expires: Date) async throws
        -> RateBudgetState.Decision
    {
        try answer()
        return .send
    }

    func endRequest(_ key: RateBudgets.Key, ticket: Int64?, answer: RateLimit?) async throws { try self.answer() }

    func holdRequests(_ key: RateBudgets.Key, _ hold: RateBudgets.Hold) async throws { try answer() }
}

/// A shared state whose takes answer only after ``release()`` (later than the patience), ignoring cancellation, and
/// whose ends answer at once; records the tickets taken and ended.
private final class LateBudgets: RateBudgetStoring {
    let taken = Watched<[Int64]>([])
    let ended = Watched<[Int64]>([])
    private let gate = HangingBudgets()

    func release() { gate.release() }

    func takeRequest(_ key: RateBudgets.Key, ticket: Int64, now: Date, expires: Date) async throws
        -> RateBudgetState.Decision
    {
        taken.update { $0.append(ticket) }
        return try await gate.takeRequest(key, ticket: ticket, now: now, expires: expires)
    }

    func endRequest(_ key: RateBudgets.Key, ticket: Int64?, answer: RateLimit?) async throws {
        if let ticket { ended.update { $0.append(ticket) } }
    }

    func holdRequests(_ key: RateBudgets.Key, _ hold: RateBudgets.Hold) async throws {}
}

@Suite("A shared rate budget that cannot be asked neither hangs nor fails a request", .timeLimit(.minutes(5)))
struct SharedRateBudgetFallbackTests {
    let now = Date(timeIntervalSince1970: 1_795_323_600)

    @Test("a state that never answers: within its patience, the local budget decides alone, with one warning")
    func hangingState() async throws {
        let store = HangingBudgets()
        defer { store.release() }
        let log = RecordedLog()
        let budgets = RateBudgets(
            sharing: RateBudgets.Sharing(
                store: store, flight: .seconds(60), patience: .milliseconds(200), logger: log.logger,
                clock: { [now] in now }))
        let key = RateBudgets.Key(url: "https://api.test/a", credential: "t", resource: "core")
        let reset = now.addingTimeInterval(600)
        #expect(try await budgets.spend(key, now: now) == .send(ticket: nil))
        var limit = RateLimit(headers: ["x-ratelimit-remaining": "0"])!
        limit.reset = reset
        await budgets.settle(key, answer: limit, ticket: nil)
        // The local budget knows the count is 0: held without asking the state.
        #expect(
            try await budgets.spend(key, now: now)
                == .held(RateBudgets.Hold(until: reset, reason: "rate limit exhausted")))
        let hold = RateBudgets.Hold(until: reset.addingTimeInterval(60), reason: "secondary rate limit")
        await budgets.hold(key, hold)
        #expect(try await budgets.spend(key, now: now) == .held(hold))
        // Not asked again (its answer, its hold) until the probe time: only the first take waited, and the end of its
        // ticket (the take may still be committed) was asked aside.
        #expect(try await store.asked.wait { $0 >= 2 } == 2)
        #expect(
            log.messages == [
                "warning: cannot ask the shared rate budgets: this instance decides alone, on its own budget, until "
                    + "they answer again (asked again every 10s) (no answer within 200ms)"
            ])
    }

    @Test("a budget without a credential (an address's, not a token's) is never asked of the shared state")
    func withoutCredential() async throws {
        let store = HangingBudgets()
        defer { store.release() }
        let budgets = RateBudgets(
            sharing: RateBudgets.Sharing(
                store: store, flight: .seconds(60), patience: .seconds(3600), logger: RecordedLog().logger))
        let key = RateBudgets.Key(url: "https://eonet.gsfc.nasa.gov/api/v3/events", credential: nil, resource: "core")
        #expect(try await budgets.spend(key, now: now) == .send(ticket: nil))
        var limit = RateLimit(headers: ["x-ratelimit-remaining": "7"])!
        limit.reset = now.addingTimeInterval(600)
        await budgets.settle(key, answer: limit)
        await budgets.learn(limit, for: key)
        let hold = RateBudgets.Hold(until: now.addingTimeInterval(60), reason: "HTTP 429 asked to retry later")
        await budgets.hold(key, hold)
        #expect(try await budgets.spend(key, now: now) == .held(hold))
        #expect(store.asked.value == 0)
    }

    @Test("cancelling a request that waits for a state that never answers ends it at once")
    func cancelled() async throws {
        let store = HangingBudgets()
        defer { store.release() }
        let budgets = RateBudgets(
            sharing: RateBudgets.Sharing(
                store: store, flight: .seconds(60), patience: .seconds(3600), logger: RecordedLog().logger))
        let key = RateBudgets.Key(url: "https://api.test/a", credential: "t", resource: "core")
        let spending = Task { try await budgets.spend(key, now: now) }
        try await store.asked.wait { $0 == 1 }
        spending.cancel()
        await #expect(throws: CancellationError.self) { try await spending.value }
        // The cancelled request no longer counts as in flight here: with 1 request left, the next one goes (a
        // request still counted would make it wait for an answer that never comes).
        store.release()
        var limit = RateLimit(headers: ["x-ratelimit-remaining": "1"])!
        limit.reset = now.addingTimeInterval(600)
        await budgets.learn(limit, for: key)
        #expect(try await budgets.spend(key, now: now).ticket != nil)
    }

    @Test("a take that answers after the patience ran out (it may still be committed) has its ticket ended")
    func lateTake() async throws {
        let store = LateBudgets()
        defer { store.release() }
        let budgets = RateBudgets(
            sharing: RateBudgets.Sharing(
                store: store, flight: .seconds(60), patience: .milliseconds(200), logger: RecordedLog().logger))
        let key = RateBudgets.Key(url: "https://api.test/a", credential: "t", resource: "core")
        #expect(try await budgets.spend(key, now: now) == .send(ticket: nil))
        let ended = try await store.ended.wait { $0.count == 1 }
        #expect(ended == store.taken.value)
        #expect(ended.count == 1)
    }

    @Test(
        "a state that fails is not asked again until its probe time: then once, and again after it answers"
    )
    func probe() async throws {
        let store = FailingBudgets()
        let log = RecordedLog()
        let clock = Mutex(now)
        let budgets = RateBudgets(
            sharing: RateBudgets.Sharing(
                store: store, flight: .seconds(60), patience: .seconds(3600), logger: log.logger,
                probe: .seconds(10), clock: { clock.withLock { $0 } }))
        let key = RateBudgets.Key(url: "https://api.test/a", credential: "t", resource: "core")
        #expect(try await budgets.spend(key, now: now) == .send(ticket: nil))
        #expect(store.asked.withLock { $0 } == 1)
        // Until the probe time, neither a request, its answer nor a hold asks the state.
        for _ in 0..<5 {
            #expect(try await budgets.spend(key, now: now) == .send(ticket: nil))
            await budgets.settle(key, answer: RateLimit(headers: ["x-ratelimit-remaining": "100"]), ticket: nil)
        }
        await budgets.hold(key, RateBudgets.Hold(until: now, reason: "secondary rate limit"))
        clock.withLock { $0 = now.addingTimeInterval(9.999) }
        #expect(try await budgets.spend(key, now: now) == .send(ticket: nil))
        #expect(store.asked.withLock { $0 } == 1)
        // At the probe time, one request asks (and fails); the next ones do not.
        clock.withLock { $0 = now.addingTimeInterval(10) }
        #expect(try await budgets.spend(key, now: now) == .send(ticket: nil))
        #expect(try await budgets.spend(key, now: now) == .send(ticket: nil))
        #expect(store.asked.withLock { $0 } == 2)
        // Once it answers, every request asks it.
        store.failing.withLock { $0 = false }
        clock.withLock { $0 = now.addingTimeInterval(20) }
        #expect(try await budgets.spend(key, now: now).ticket != nil)
        #expect(try await budgets.spend(key, now: now).ticket != nil)
        #expect(store.asked.withLock { $0 } == 4)
        #expect(
            log.messages == [
                "warning: cannot ask the shared rate budgets: this instance decides alone, on its own budget, until "
                    + "they answer again (asked again every 10s) (connection refused)"
            ])
    }
}
