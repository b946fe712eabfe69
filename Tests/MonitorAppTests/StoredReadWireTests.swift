import Foundation
import LoopbackHTTP
import MonitorConcurrency
import MonitorSQLite
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

@Suite("A poll's first requests while its stored items are read", .timeLimit(.minutes(2)))
struct StoredReadWireTests {
    @Test("the first request reaches the server before the stored items are read, and the fold still sees them")
    func requestsBeforeItems() async throws {
        let wire = try Wire()
        let answer = Counter()
        let held = ItemsAfterRequest(base: wire.harness.store)
        try await withTestHTTPServer({ _ in
            held.happened("request")
            return .text(answer.increment() == 1 ? "3" : "4")
        }) { server in
            let feed = wire.feed("f", urls: ["\(server.baseURL)/a"])
            let first = await wire.poll(feed)
            #expect((first.status, first.items, first.new) == (.ok, 3, 3))

            var runner = wire.runner
            runner.store = held
            held.reset()
            let second = await runner.poll(feed, source: ScriptedSource(options: feed.options))
            #expect(held.events == ["request", "items read"])
            // The three stored items are known: only the fourth is new.
            #expect((second.status, second.items, second.new) == (.ok, 4, 1))
            #expect(second.newIDs == ["a-3"])
        }
        try await wire.shutdown()
    }
}

/// A SQLite state whose poll snapshots end only once a request has reached the server (a minute at most), recording
/// the order of the two.
private final class ItemsAfterRequest: ForwardingStore {
    let base: any StateStoring
    private let requested = Mutex(OneShot<Bool>())
    private let order = Mutex<[String]>([])

    init(base: any StateStoring) { self.base = base }

    /// What happened, in order.
    var events: [String] { order.withLock { $0 } }

    /// Forgets what happened.
    func reset() {
        order.withLock { $0 = [] }
        requested.withLock { $0 = OneShot() }
    }

    /// Records `event`; a request lets the snapshot end.
    func happened(_ event: String) {
        order.withLock { $0.append(event) }
        if event == "request" { requested.withLock { $0 }.fulfil(true) }
    }

    func snapshot(feed: String) async throws -> FeedSnapshot {
        let snapshot = try await base.snapshot(feed: feed)
        happened("items read")
        return snapshot
    }

    func snapshot(
        feed: String, head: @escaping @Sendable (_ snapshot: FeedSnapshot, _ ids: Set<String>) -> Void
    ) async throws -> FeedSnapshot {
        let snapshot = try await base.snapshot(feed: feed, head: head)
        let request = requested.withLock { $0 }
        _ = try? await withDeadline(.seconds(60), orThrow: CancellationError()) { await request.value }
        happened("items read")
        return snapshot
    }
}
