import Foundation
import Logging
import MonitorPostgres
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

/// A server's count of what is left of a limit, taken one by one as requests arrive.
private final class CountingServer: Sendable {
    private let left: Mutex<Int>
    private let served = Mutex(0)

    init(limit: Int) { left = Mutex(limit) }

    /// Requests that arrived.
    var requests: Int { served.withLock { $0 } }

    /// Counts one request; the count left after it.
    func arrive() -> Int {
        served.withLock { $0 += 1 }
        return left.withLock { left in
            left = max(left - 1, 0)
            return left
        }
    }
}

@Suite("Rate budgets kept in PostgreSQL, shared by every instance using a token", .timeLimit(.minutes(5)))
struct SharedRateBudgetTests {
    /// Now, by whole seconds: the database's clock times how long a stored hold is believed.
    static let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    static let reset = start.addingTimeInterval(3600)
    static let token = "ghp_SharedBudgetSecret0123456789abcdef"
    static let key = RateBudgets.Key(
        url: "https://api.github.com/repos/o/r/events", credential: token, resource: "core")

    static func limit(remaining: Int, reset: Date = reset) -> RateLimit {
        var limit = RateLimit(headers: ["x-ratelimit-remaining": "\(remaining)", "x-ratelimit-limit": "5000"])!
        limit.reset = reset
        return limit
    }

    /// Budgets of one instance: its own store (its own connections) on the database at `url`. Its patience is an
    /// hour, not the default 5s: these tests count what the shared budgets let through, and on a machine loaded
    /// enough (a clean-clone CI run at load average 19) an answer of the database took longer than 5s, so the
    /// instances decided alone. What an instance does without an answer is `SharedRateBudgetFallbackTests`'.
    static func instance(_ url: PostgresURL, log: RecordedLog = RecordedLog()) async throws -> RateBudgets {
        let store = try await PostgresStateStore.open(url)
        return RateBudgets(
            sharing: RateBudgets.Sharing(
                store: store, flight: .seconds(60), patience: .seconds(3600), logger: log.logger))
    }

    @Test(
        "two instances knowing of 5 requests left let exactly 5 through in total, 8 asking at once; then both are held until the reset, when both may send again"
    )
    func exactlyTheBudget() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let log = RecordedLog()
        let instances = [try await Self.instance(url, log: log), try await Self.instance(url, log: log)]
        let api = CountingServer(limit: 6)
        // One request by the first instance learns the budget: 5 left.
        let first = try await instances[0].spend(Self.key, now: Self.start)
        let ticket = try #require(first.ticket)
        await instances[0].settle(Self.key, answer: Self.limit(remaining: api.arrive()), ticket: ticket)

