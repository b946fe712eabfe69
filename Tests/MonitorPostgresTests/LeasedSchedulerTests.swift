import Foundation
import Logging
import MonitorConcurrency
import MonitorItems
import MonitorOptions
import MonitorPostgres
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

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

/// A source whose poll finds one item at once.
private struct InstantSource: FeedSource {
    static let type = "instant"
    static let summary = "An instant source"
    static let options: [any OptionDeclaration] = []

    init(options: FeedOptions) {}

    var retention: ItemRetention { .replace }

    func poll(_ context: PollContext, _ found: Findings) async throws {
        found.items([Item(id: "e1", title: "one", date: Date(timeIntervalSince1970: 1_000_000), groups: [])])
        found.completed()
    }
}

/// A scheduler on a fresh PostgreSQL schedule and a manual clock whose every draw is 0.75 (binary fractions, so that
/// the due times are exact), and the events it sends.
private struct ClockedScheduler {
    let server: PostgresServer
    let database: String
    let store: PostgresStateStore
    let clock = ManualClock()
    let scheduler: FeedScheduler
    let running: Task<Void, Never>
    private var iterator: AsyncStream<PollEvent>.AsyncIterator

    init() async throws {
        server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        database = url.database
        store = try await PostgresStateStore.open(url)
        clock.queueRandom(Array(repeating: 0.75, count: 100))
        var runner = PollRunner(
            store: store, transport: StubTransport { _ in throw CancellationError() }, settings: Settings(),
            clock: clock, logger: Logger(label: "test"))
        runner.leasing = FeedLeases(store: store, owner: "here")
        let (events, continuation) = AsyncStream<PollEvent>.makeStream()
        let scheduler = FeedScheduler(runner: runner, events: continuation, stagger: .zero)
        self.scheduler = scheduler
        running = Task { await scheduler.run() }
        iterator = events.makeAsyncIterator()
    }

    /// The next due time the loop announces for `feed`, and the reports before it.
    mutating func scheduled(_ feed: String) async -> (next: Date?, reports: [PollReport]) {
        var reports: [PollReport] = []
        while let event = await iterator.next() {
            switch event {
            case .finished(let report): reports.append(report)
            case .scheduled(let name, let next, _, _) where name == feed: return (next, reports)
            default: break
            }
        }
        return (nil, reports)
    }

    func shutdown() async {
        await scheduler.shutdown()
        await running.value
    }
}

