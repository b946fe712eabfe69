import Foundation
import MonitorItems
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorPostgres

private func events(_ numbers: ClosedRange<Int>) -> [Item] {
    numbers.map {
        Item(id: "e\($0)", title: "event \($0)", date: Date(timeIntervalSince1970: Double($0)), groups: ["g"])
    }
}

/// The server the store talks to through a relay that can go silent, and a store on a database of its own there,
/// with one feed committed (events 1 to 3, value 1). Its calls have the standard deadline, timed on a manual clock:
/// only the test moves it, for the call the relay holds.
private struct Silenced {
    let server: PostgresServer
    let relay: PostgresRelay
    /// The database, through the relay (without its password in errors, as every URL).
    let url: PostgresURL
    let store: PostgresStateStore
    let clock = ManualClock()

    init() async throws {
        server = try await PostgresServer.forTest()
        relay = try await PostgresRelay.start(to: server.port)
        url = relay.relaying(try await server.makeDatabase())
        store = try await PostgresStateStore.open(url, deadline: PostgresDeadline.standard, clock: clock)
        try await store.commit(commit(items: events(1...3), failures: 0, value: "1"), feed: "planet")
    }

    /// Runs `call` with the store's deadline `deadline` (the standard one again after) once the relay holds what it
    /// sent or was answered, and lets `deadline` pass on the clock; the call's outcome.
    func expiring<Value: Sendable>(
        _ deadline: Duration, _ call: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        store.deadline = deadline
        defer { store.deadline = PostgresDeadline.standard }
        return try await held(by: relay, on: clock, passing: deadline, call)
    }

    /// The whole state of the feed, to compare before and after.
    func state() async throws -> String {
        let snapshot = try await store.snapshot(feed: "planet")
        return """
            record: \(String(describing: snapshot.record))
            items: \(snapshot.items.map(\.id)) \(snapshot.items.map(\.title))
            groups: \(snapshot.groups.map(\.id))
            validators: \(snapshot.validators.map { "\($0.key.url) \($0.value.etag ?? "-")" })
            values: \(snapshot.values)
            """
    }
}

/// The outcome of `call`, which the relay holds: once the relay holds bytes of it and its deadline sleeps on `clock`,
/// the clock moves on by `deadline`.
private func held<Value: Sendable>(
    by relay: PostgresRelay, on clock: ManualClock, passing deadline: Duration,
    _ call: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let running = Task { try await call() }
    try await relay.held.wait { $0 > 0 }
    try await clock.waitForSleepers(1)
    clock.advance(by: deadline)
    return try await running.value
}

/// A call of each way the store talks to the server.
enum SilencedCall: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// A read, in a read-only transaction.
    case records
    /// A write in one statement (the schedule's).
    case schedule
    /// A lease's claim, in a transaction.
    case claim
    /// The outbox's notifications.
    case outbox
    /// A request taken from a shared rate budget.
    case takeRequest

    var testDescription: String { rawValue }

    /// Makes the call on `store`.
    func run(_ store: PostgresStateStore) async throws {
        let now = Date(timeIntervalSince1970: 2000)
        switch self {
        case .records: _ = try await store.records()
        case .schedule: try await store.schedule(feeds: ["planet"], now: now)
        case .claim: _ = try await store.claim(owner: "a", limit: 1, lease: .seconds(60), now: now)
        case .outbox: _ = try await store.outbox(refused: true)
        case .takeRequest:
            _ = try await store.takeRequest(
                RateBudgets.Key(url: "https://api.example", credential: nil, resource: "core"), ticket: 1, now: now,
                expires: now + 60)
        }
    }
}

@Suite("A deadline on every call to PostgreSQL: a server that goes silent cannot hold a call", .timeLimit(.minutes(5)))
struct PostgresDeadlineTests {
    @Test(
        "a call whose answer never comes fails after the deadline, its connection closed; the next call succeeds anew",
        arguments: SilencedCall.allCases)
    func silentCall(_ call: SilencedCall) async throws {
        let silenced = try await Silenced()
        let (relay, store, url) = (silenced.relay, silenced.store, silenced.url)
        defer { relay.stop() }
        let before = try await silenced.state()
        // One connection so far, idle in the pool: the next call takes it.
        #expect(relay.connections.value == PostgresRelay.Connections(accepted: 1))

        try await relay.silence()
        let expired = StateError.unreachable(
            "postgres://monitor@127.0.0.1:\(relay.port)/\(url.database): the server did not answer within 1 s")
        await #expect(throws: expired) { try await silenced.expiring(.seconds(1)) { try await call.run(store) } }
        // The store closed the connection it gave up on (the relay then closed the server's side).
        try await relay.connections.wait { $0.closedByClient == 1 }

        try await relay.forward()
        #expect(try await store.records().map(\.name) == ["planet"])
        #expect(try await silenced.state() == before)
        // The call after went through a new connection.
        #expect(relay.connections.value == PostgresRelay.Connections(accepted: 2, closedByClient: 1))
    }

    @Test("a commit whose server goes silent after its items were sent fails after the deadline and writes nothing")
    func silentCommit() async throws {
        let silenced = try await Silenced()
        let (relay, store, url) = (silenced.relay, silenced.store, silenced.url)
        defer { relay.stop() }
        let before = try await silenced.state()

        // The record is written, then the new items' INSERT reaches the server, whose answer never comes back.
        try await relay.silence(after: "INSERT INTO item (")
        await #expect(throws: StateError.unreachable("\(url): the server did not answer within 1 s")) {
            try await silenced.expiring(.seconds(1)) {
                try await store.commit(commit(items: events(1...5), failures: 4, value: "2"), feed: "planet")
            }
        }
        try await relay.connections.wait { $0.closedByClient == 1 }
        try await relay.forward()

