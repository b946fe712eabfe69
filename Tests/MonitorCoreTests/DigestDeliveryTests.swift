import Foundation
import Logging
import MonitorConcurrency
import MonitorItems
import MonitorOptions
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

/// A notifier that keeps what it is given and answers as told: delivered, or failing (retryable or refused) for its
/// first calls.
final class DigestReceiver: Notifier, Sendable {
    static let type = "receiver"
    static let summary = "Keeps what it is given"
    static let options: [any OptionDeclaration] = []

    let received = Mutex<[FeedNotification]>([])
    let failures: Mutex<[DeliveryError]>

    init(failing failures: [DeliveryError] = []) { self.failures = Mutex(failures) }
    init(name: String, options: FeedOptions, context: NotifierContext) { failures = Mutex([]) }

    var target: String { "receiver" }

    func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        received.withLock { $0.append(notification) }
        if let failure = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
        return DeliveryReceipt("ok")
    }

    var ids: [[String]] { received.withLock { $0.map { ($0.notifications ?? []).map(\.id) } } }
}

@Suite("Digests: one message per period, combining what a notifier collected", .timeLimit(.minutes(5)))
struct DigestDeliveryTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func notification(_ id: String, feed: String = "rx", at: Date) -> FeedNotification {
        FeedNotification(
            id: id, notifier: "chat", feed: feed, type: "github", event: .new, at: at, total: 1,
            items: [Item(id: "i-\(id)", title: "Item \(id)", date: at, groups: ["g"], url: "https://x/\(id)")])
    }

    /// Commits a poll of `feed` ending at `at` that notified `ids` to `chat`.
    static func poll(
        _ store: any StateStoring, _ ids: [String], feed: String = "rx", at: Date, bounds: [String: OutboxBounds] = [:]
    ) async throws {
        var record = FeedRecord(name: feed, type: "github")
        record.lastPoll = at
        try await store.commit(
            PollCommit(
                record: record, items: [], firstSeen: at, groups: [], validators: [:], values: [:],
                notifications: ids.map { notification($0, feed: feed, at: at) }, bounds: bounds), feed: feed)
    }

    static func delivery(
        _ store: any StateStoring, _ receiver: DigestReceiver, clock: ManualClock, bounds: [String: OutboxBounds] = [:]
    ) -> NotificationDelivery {
        NotificationDelivery(
            store: store, notifiers: ["chat": receiver], bounds: bounds, digests: ["chat": .seconds(3600)],
            clock: clock,
            backoff: Backoff(base: .seconds(60), maximum: .seconds(600)), logger: logger)
    }

    @Test(
        "nothing goes before one period after the first notification collected; then one digest of all, in order",
        arguments: StateBackend.allCases)
    func onePerPeriod(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let clock = ManualClock(start: Self.start)
        let receiver = DigestReceiver()
        let delivery = Self.delivery(store, receiver, clock: clock)
        // Nothing collected: nothing due.
        #expect(await delivery.deliverDue(all: true).isEmpty)
        try await Self.poll(store, ["a"], at: Self.start)
        try await Self.poll(store, ["b"], feed: "fires", at: Self.start.addingTimeInterval(600))
        try await Self.poll(store, ["c"], at: Self.start.addingTimeInterval(1200))
        clock.advance(by: .seconds(3599))
        // Not due, not even for a round that delivers everything at once (a `run --once`).
        #expect(await delivery.deliverDue(all: true).isEmpty)
        #expect(receiver.ids.isEmpty)
        #expect(try await store.pendingCount(of: "chat") == 3)
        clock.advance(by: .seconds(1))
        let attempts = await delivery.deliverDue()
        #expect(attempts.map(\.notification.id) == ["digest-a-3"])
        #expect(attempts.map(\.result) == [.delivered("ok")])
        #expect(receiver.ids == [["a", "b", "c"]])
        let digest = try #require(receiver.received.withLock { $0.first })
        #expect(digest.event == .digest)
        #expect(digest.total == 3)
        #expect(digest.at == Self.start.addingTimeInterval(3600))
        #expect(
            digest.notifications == [
                Self.notification("a", at: Self.start),
                Self.notification("b", feed: "fires", at: Self.start.addingTimeInterval(600)),
                Self.notification("c", at: Self.start.addingTimeInterval(1200)),
            ])
        #expect(try await store.outbox(refused: true).isEmpty)
        #expect(try await store.notifierStatuses().first?.lastDelivered == Self.start.addingTimeInterval(3600))
        // What comes next waits a period from itself.
        try await Self.poll(store, ["d"], at: Self.start.addingTimeInterval(3700))
        clock.advance(to: Self.start.addingTimeInterval(7299))
        #expect(await delivery.deliverDue().isEmpty)
        clock.advance(by: .seconds(1))
        #expect(await delivery.deliverDue().map(\.notification.id) == ["digest-d-1"])
        #expect(receiver.ids == [["a", "b", "c"], ["d"]])
    }

    @Test(
        "a receiver that is down: everything stays, the failure is on the oldest; the retry also carries what came since",
        arguments: StateBackend.allCases)
    func downReceiver(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let clock = ManualClock(start: Self.start)
        clock.queueRandom([0])
        let receiver = DigestReceiver(failing: [.retry("HTTP 503")])
        let delivery = Self.delivery(store, receiver, clock: clock)
        try await Self.poll(store, ["a", "b"], at: Self.start)
        clock.advance(by: .seconds(3600))
        let failed = await delivery.deliverDue()
        // The first backoff: half the 60 s base with no jitter.
        let next = Self.start.addingTimeInterval(3630)
        #expect(failed.map(\.result) == [.willRetry("HTTP 503", next: next)])
        let outbox = try await store.outbox()
        #expect(outbox.map(\.notification.id) == ["a", "b"])
        #expect(outbox.map(\.attempts) == [1, 0])
        #expect(outbox.map(\.nextAttempt) == [next, nil])
        try await Self.poll(store, ["c"], at: Self.start.addingTimeInterval(3610))
        clock.advance(by: .seconds(29))
        #expect(await delivery.deliverDue().isEmpty)
        clock.advance(by: .seconds(1))
        let delivered = await delivery.deliverDue()
        #expect(delivered.map(\.notification.id) == ["digest-a-3"])
        #expect(delivered.map(\.result) == [.delivered("ok")])
        #expect(receiver.ids == [["a", "b"], ["a", "b", "c"]])
        #expect(try await store.outbox(refused: true).isEmpty)
    }

    @Test(
        "a receiver that refuses a digest refuses everything in it: none is sent again",
        arguments: StateBackend.allCases)
    func refused(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let clock = ManualClock(start: Self.start)
        let receiver = DigestReceiver(failing: [.permanent("HTTP 400")])
        let delivery = Self.delivery(store, receiver, clock: clock)
        try await Self.poll(store, ["a", "b"], at: Self.start)
        clock.advance(by: .seconds(3600))
        #expect(await delivery.deliverDue().map(\.result) == [.refused("HTTP 400")])
        #expect(try await store.pendingCount(of: "chat") == 0)
        let refused = try await store.outbox(refused: true)
        #expect(refused.map(\.notification.id) == ["a", "b"])
        #expect(refused.map(\.refusedAt) == [clock.date, clock.date])
        clock.advance(by: .seconds(7200))
        #expect(await delivery.deliverDue().isEmpty)
        #expect(receiver.ids == [["a", "b"]])
    }

    @Test(
        "a flood past max_pending: the oldest are dropped, and a full digest goes one period after the last one, not later",
        arguments: StateBackend.allCases)
    func floodPastMaxPending(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let clock = ManualClock(start: Self.start)
        let receiver = DigestReceiver()
        let bounds = ["chat": OutboxBounds(count: 2, age: .seconds(7 * 86_400))]
        let delivery = Self.delivery(store, receiver, clock: clock, bounds: bounds)
        let poll = { (id: String, seconds: Double) in
            clock.advance(to: Self.start.addingTimeInterval(seconds))
            try await Self.poll(store, [id], at: clock.date, bounds: bounds)
        }
        try await poll("a", 0)
        #expect(await delivery.deliverDue().isEmpty)
        try await poll("b", 1000)
        // Full: it never delivered, so it goes at once rather than lose more.
        #expect(await delivery.deliverDue().map(\.notification.id) == ["digest-a-2"])
        // Then a notification every 1000 s, one more than max_pending allows per period: each poll drops the oldest.
        for (index, id) in ["c", "d", "e"].enumerated() {
            try await poll(id, 2000 + 1000 * Double(index))
        }
        #expect(try await store.outbox().map(\.notification.id) == ["d", "e"])
        #expect(try await store.notifierStatuses().first?.dropped == 1)
        // Due one period after the last digest (at 1000 s), although its oldest, d, is from 3000 s.
        clock.advance(to: Self.start.addingTimeInterval(4599))
        #expect(await delivery.deliverDue().isEmpty)
        clock.advance(to: Self.start.addingTimeInterval(4600))
        #expect(await delivery.deliverDue().map(\.notification.id) == ["digest-d-2"])
        #expect(receiver.ids == [["a", "b"], ["d", "e"]])
    }

    @Test("the delivery loop sleeps until the digest is due and sends it when the clock gets there")
    func loopWaitsForTheDigest() async throws {
        let store = MemoryState()
        let clock = ManualClock(start: Self.start)
        let receiver = DigestReceiver()
        let (attempts, heard) = AsyncStream<NotificationDelivery.Attempt>.makeStream()
        let delivery = NotificationDelivery(
            store: store, notifiers: ["chat": receiver], digests: ["chat": .seconds(3600)], clock: clock,
            logger: Self.logger, observer: { heard.yield($0) })
        try await Self.poll(store, ["a"], at: Self.start.addingTimeInterval(-600))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await delivery.run(wakeup: Wakeup()) }
            try await clock.waitForSleepers(1)
            #expect(clock.nextDeadline == Self.start.addingTimeInterval(3000.001))
            #expect(receiver.ids.isEmpty)
            clock.advance(by: .seconds(3001))
            var iterator = attempts.makeAsyncIterator()
            let attempt = await iterator.next()
            #expect(attempt?.notification.id == "digest-a-1")
            #expect(attempt?.result == .delivered("ok"))
            group.cancelAll()
        }
        #expect(receiver.ids == [["a"]])
    }

    @Test(
        "the clock stepped back a year: a digest is due a period after, a failed head tried within an hour",
        arguments: StateBackend.allCases)
    func clockSteppedBack(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let clock = ManualClock(start: Self.start)
        let receiver = DigestReceiver()
        let delivery = Self.delivery(store, receiver, clock: clock)
        let year: TimeInterval = 365 * 86_400
        // Written a year ahead of the clock's time: before the clock was stepped back.
        try await Self.poll(store, ["a"], at: Self.start.addingTimeInterval(year))
        #expect(await delivery.deliverDue().isEmpty)
        clock.advance(by: .seconds(3600))
        #expect(await delivery.deliverDue().map(\.result) == [.delivered("ok")])
        #expect(receiver.ids == [["a"]])

        // A failed attempt whose next one was set a year ahead: the first round moves it to an hour after its time.
        try await Self.poll(store, ["b"], at: clock.date)
        try await store.failed(
            ["b"], notifier: "chat", error: "down", at: clock.date, nextAttempt: clock.date.addingTimeInterval(year),
            refused: false)
        clock.advance(by: .seconds(3600))
        #expect(await delivery.deliverDue().isEmpty)
        #expect(try await store.outbox().map(\.nextAttempt) == [clock.date.addingTimeInterval(3600)])
        clock.advance(by: .seconds(3600))
        #expect(await delivery.deliverDue().map(\.result) == [.delivered("ok")])
        #expect(receiver.ids == [["a"], ["b"]])
    }
}
