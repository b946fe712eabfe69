import Foundation
import MonitorCore
import Synchronization
import TestSupport
import Testing

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

    func takeRequest(_ key: RateBudgets.Key, now: Date, expires: Date) async throws -> SharedSpend {
        await hang()
        return .send(ticket: 1)
    }

    func endRequest(_ key: RateBudgets.Key, ticket: Int64?, answer: RateLimit?) async throws { await hang() }

    func holdRequests(_ key: RateBudgets.Key, _ hold: RateBudgets.Hold) async throws { await hang() }
}

@Suite("A shared rate budget that cannot be asked neither hangs nor fails a request", .timeLimit(.minutes(1)))
struct SharedRateBudgetFallbackTests {
    let now = Date(timeIntervalSince1970: 1_795_323_600)

    @Test("a state that never answers: within its patience, the local budget decides alone, with one warning")
    func hangingState() async throws {
        let store = HangingBudgets()
        defer { store.release() }
        let log = RecordedLog()
        let budgets = RateBudgets(
            sharing: RateBudgets.Sharing(
                store: store, flight: .seconds(60), patience: .milliseconds(200), logger: log.logger))
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
        #expect(store.asked.value == 3)
        #expect(
            log.messages == [
                "warning: cannot ask the shared rate budgets: each instance keeps to its own until they answer again "
                    + "(no answer within 200ms)"
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
    }
}
