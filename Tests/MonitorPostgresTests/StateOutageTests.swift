import Foundation
import LoopbackHTTP
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore
@testable import MonitorPostgres

@Suite("A PostgreSQL state that cannot be reached for a while", .timeLimit(.minutes(5)))
struct StateOutageTests {
    @Test(
        """
        an outage beginning during a poll: said once when it starts and once when it ends, not blamed on the feed, \
        asked again within the feed's interval, the feed polled as soon as the state is back
        """)
    func outage() async throws {
        let server = try await PostgresServer.forTest()
        let relay = try await PostgresRelay.start(to: server.port)
        defer { relay.stop() }
        let url = relay.relaying(try await server.makeDatabase())
        let store = try await PostgresStateStore.open(url)
        // The second request waits for the test: the state goes away while it is answered.
        let requests = Watched(0)
        let gate = Watched(false)
        try await withTestHTTPServer({ _ in
            let number = requests.update { count -> Int in
                count += 1
                return count
            }
            if number == 2 { _ = try? await gate.wait { $0 } }
            return .text("2")
        }) { http in
            let transport = HTTPClientTransport(timeout: .seconds(30))
            let clock = ManualClock()
            let log = RecordedLog()
            var runner = PollRunner(
                store: store, transport: transport, settings: Settings(), clock: clock, logger: log.logger)
            runner.leasing = FeedLeases(store: store, owner: "here")
            let (events, continuation) = AsyncStream<PollEvent>.makeStream()
            let scheduler = FeedScheduler(runner: runner, events: continuation, stagger: .zero)
            let running = Task { await scheduler.run() }
            let feed = PollHarness.feed(
                ScriptedSource.self, name: "planet",
                options: ["urls": .list(["\(http.baseURL)/events"]), "interval": .duration(.seconds(60))])
            await scheduler.apply([
                FeedScheduler.Entry(feed: feed, source: ScriptedSource(options: feed.options), signature: "1")
            ])
            // Every draw 0.5: no jitter on the interval, three quarters of each back-off.
            let start = clock.date
            var live = LiveState(feeds: [feed], sources: [:], now: start, panels: false)
            var logged: [String] = []
            var iterator = events.makeAsyncIterator()
            /// Shows the events as `monitor run` without a terminal does, until the feed waits for its next poll;
            /// returns when that is, in seconds from the start.
            func scheduled() async -> Double? {
                while let event = await iterator.next() {
                    logged += live.apply(event, now: clock.date, quiet: false).log
                    if case .scheduled("planet", let next, _, _) = event { return next.timeIntervalSince(start) }
                }
                return nil
            }

            #expect(await scheduled() == 60)
            try await clock.waitForSleepers(1)
            clock.advance(to: start.addingTimeInterval(60))
            try await http.waitForRequests(2)
            // The state goes away while the feed's server answers: the poll's commit meets it.
            try await relay.refuse()
            let refused = StateError.unreachable("cannot connect to \(url): connection refused")
            // The connections the store holds were closed with the relay's: calls find them so (discarding them), then
            // meet the refusal. A query written in the instant its connection closes is never answered (PostgresNIO
            // drops it): such a call ends at a short deadline here, long before the feed's request, held meanwhile,
            // times out (its retry would wait on the test's clock).
            store.deadline = .seconds(3)
            for _ in 0...8 {
                do {
                    _ = try await store.records()
                } catch let error as StateError where error == refused {
                    break
                } catch {}
            }
            store.deadline = PostgresDeadline.standard
            gate.update { $0 = true }
            // Given back at once (nothing to wait for when the state cannot store the poll), then asked again 5 s ×
            // 2^(n−1) × 0.75 after each failure, up to the interval (× 0.75): never more than the interval.
            var outage: [Double] = []
            while outage.count < 5 {
                outage.append(try #require(await scheduled()))
                if outage.count == 5 { break }
                try await clock.waitForSleepers(1)
                clock.advance(to: try #require(clock.nextDeadline))
            }
            #expect(outage == [67.5, 82.5, 112.5, 157.5, 202.5])
            #expect(requests.value == 2)

            try await relay.forward()
            try await clock.waitForSleepers(1)
            clock.advance(to: try #require(clock.nextDeadline))
            // Claimed as soon as the state answers (it was due at 60 s), polled, and due again an interval later.
            #expect(await scheduled() == 202.5 + 54 + 1.5)
            try await http.waitForRequests(3)
            #expect(
                logged == [
                    "08:00:00 planet: ok, 2 items, 2 new", "08:00:00 planet: first sync, 2 items",
                    "08:01:00 state unreachable: cannot connect to \(url): connection refused",
                    "08:03:22 state reachable again", "08:03:22 planet: ok, 2 items, 0 new",
                ])
            // The feed stood where it stood: its poll was not its failure.
            #expect(live.lines.map(\.phase) == [.ok])
            #expect(live.lines.map(\.failures) == [0])
            #expect(live.unreachable == nil)
            // Nothing logged for each call that failed: the state line said it.
            #expect(log.messages == [])
            #expect(try await store.record(feed: "planet")?.failures == 0)
            await scheduler.shutdown()
            await running.value
            try await transport.shutdown()
        }
    }
}