        // 4 polls of each instance at once, each sending while the budget lets it, each answered by the server's count.
        let outcomes = try await withThrowingTaskGroup(of: (sent: Int, holds: [RateBudgets.Hold]).self) { group in
            for index in 0..<8 {
                let budgets = instances[index % 2]
                group.addTask {
                    var sent = 0
                    while true {
                        switch try await budgets.spend(Self.key, now: Self.start.addingTimeInterval(1)) {
                        case .send(let ticket):
                            #expect(ticket != nil)
                            sent += 1
                            await budgets.settle(Self.key, answer: Self.limit(remaining: api.arrive()), ticket: ticket)
                        case .held(let hold):
                            return (sent, [hold])
                        }
                    }
                }
            }
            return try await group.reduce(into: (sent: 0, holds: [RateBudgets.Hold]())) {
                $0.sent += $1.sent
                $0.holds += $1.holds
            }
        }
        #expect(outcomes.sent == 5)
        #expect(api.requests == 6)
        #expect(
            outcomes.holds
                == Array(repeating: RateBudgets.Hold(until: Self.reset, reason: "rate limit exhausted"), count: 8))
        // Nothing left in flight, the server's last count kept.
        #expect(
            try await server.strings(
                "SELECT lowest || ' ' || reset_at || ' ' || (SELECT count(*) FROM rate_budget_flight) FROM rate_budget",
                database: url.database) == ["0 \(Int(Self.reset.timeIntervalSince1970)) 0"])

        // A third instance, started now, knows it too; at the reset, a new window opens for all of them.
        let third = try await Self.instance(url, log: log)
        #expect(
            try await third.spend(Self.key, now: Self.reset.addingTimeInterval(-1))
                == .held(RateBudgets.Hold(until: Self.reset, reason: "rate limit exhausted")))
        let reopened = [
            try await instances[0].spend(Self.key, now: Self.reset),
            try await instances[1].spend(Self.key, now: Self.reset),
            try await third.spend(Self.key, now: Self.reset),
        ]
        #expect(reopened.map(\.hold) == [nil, nil, nil])
        #expect(Set(reopened.compactMap(\.ticket)).count == 3)
        #expect(
            try await server.strings(
                "SELECT coalesce(lowest::text, 'unknown') || ' ' || coalesce(reset_at::text, 'none') FROM rate_budget",
                database: url.database) == ["unknown none"])
        #expect(
            try await server.strings("SELECT count(*)::text FROM rate_budget_flight", database: url.database) == ["3"])
        #expect(log.messages == [])
    }

    @Test(
        "a hold written by one instance (Retry-After) is obeyed by the other until it ends; a shorter one does not cut it"
    )
    func holdsAreShared() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let one = try await Self.instance(url)
        let other = try await Self.instance(url)
        let hold = RateBudgets.Hold(until: Self.start.addingTimeInterval(120), reason: "HTTP 429 asked to retry later")
        await one.hold(Self.key, hold)
        await other.hold(
            Self.key, RateBudgets.Hold(until: Self.start.addingTimeInterval(30), reason: "secondary rate limit"))
        #expect(try await other.spend(Self.key, now: Self.start.addingTimeInterval(60)) == .held(hold))
        // Another resource of the same token, and the same resource of another token, are not held.
        var search = Self.key
        search.resource = "search"
        #expect(try await other.spend(search, now: Self.start).hold == nil)
        let otherToken = RateBudgets.Key(
            url: "https://api.github.com/x", credential: "ghp_AnotherToken", resource: "core")
        #expect(try await other.spend(otherToken, now: Self.start).hold == nil)
        // When it ends, both send.
        #expect(try await other.spend(Self.key, now: Self.start.addingTimeInterval(120)).ticket != nil)
        #expect(try await one.spend(Self.key, now: Self.start.addingTimeInterval(120)).ticket != nil)
        #expect(
            try await server.strings(
                "SELECT resource || ' ' || coalesce(held_until::text, 'none') FROM rate_budget ORDER BY credential, resource",
                database: url.database
            ).sorted()
                == ["core none", "core none", "search none"])
    }

    @Test("the database holds fingerprints of the token, never the token")
    func noToken() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let budgets = try await Self.instance(url)
        let spent = try await budgets.spend(Self.key, now: Self.start)
        await budgets.settle(Self.key, answer: Self.limit(remaining: 0), ticket: spent.ticket)
        _ = try await budgets.spend(Self.key, now: Self.start)
        await budgets.hold(
            Self.key, RateBudgets.Hold(until: Self.reset.addingTimeInterval(60), reason: "secondary rate limit"))
        let columns = "origin, credential, resource, lowest, reset_at, held_until, hold_reason"
        let rows =
            try await server.strings(
                "SELECT row_to_json(b)::text FROM (SELECT \(columns) FROM rate_budget) b", database: url.database)
            + server.strings("SELECT row_to_json(f)::text FROM rate_budget_flight f", database: url.database)
        #expect(rows.count == 1)
        #expect(
            rows.first
                == #"{"origin":"https://api.github.com:443","credential":"\#(ValidatorKey.fingerprint(Self.token))","resource":"core","lowest":0,"reset_at":\#(Int(Self.reset.timeIntervalSince1970)),"held_until":\#(Int(Self.reset.timeIntervalSince1970) + 60),"hold_reason":"secondary rate limit"}"#
        )
        let dump = try await server.strings(
            "SELECT string_agg(t::text, ' ') FROM (SELECT * FROM rate_budget) t", database: url.database)
        #expect(!dump.joined().contains(Self.token))
        #expect(!dump.joined().contains("SharedBudgetSecret"))
    }

    @Test("a request whose instance died stops counting as in flight when it expires")
    func expiredFlights() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let dead = try await Self.instance(url)
        let alive = try await Self.instance(url)
        // 1 left; the dead instance takes it and never answers (its flight: 60 s).
        let learned = try await alive.spend(Self.key, now: Self.start)
        await alive.settle(Self.key, answer: Self.limit(remaining: 1), ticket: learned.ticket)
        #expect(try await dead.spend(Self.key, now: Self.start).ticket != nil)
        // Until it expires, it may use up what is left: the store says to wait for its answer.
        let store = try await PostgresStateStore.open(url)
        #expect(
            try await store.takeRequest(
                Self.key, ticket: 7, now: Self.start.addingTimeInterval(59), expires: Self.reset) == .wait)
        // Then the count is the server's again: one left.
        let taken = try await store.takeRequest(
            Self.key, ticket: 7, now: Self.start.addingTimeInterval(60), expires: Self.reset)
        guard case .send = taken else {
            Issue.record("expected a ticket, got \(taken)")
            return
        }
        #expect(
            try await server.strings("SELECT count(*)::text FROM rate_budget_flight", database: url.database) == ["1"])
    }

    @Test("a database that cannot be asked: each instance keeps to its own budget, with one warning")
    func unreachable() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let log = RecordedLog()
        let store = try await PostgresStateStore.open(url)
        let budgets = RateBudgets(
            sharing: RateBudgets.Sharing(
                store: store, flight: .seconds(60), patience: .seconds(3600), logger: log.logger))
        let learned = try await budgets.spend(Self.key, now: Self.start)
        await budgets.settle(Self.key, answer: Self.limit(remaining: 2), ticket: learned.ticket)
        try await server.execute("DROP DATABASE \(url.database) WITH (FORCE)")
        // The store's connection, ended by the server, is closed by a first call (which may fail on it or not).
        _ = try? await store.records()
        // Sent on the local budget (no ticket), its answer kept locally: one more, then held by the local count.
        let spent = try await budgets.spend(Self.key, now: Self.start)
        #expect(spent == .send(ticket: nil))
        await budgets.settle(Self.key, answer: Self.limit(remaining: 0), ticket: nil)
        #expect(
            try await budgets.spend(Self.key, now: Self.start)
                == .held(RateBudgets.Hold(until: Self.reset, reason: "rate limit exhausted")))
        #expect(
            log.messages == [
                "warning: cannot ask the shared rate budgets: this instance decides alone, on its own budget, until "
                    + "they answer again (asked again every 10s) (cannot open \(url): database \"\(url.database)\" does not exist)"
            ])
    }

    @Test(
        "a hold stored a day ahead (a clock ahead, a broken row) is believed for an hour after the database learned it; then a shorter hold replaces it"
    )
    func holdBelievedForAnHour() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        // One instance (one connection: the test server's are few), whose own budget knows of no hold.
        let budgets = try await Self.instance(url)
        let spent = try await budgets.spend(Self.key, now: Self.start)
        await budgets.settle(Self.key, answer: nil, ticket: spent.ticket)
        try await server.execute(
            """
            UPDATE rate_budget SET held_until = extract(epoch FROM clock_timestamp()) + 86400, hold_reason = 'broken',
                hold_learned_at = extract(epoch FROM clock_timestamp())
            """, database: url.database)
        // Held now, but no longer than an hour from when the hold was written.
        let held = try #require(try await budgets.spend(Self.key, now: Date()).hold)
        #expect(held.reason == "broken")
        #expect(held.until >= Self.start.addingTimeInterval(3600))
        #expect(held.until <= Date().addingTimeInterval(3600))
        #expect(try await budgets.spend(Self.key, now: held.until).ticket != nil)
        // Written two hours ago, it is no longer believed: a shorter hold replaces it.
        try await server.execute(
            """
            UPDATE rate_budget SET held_until = extract(epoch FROM clock_timestamp()) + 86400, hold_reason = 'broken',
                hold_learned_at = extract(epoch FROM clock_timestamp()) - 7200
            """, database: url.database)
        let until = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 120)
        await budgets.hold(Self.key, RateBudgets.Hold(until: until, reason: "HTTP 429 asked to retry later"))
        #expect(
            try await server.strings(
                "SELECT held_until::bigint || ' ' || hold_reason FROM rate_budget", database: url.database)
                == ["\(Int(until.timeIntervalSince1970)) HTTP 429 asked to retry later"])
    }

    @Test(
        "a request ended by a cancelled poll (SIGINT, reload, removed feed) leaves no ticket in flight; a resource a server invents is kept as core, an address that cannot be read as a fingerprint"
    )
    func cancelledSettle() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let budgets = try await Self.instance(url)
        let spent = try await budgets.spend(Self.key, now: Self.start)
        let ticket = try #require(spent.ticket)
        #expect(
            try await server.strings("SELECT ticket::text FROM rate_budget_flight", database: url.database)
                == ["\(ticket)"])
        let settling = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            #expect(Task.isCancelled)
            await budgets.settle(Self.key, answer: Self.limit(remaining: 3), ticket: ticket)
        }
        await settling.value
        #expect(
            try await server.strings(
                "SELECT (SELECT count(*) FROM rate_budget_flight) || ' ' || lowest FROM rate_budget",
                database: url.database) == ["0 3"])

        // With the same instance (the test server's connections are few): a resource a server invents is kept as
        // core, an address that cannot be read as its fingerprint.
        let secretURL = "ht tp://user:hunter2@api.test/x"
        let odd = RateBudgets.Key(url: secretURL, credential: Self.token, resource: "x'; DROP TABLE rate_budget;--")
        let long = RateBudgets.Key(
            url: "https://api.test/x", credential: Self.token, resource: String(repeating: "a", count: 41))
        let fine = RateBudgets.Key(url: "https://api.test/x", credential: Self.token, resource: "code_search-2")
        for key in [odd, long, fine] {
            let spent = try await budgets.spend(key, now: Self.start)
            await budgets.settle(key, answer: nil, ticket: spent.ticket)
        }
        #expect(
            try await server.strings(
                "SELECT origin || ' ' || resource FROM rate_budget ORDER BY origin, resource", database: url.database)
                == [
                    "https://api.github.com:443 core", "https://api.test:443 code_search-2",
                    "https://api.test:443 core",
                    "unparsed:\(ValidatorKey.fingerprint(secretURL)) core",
                ])
    }
}
