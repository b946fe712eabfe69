import Foundation
import Logging
import MonitorOptions
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

/// Every event seen, in order.
final class EventLog: Sendable {
    private let events = Watched<[PollEvent]>([])

    func append(_ event: PollEvent) { events.update { $0.append(event) } }

    func withLock<T>(_ body: ([PollEvent]) -> T) -> T { body(events.value) }

    /// Waits until the events seen satisfy `condition`.
    func wait(until condition: @escaping @Sendable ([PollEvent]) -> Bool) async throws {
        try await events.wait(until: condition)
    }
}

/// A transport whose requests wait at the server until ``letThrough(_:)`` answers them.
private struct HeldRequests {
    let waiting = Watched<[CheckedContinuation<Void, Never>]>([])

    var transport: StubTransport {
        StubTransport { [waiting] _ in
            await withCheckedContinuation { continuation in waiting.update { $0.append(continuation) } }
            return HTTPResponse(status: 200, body: Array("1".utf8))
        }
    }

    /// Answers `count` requests, one at a time, each once it has come.
    func letThrough(_ count: Int) async throws {
        for _ in 0..<count {
            try await waiting.wait { !$0.isEmpty }
            waiting.update { $0.removeFirst().resume() }
        }
    }
}

/// The most polls running at once in `events`, each counted from its `polling` to its `finished`.
private func mostRunning(_ events: [PollEvent]) -> Int {
    var running = 0
    var most = 0
    for event in events {
        switch event {
        case .polling: running += 1
        case .finished: running -= 1
        default: continue
        }
        most = max(most, running)
    }
    return most
}

/// A scheduler on a manual clock, polling scripted feeds through a stub transport.
private final class SchedulerFixture: Sendable {
    let clock = ManualClock()
    let harness: PollHarness
    let scheduler: FeedScheduler
    let events = EventLog()
    private let collector: Task<Void, Never>
    private let feeds: Task<Void, Never>

    init(transport: any HTTPTransport) throws {
        var settings = Settings()
        settings.retries = 0
        harness = PollHarness(settings: settings)
        let runner = PollRunner(
            store: harness.store, transport: transport, settings: settings, clock: clock,
            logger: Logger(label: "test"))
        let (stream, continuation) = AsyncStream<PollEvent>.makeStream()
        scheduler = FeedScheduler(runner: runner, events: continuation, stagger: .zero)
        let events = self.events
        collector = Task {
            for await event in stream { events.append(event) }
        }
        let scheduler = self.scheduler
        feeds = Task { await scheduler.run() }
    }

    func entry(
        _ name: String, url: String, interval: Duration = .seconds(60), signature: String = "1",
        source: any FeedSource.Type = ScriptedSource.self
    ) -> FeedScheduler.Entry {
        let feed = PollHarness.feed(
            ScriptedSource.self, name: name, options: ["urls": .list([url]), "interval": .duration(interval)])
        return FeedScheduler.Entry(feed: feed, source: source.init(options: feed.options), signature: signature)
    }

    /// The offsets from the start, in seconds, of the polls scheduled for `feed`.
    func scheduled(_ feed: String) -> [Double] {
        events.withLock { Self.scheduled(feed, in: $0) }
    }

    private static func scheduled(_ feed: String, in events: [PollEvent]) -> [Double] {
        events.compactMap { event in
            if case .scheduled(feed, let next, _, _) = event { return next.timeIntervalSince1970 - 1_800_000_000 }
            return nil
        }
    }

    /// Waits until `count` polls of `feed` were scheduled (the events before them are in the log too).
    func waitForScheduled(_ feed: String, count: Int) async throws {
        try await events.wait { Self.scheduled(feed, in: $0).count >= count }
    }

    func statuses(_ feed: String) -> [PollReport.Status] {
        events.withLock { events in
            events.compactMap { event in
                if case .finished(let report) = event, report.feed == feed { return report.status }
                return nil
            }
        }
    }