        // Nothing of it was kept: the server rolled the transaction back when its connection ended.
        #expect(try await silenced.state() == before)
        #expect(try await store.record(feed: "planet")?.failures == 0)
        // The feed's row is free again (the next commit takes its lock), and the store writes whole commits.
        try await store.commit(commit(items: events(1...4), failures: 1, value: "3"), feed: "planet")
        #expect(try await store.items(feed: "planet").map(\.id) == ["e4", "e3", "e2", "e1"])
        #expect(try await store.snapshot(feed: "planet").values == ["cursor": "3"])
        #expect(relay.connections.value == PostgresRelay.Connections(accepted: 2, closedByClient: 1))
    }

    @Test(
        """
        a transaction whose connection the server ends fails at once, saying so (not at the deadline), and writes \
        nothing; the next call succeeds anew
        """)
    func endedTransaction() async throws {
        let silenced = try await Silenced()
        let (relay, store, url) = (silenced.relay, silenced.store, silenced.url)
        defer { relay.stop() }
        let before = try await silenced.state()

        // The record is written, then the connection ends as the new items' INSERT is sent: the store must not send
        // it a ROLLBACK, which would never be answered (the call would fail at the standard deadline, saying so).
        try await relay.end(after: "INSERT INTO item (")
        await #expect(throws: StateError.unreachable("\(url): the server closed the connection")) {
            try await store.commit(commit(items: events(1...5), failures: 4, value: "2"), feed: "planet")
        }
        #expect(relay.connections.value == PostgresRelay.Connections(accepted: 1, closedByServer: 1))

        // Nothing of it was kept: the server rolled the transaction back when its connection ended.
        #expect(try await silenced.state() == before)
        #expect(relay.connections.value == PostgresRelay.Connections(accepted: 2, closedByServer: 1))
    }

    @Test("a new connection to a server that never answers the login is given up after the deadline, and closed")
    func silentLogin() async throws {
        let server = try await PostgresServer.forTest()
        let relay = try await PostgresRelay.start(to: server.port)
        defer { relay.stop() }
        let url = relay.relaying(try await server.makeDatabase())
        try await relay.silence()
        let clock = ManualClock()
        await #expect(throws: StateError.unreachable("cannot connect to \(url): the server did not answer within 1 s"))
        {
            _ = try await held(by: relay, on: clock, passing: .seconds(1)) {
                try await PostgresStateStore.open(url, deadline: .seconds(1), clock: clock)
            }
        }
        try await relay.connections.wait { $0.closedByClient == 1 }
        try await relay.forward()
        let store = try await PostgresStateStore.open(url)
        #expect(try await store.records().isEmpty)
        #expect(relay.connections.value == PostgresRelay.Connections(accepted: 2, closedByClient: 1))
    }

    @Test("a caller cancelled while its query waits returns after the grace, its connection closed")
    func cancelledWhileSilent() async throws {
        let silenced = try await Silenced()
        let (relay, store, url) = (silenced.relay, silenced.store, silenced.url)
        defer { relay.stop() }
        let before = try await silenced.state()
        // A deadline far beyond the test's time limit: only the cancellation can end the call in time.
        store.deadline = .seconds(600)

        try await relay.silence(after: "INSERT INTO item (")
        let call = Task {
            try await store.commit(commit(items: events(1...5), failures: 4, value: "2"), feed: "planet")
        }
        // The new items are written, not committed: the server answered their INSERT, and the relay holds the answer.
        try await relay.held.wait { $0 > 0 }
        call.cancel()
        // The grace runs on the clock beside the deadline: it passes.
        try await silenced.clock.waitForSleepers(2)
        silenced.clock.advance(by: PostgresDeadline.grace)
        await #expect(throws: StateError("\(url): cancelled")) { _ = try await call.value }
        try await relay.connections.wait { $0.closedByClient == 1 }

        try await relay.forward()
        // The server rolled them back when the connection ended.
        #expect(try await silenced.state() == before)
        #expect(relay.connections.value == PostgresRelay.Connections(accepted: 2, closedByClient: 1))
    }

    @Test("the deadline is said in seconds, or in milliseconds when it is not whole seconds")
    func deadlineText() {
        #expect(PostgresDeadline.Expired(deadline: .seconds(30), stage: .answering).deadlineText == "30 s")
        #expect(PostgresDeadline.Expired(deadline: .milliseconds(1500), stage: .answering).deadlineText == "1500 ms")
        #expect(PostgresDeadline.standard == .seconds(30))
        #expect(PostgresDeadline.grace == .seconds(5))
    }

    @Test("a cancelled caller still gets the value of work that ends within the grace: the work is not cancelled")
    func cancelledWithinGrace() async throws {
        let started = Watched(false)
        let gate = Watched(false)
        let workCancelled = Watched<Bool?>(nil)
        let call = Task {
            try await PostgresDeadline.race(within: .seconds(600), stage: .answering, grace: .seconds(600)) {
                started.update { $0 = true }
                _ = try? await gate.wait { $0 }
                workCancelled.update { $0 = Task.isCancelled }
                return "committed"
            }
        }
        try await started.wait { $0 }
        call.cancel()
        gate.update { $0 = true }
        #expect(try await call.value == "committed")
        #expect(workCancelled.value == false)
    }

    @Test("a cancelled caller whose work never ends returns CancellationError once the grace has passed")
    func cancelledPastGrace() async throws {
        let started = Watched(false)
        let never = Watched(false)
        let call = Task {
            try await PostgresDeadline.race(within: .seconds(600), stage: .answering, grace: .zero) {
                started.update { $0 = true }
                _ = try? await never.wait { $0 }
                return "never"
            }
        }
        try await started.wait { $0 }
        call.cancel()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        never.update { $0 = true }
    }
}