@Suite("The scheduler polling under leases of the PostgreSQL schedule", .timeLimit(.minutes(5)))
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

    @Test(
        "a late poll through the scheduler: due an interval after its due time, or 27 s + 1.5 s × its draw after its start"
    )
    func latePollCadence() async throws {
        var clocked = try await ClockedScheduler()
        let clock = clocked.clock
        // 30 s, jittered by ±3 s.
        let feed = PollHarness.feed(InstantSource.self, name: "cadence", options: ["interval": .duration(.seconds(30))])
        await clocked.scheduler.apply([
            FeedScheduler.Entry(feed: feed, source: InstantSource(options: feed.options), signature: "1")
        ])
        let start = clock.date
        // Scheduled at the start and claimed at once, 0 s late: due 30 s later, jittered ±3 s: 30 + 3 × (2 × 0.75 − 1).
        let first = await clocked.scheduled("cadence")
        #expect(first.next == start.addingTimeInterval(31.5))
        #expect(first.reports.map(\.status) == [.ok])
        // Claimed 5 s late (later than the jitter): due 27 s + 1.5 s × 0.75 after its start (not 27 s flat).
        try await clock.waitForSleepers(1)
        clock.advance(to: start.addingTimeInterval(36.5))
        let second = await clocked.scheduled("cadence")
        #expect(second.next == start.addingTimeInterval(36.5 + 27 + 1.125))
        #expect(second.reports.map(\.status) == [.ok])
        #expect(try await clocked.store.slot(feed: "cadence")?.due == start.addingTimeInterval(64.625))
        // Claimed 1 s late: due 30 s after its due time, jittered by ±(3 − 1) s: 30 + 2 × (2 × 0.75 − 1).
        try await clock.waitForSleepers(1)
        clock.advance(to: start.addingTimeInterval(65.625))
        let third = await clocked.scheduled("cadence")
        #expect(third.next == start.addingTimeInterval(64.625 + 31))
        #expect(third.reports.map(\.status) == [.ok])
        #expect(try await clocked.store.slot(feed: "cadence")?.due == start.addingTimeInterval(95.625))
        await clocked.shutdown()
        #expect(
            try await clocked.server.strings(
                "SELECT lease_term || ' ' || coalesce(lease_owner, '-') FROM feed_schedule", database: clocked.database)
                == ["3 -"])
    }

    @Test(
        "run --once losing its claim to another instance's at the same moment: skipped, leased by the other"
    )
    func onceLosesClaimRace() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let store = try await PostgresStateStore.open(url)
        var runner = PollRunner(
            store: store, transport: StubTransport { _ in throw CancellationError() }, settings: Settings(),
            logger: Logger(label: "test"))
        let leasing = FeedLeases(store: store, owner: "once")
        runner.leasing = leasing
        try await store.schedule(feeds: ["raced"], now: Date())
        // The other instance's claim, its transaction still open: the row is locked until it commits.
        let other = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                host: "127.0.0.1", port: server.port, username: PostgresServer.user, password: PostgresServer.password,
                database: url.database, tls: .disable),
            id: 1, logger: Logger(label: "test-postgres"))
        let logger = Logger(label: "test-postgres")
        try await other.query("BEGIN", logger: logger)
        try await other.query(
            PostgresQuery(
                unsafeSQL: "UPDATE feed_schedule SET lease_owner = 'other', lease_term = lease_term + 1, "
                    + "lease_expires = extract(epoch from now()) + 3600 WHERE feed = 'raced'"), logger: logger)
        let (events, continuation) = AsyncStream<PollEvent>.makeStream()
        let feed = PollHarness.feed(InstantSource.self, name: "raced")
        let once = Task {
            await FeedScheduler.loop(
                FeedScheduler.Start(
                    entry: FeedScheduler.Entry(feed: feed, source: InstantSource(options: feed.options), signature: ""),
                    runner: runner, slots: AsyncSemaphore(limit: 1), events: continuation, stagger: .zero,
                    reachability: StateReachability(), once: true))
        }
        // run --once's claim waits for the row's lock (seen by the server: no time involved) …
        while try await server.strings(
            "SELECT count(*)::text FROM pg_stat_activity WHERE datname = current_database() "
                + "AND wait_event_type = 'Lock' AND query LIKE '%WITH claimed AS%'", database: url.database) != ["1"]
        {
            await Task.yield()
        }
        // … and finds it leased once the other commits, its statement's second half reading the row before.
        try await other.query("COMMIT", logger: logger)
        try await other.close()
        let result = await once.value
        continuation.finish()
        let until = try await server.strings(
            "SELECT lease_expires::text FROM feed_schedule WHERE feed = 'raced'", database: url.database)
        let text = try #require(until.first)
        let expires = Date(timeIntervalSince1970: try #require(Double(text)))
        let holder = FeedHolder(owner: "other", until: expires, isThisInstance: false)
        guard case .skipped(let skipped) = result else {
            Issue.record("not skipped: \(result)")
            return
        }
        #expect(skipped == holder)
        var seen: [PollEvent] = []
        for await event in events { seen.append(event) }
        #expect(seen.count == 1)
        if case .lease(let name, let leased) = seen.first {
            #expect(name == "raced" && leased == holder)
        } else {
            Issue.record("\(seen)")
        }
        #expect(
            try await server.strings(
                "SELECT lease_term || ' ' || lease_owner FROM feed_schedule", database: url.database) == ["1 other"])
    }
}