    /// Advances the clock to each next deadline `count` times, waiting in between until `sleepers` feeds sleep on
    /// it again (advancing removes the sleepers it wakes, so each wait is for the feeds' next sleep).
    func run(steps count: Int, sleepers: Int = 1) async throws {
        for _ in 0..<count {
            try await clock.waitForSleepers(sleepers)
            guard let next = clock.nextDeadline else { return }
            clock.advance(to: next)
        }
        try await clock.waitForSleepers(sleepers)
    }

    func finish() async {
        await scheduler.stopAll()
        await scheduler.shutdown()
        await feeds.value
        collector.cancel()
    }
}

@Suite("The scheduler, on a controllable clock", .timeLimit(.minutes(5)))
struct FeedSchedulerTests {
    @Test("a feed is polled at its interval")
    func intervals() async throws {
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("1".utf8)) }
        let fixture = try SchedulerFixture(transport: transport)
        await fixture.scheduler.apply([fixture.entry("a", url: "http://x/a", interval: .seconds(60))])
        // The first poll is at once (no stagger here); then three more, one a minute.
        try await fixture.run(steps: 3)
        try await fixture.waitForScheduled("a", count: 5)
        #expect(transport.requests.count == 4)
        #expect(fixture.scheduled("a") == [0, 60, 120, 180, 240])
        #expect(fixture.statuses("a") == [.ok, .ok, .ok, .ok])
        await fixture.finish()
    }

    @Test("a hold stored by an earlier run is waited for, and said with the feed's first scheduled event")
    func storedHold() async throws {
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("1".utf8)) }
        let fixture = try SchedulerFixture(transport: transport)
        let start = fixture.clock.date
        var record = FeedRecord(name: "a", type: ScriptedSource.type)
        record.lastPoll = start.addingTimeInterval(-100)
        record.notBefore = start.addingTimeInterval(900)
        record.holdReason = "HTTP 429 asked to retry later"
        try await fixture.harness.store.commit(
            PollCommit(record: record, items: nil, firstSeen: start, groups: nil, validators: [:], values: [:]),
            feed: "a")
        await fixture.scheduler.apply([fixture.entry("a", url: "http://x/a", interval: .seconds(60))])
        try await fixture.waitForScheduled("a", count: 1)
        let first = fixture.events.withLock { events in
            events.compactMap { event -> RateBudgets.Hold?? in
                if case .scheduled("a", _, _, let hold) = event { return hold }
                return nil
            }.first
        }
        #expect(
            first
                == .some(
                    RateBudgets.Hold(until: start.addingTimeInterval(900), reason: "HTTP 429 asked to retry later")))
        #expect(fixture.scheduled("a") == [900])
        #expect(transport.requests.isEmpty)
        await fixture.finish()
    }

    @Test("a failing feed backs off exponentially, then recovers with its interval")
    func backOffAndRecovery() async throws {
        let calls = Mutex(0)
        let transport = StubTransport { _ in
            let call = calls.withLock {
                $0 += 1; return $0
            }
            return call <= 3 ? HTTPResponse(status: 404) : HTTPResponse(status: 200, body: Array("1".utf8))
        }
        let fixture = try SchedulerFixture(transport: transport)
        await fixture.scheduler.apply([fixture.entry("a", url: "http://x/a", interval: .seconds(60))])
        try await fixture.run(steps: 4)
        try await fixture.waitForScheduled("a", count: 6)
        #expect(fixture.statuses("a") == [.failed, .failed, .failed, .ok, .ok])
        // Failures wait 60, 120, 240 s; after the recovery the interval is 60 s again.
        #expect(fixture.scheduled("a") == [0, 60, 180, 420, 480, 540])
        await fixture.finish()
    }

    @Test("the server's X-Poll-Interval and Retry-After are never undercut")
    func serverMinimum() async throws {
        let calls = Mutex(0)
        let transport = StubTransport { _ in
            let call = calls.withLock {
                $0 += 1; return $0
            }
            if call == 2 { return HTTPResponse(status: 503, headers: ["Retry-After": "900"]) }
            return HTTPResponse(status: 200, headers: ["X-Poll-Interval": "120"], body: Array("1".utf8))
        }
        let fixture = try SchedulerFixture(transport: transport)
        await fixture.scheduler.apply([
            fixture.entry("a", url: "http://x/a", interval: .seconds(60), source: PollIntervalSource.self)
        ])
        try await fixture.run(steps: 2)
        try await fixture.waitForScheduled("a", count: 4)
        // 0: ok, X-Poll-Interval 120 → 120; there 503 Retry-After 900 → not before 1020; then 120 later.
        #expect(fixture.scheduled("a") == [0, 120, 1020, 1140])
        await fixture.finish()
    }

    @Test("at most pollsInFlight polls run at once: the other due feeds wait to start, holding nothing")
    func pollsInFlight() async throws {
        let held = HeldRequests()
        let fixture = try SchedulerFixture(transport: held.transport)
        let concurrency = Settings().concurrency
        let bound = FeedScheduler.pollsInFlight(concurrency: concurrency)
        let feeds = 2 * bound + 3
        await fixture.scheduler.apply((0..<feeds).map { fixture.entry("f\($0)", url: "http://x/\($0)") })
        // Every feed is due at once; the requests of `concurrency` polls wait at the server. Each is then let
        // through, one at a time, until every feed was polled once.
        try await held.letThrough(feeds)
        try await fixture.events.wait { events in
            events.count { if case .finished = $0 { true } else { false } } == feeds
        }
        #expect(mostRunning(fixture.events.withLock { $0 }) == bound)
        #expect(fixture.events.withLock { $0.count { if case .polling = $0 { true } else { false } } } == feeds)
        await fixture.finish()
    }

    @Test("the once policy polls each feed once, due or not, at most pollsInFlight at a time; then run returns")
    func oncePolicy() async throws {
        let held = HeldRequests()
        var settings = Settings()
        settings.retries = 0
        let harness = try PollHarness(settings: settings)
        let runner = PollRunner(
            store: harness.store, transport: held.transport, settings: settings, logger: Logger(label: "test"))
        let (stream, continuation) = AsyncStream<PollEvent>.makeStream()
        // A stagger of an hour: the once policy does not wait for it.
        let scheduler = FeedScheduler(runner: runner, events: continuation, stagger: .seconds(3600), policy: .once)
        let bound = FeedScheduler.pollsInFlight(concurrency: settings.concurrency)
        let feeds = 2 * bound + 3
        let names = (0..<feeds).map { "f\($0)" }
        await scheduler.apply(
            names.map { name in
                let feed = PollHarness.feed(
                    ScriptedSource.self, name: name,
                    options: ["urls": .list(["http://x/\(name)"]), "interval": .duration(.seconds(3600))])
                return FeedScheduler.Entry(feed: feed, source: ScriptedSource(options: feed.options), signature: "")
            })
        let run = Task {
            await scheduler.run()
            continuation.finish()
        }
        // The requests of the polls in flight wait at the server; each is let through, one at a time.
        try await held.letThrough(feeds)
        await run.value
        var events: [PollEvent] = []
        for await event in stream { events.append(event) }
        #expect(mostRunning(events) == bound)
        let finished = events.compactMap { event -> PollReport? in
            if case .finished(let report) = event { report } else { nil }
        }
        #expect(finished.map(\.feed).sorted() == names.sorted())
        #expect(finished.allSatisfy { $0.status == .ok })
        #expect(!events.contains { if case .scheduled = $0 { true } else { false } })
    }

    @Test("a poll that overruns its interval is not stacked: the next slot is skipped")
    func noOverlap() async throws {
        let inFlight = Mutex((now: 0, most: 0))
        let gate = Watched<CheckedContinuation<Void, Never>?>(nil)
        let transport = StubTransport { _ in
            inFlight.withLock {
                $0.now += 1; $0.most = max($0.most, $0.now)
            }
            await withCheckedContinuation { continuation in gate.update { $0 = continuation } }
            inFlight.withLock { $0.now -= 1 }
            return HTTPResponse(status: 200, body: Array("1".utf8))
        }
        let fixture = try SchedulerFixture(transport: transport)
        await fixture.scheduler.apply([fixture.entry("a", url: "http://x/a", interval: .seconds(60))])
        // The first poll hangs at the server while 150 s pass.
        try await gate.wait { $0 != nil }
        fixture.clock.advance(by: .seconds(150))
        gate.update {
            $0?.resume(); $0 = nil
        }
        try await fixture.waitForScheduled("a", count: 2)
        #expect(fixture.scheduled("a") == [0, 180])
        let skipped = fixture.events.withLock { events in
            events.compactMap { event -> Int? in
                if case .scheduled("a", _, let skipped, _) = event { return skipped }
                return nil
            }
        }
        #expect(skipped == [0, 2])
        #expect(inFlight.withLock { $0.most } == 1)
        await fixture.finish()
    }

    @Test("applying a new set starts added feeds, stops removed ones, restarts changed ones, and leaves the rest")
    func apply() async throws {
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("1".utf8)) }
        let fixture = try SchedulerFixture(transport: transport)
        let first = await fixture.scheduler.apply([
            fixture.entry("a", url: "http://x/a"), fixture.entry("b", url: "http://x/b"),
        ])
        #expect(first.started == ["a", "b"])
        try await fixture.run(steps: 1, sleepers: 2)
        let second = await fixture.scheduler.apply([
            fixture.entry("a", url: "http://x/a"), fixture.entry("c", url: "http://x/c"),
        ])
        #expect((second.started, second.stopped, second.restarted) == (["c"], ["b"], []))
        let third = await fixture.scheduler.apply([
            fixture.entry("a", url: "http://x/a2", signature: "2"), fixture.entry("c", url: "http://x/c"),
        ])
        #expect((third.started, third.stopped, third.restarted) == ([], [], ["a"]))
        #expect(fixture.scheduler.feeds == ["a", "c"])
        await fixture.finish()
        #expect(fixture.scheduler.feeds == [])
    }

    @Test("pollNow wakes a feed waiting for its 1 h interval: exactly one more poll, its interval restarts from it")
    func pollNow() async throws {
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("1".utf8)) }
        let fixture = try SchedulerFixture(transport: transport)
        await fixture.scheduler.apply([fixture.entry("a", url: "http://x/a", interval: .seconds(3600))])
        try await fixture.waitForScheduled("a", count: 2)
        try await fixture.clock.waitForSleepers(1)
        #expect(fixture.scheduled("a") == [0, 3600])
        // Ten minutes into the wait, "poll now".
        fixture.clock.advance(by: .seconds(600))
        #expect(fixture.scheduler.pollNow(feed: "a") == .polling)
        try await fixture.waitForScheduled("a", count: 3)
        try await fixture.clock.waitForSleepers(1)
        // One poll at 600, the next an hour after it; the feed was not restarted (no second first poll).
        #expect(transport.requests.count == 2)
        #expect(fixture.scheduled("a") == [0, 3600, 4200])
        #expect(fixture.statuses("a") == [.ok, .ok])
        #expect(fixture.clock.nextDeadline == Date(timeIntervalSince1970: 1_800_004_200))
        // And on from there, once an hour.
        try await fixture.run(steps: 1)
        try await fixture.waitForScheduled("a", count: 4)
        #expect(transport.requests.count == 3)
        #expect(fixture.scheduled("a") == [0, 3600, 4200, 7800])
        #expect(fixture.scheduler.pollNow(feed: "b") == .notScheduled)
        await fixture.finish()
    }

    @Test("pollNow does not poll a feed the server holds back (Retry-After, X-Poll-Interval), and says until when")
    func pollNowHeld() async throws {
        let calls = Mutex(0)
        let transport = StubTransport { _ in
            let call = calls.withLock {
                $0 += 1; return $0
            }
            if call == 1 { return HTTPResponse(status: 503, headers: ["Retry-After": "900"]) }
            return HTTPResponse(status: 200, headers: ["X-Poll-Interval": "1800"], body: Array("1".utf8))
        }
        let fixture = try SchedulerFixture(transport: transport)
        let start = fixture.clock.date
        await fixture.scheduler.apply([
            fixture.entry("a", url: "http://x/a", interval: .seconds(3600), source: PollIntervalSource.self)
        ])
        try await fixture.waitForScheduled("a", count: 2)
        try await fixture.clock.waitForSleepers(1)
        #expect(fixture.statuses("a") == [.failed])
        // Retry-After 900: held until then, in the words the state keeps.
        #expect(
            fixture.scheduler.pollNow(feed: "a")
                == .held(until: start.addingTimeInterval(900), reason: "HTTP 503 asked to retry later"))
        fixture.clock.advance(by: .seconds(899))
        #expect(
            fixture.scheduler.pollNow(feed: "a")
                == .held(until: start.addingTimeInterval(900), reason: "HTTP 503 asked to retry later"))
        #expect(transport.requests.count == 1)
        #expect(fixture.clock.sleepers == 1)
        // Once the hold is over, it polls; the answer's X-Poll-Interval of 30 min holds it back from then.
        fixture.clock.advance(by: .seconds(1))
        #expect(fixture.scheduler.pollNow(feed: "a") == .polling)
        try await fixture.waitForScheduled("a", count: 3)
        try await fixture.clock.waitForSleepers(1)
        #expect(transport.requests.count == 2)
        #expect(fixture.statuses("a") == [.failed, .ok])
        #expect(fixture.scheduled("a") == [0, 3600, 4500])
        fixture.clock.advance(by: .seconds(1799))
        #expect(
            fixture.scheduler.pollNow(feed: "a")
                == .held(until: start.addingTimeInterval(2700), reason: "the server's minimum interval of 30m"))
        #expect(transport.requests.count == 2)
        fixture.clock.advance(by: .seconds(1))
        #expect(fixture.scheduler.pollNow(feed: "a") == .polling)
        try await fixture.waitForScheduled("a", count: 4)
        try await fixture.clock.waitForSleepers(1)
        #expect(transport.requests.count == 3)
        #expect(fixture.scheduled("a") == [0, 3600, 4500, 6300])
        await fixture.finish()
    }

    @Test("pollNow while a poll runs does not double it: one request, the next poll an interval later")
    func pollNowWhilePolling() async throws {
        let gate = Watched<CheckedContinuation<Void, Never>?>(nil)
        let transport = StubTransport { _ in
            await withCheckedContinuation { continuation in gate.update { $0 = continuation } }
            return HTTPResponse(status: 200, body: Array("1".utf8))
        }
        let fixture = try SchedulerFixture(transport: transport)
        await fixture.scheduler.apply([fixture.entry("a", url: "http://x/a", interval: .seconds(3600))])
        // The first poll waits at the server.
        try await gate.wait { $0 != nil }
        #expect(fixture.scheduler.pollNow(feed: "a") == .alreadyPolling)
        #expect(fixture.scheduler.pollNow(feed: "a") == .alreadyPolling)
        gate.update {
            $0?.resume(); $0 = nil
        }
        try await fixture.waitForScheduled("a", count: 2)
        try await fixture.clock.waitForSleepers(1)
        #expect(transport.requests.count == 1)
        #expect(fixture.scheduled("a") == [0, 3600])
        #expect(fixture.statuses("a") == [.ok])
        #expect(fixture.clock.nextDeadline == Date(timeIntervalSince1970: 1_800_003_600))
        await fixture.finish()
    }
}

/// The scripted source with a policy that reads `X-Poll-Interval`, as GitHub's does.
private struct PollIntervalSource: FeedSource {
    struct Policy: HTTPSourcePolicy {
        func pollInterval(of response: HTTPResponse) -> Duration? {
            response.headers["X-Poll-Interval"].flatMap { Int($0) }.map { .seconds($0) }
        }
    }

    static let type = ScriptedSource.type
    static let summary = ScriptedSource.summary
    static let options = ScriptedSource.options
    static var httpPolicy: any HTTPSourcePolicy { Policy() }

    let scripted: ScriptedSource

    init(options: FeedOptions) { scripted = ScriptedSource(options: options) }

    var retention: ItemRetention { scripted.retention }

    func poll(_ context: PollContext, _ found: Findings) async throws { try await scripted.poll(context, found) }
}
