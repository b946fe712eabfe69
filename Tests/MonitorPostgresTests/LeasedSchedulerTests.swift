import Foundation
import Logging
import MonitorCore
import MonitorPostgres
import PostgresTestSupport
import TestSupport
import Testing

/// A source whose poll tells `started`, then waits for `gate` before finding one item.
private struct GatedSource: FeedSource {
    static let type = "gated"
    static let summary = "A gated source"
    static let options: [any OptionDeclaration] = []
    static let started = Watched(0)
    static let gate = Watched(false)

    init(options: FeedOptions) {}

    var retention: ItemRetention { .replace }

    func poll(_ context: PollContext, _ found: Findings) async throws {
        Self.started.update { $0 += 1 }
        try await Self.gate.wait { $0 }
        found.items([Item(id: "e1", title: "one", date: Date(timeIntervalSince1970: 1_000_000), groups: [])])
        found.completed()
    }
}

@Suite("The scheduler polling under leases of the PostgreSQL schedule", .timeLimit(.minutes(2)))
struct LeasedSchedulerTests {
    @Test(
        "a poll whose lease was taken over while it ran: its commit is refused, nothing stored, the feed left to the other"
    )
    func staleCommitRefused() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let store = try await PostgresStateStore.open(url)
        var runner = PollRunner(
            store: store, transport: StubTransport { _ in throw CancellationError() }, settings: Settings(),
            logger: Logger(label: "test"))
        runner.leasing = FeedLeases(store: store, owner: "stale")
        let (events, continuation) = AsyncStream<PollEvent>.makeStream()
        let scheduler = FeedScheduler(runner: runner, events: continuation, stagger: .zero)
        let running = Task { await scheduler.run() }
        let feed = PollHarness.feed(GatedSource.self, name: "planet", options: [:])
        await scheduler.apply([
            FeedScheduler.Entry(feed: feed, source: GatedSource(options: feed.options), signature: "1")
        ])
        try await GatedSource.started.wait { $0 == 1 }
        // Another instance takes the feed over, as it would once this one's lease expired unrenewed.
        try await server.execute(
            "UPDATE feed_schedule SET lease_owner = 'other', lease_term = lease_term + 1, "
                + "lease_expires = extract(epoch from now()) + 3600 WHERE feed = 'planet'",
            database: url.database)
        GatedSource.gate.update { $0 = true }
        var report: PollReport?
        for await event in events {
            if case .finished(let finished) = event, finished.feed == "planet" {
                report = finished
                break
            }
        }
        await scheduler.shutdown()
        await running.value
        let refused = try #require(report)
        #expect(refused.status == .failed)
        #expect(
            refused.error
                == "cannot write the state: the lease of 'planet' in \(store.location) was lost (the feed's term is 2, "
                + "this poll held 1): its results were not stored")
        #expect(try await store.record(feed: "planet") == nil)
        #expect(try await store.items(feed: "planet").isEmpty)
        #expect(
            try await server.strings(
                "SELECT lease_owner || ' ' || lease_term FROM feed_schedule", database: url.database) == ["other 2"])
        // The scheduler did not poll it again: the feed is the other instance's.
        #expect(GatedSource.started.value == 1)
    }
}
