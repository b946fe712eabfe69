import Foundation
import Logging
import MonitorConcurrency
import MonitorOptions
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

/// A state whose outbox reads (`nextNotification(of:)`) and records (`delivered`, `failed`) fail the number
/// of times asked, then work: a store that has a passing problem.
private final class FlakyStore: ForwardingStore {
    let base: any StateStoring
    private let failures: Mutex<(reads: Int, records: Int)>

    init(_ base: any StateStoring, failingReads reads: Int = 0, failingRecords records: Int = 0) {
        self.base = base
        failures = Mutex((reads, records))
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "database is locked" }
    }

    /// Throws when a failure of `kind` is still to come.
    private func fail(_ kind: WritableKeyPath<(reads: Int, records: Int), Int>) throws {
        let fails = failures.withLock { failures in
            guard failures[keyPath: kind] > 0 else { return false }
            failures[keyPath: kind] -= 1
            return true
        }
        if fails { throw Failure() }
    }

    func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        try fail(\.reads)
        return try await base.nextNotification(of: notifier)
    }
    func delivered(_ ids: [String], notifier: String, at time: Date) async throws {
        try fail(\.records)
        try await base.delivered(ids, notifier: notifier, at: time)
    }
    func failed(
        _ ids: [String], notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        try fail(\.records)
        try await base.failed(
            ids, notifier: notifier, error: error, at: time, nextAttempt: nextAttempt, refused: refused)
    }
}

/// A count shared by copies of a notifier.
private final class Calls: Sendable {
    let count = Mutex(0)
}

/// A notifier that fails its first `failing` deliveries (retryable), then delivers; it counts its calls.
private struct CountingNotifier: Notifier {
    static let type = "counting"
    static let summary = "Counts"
    static let options: [any OptionDeclaration] = []

    let calls = Calls()
    var failing = 0

    init(failing: Int) { self.failing = failing }
    init(name: String, options: FeedOptions, context: NotifierContext) {}

    var target: String { "counter" }

    func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        let call = calls.count.withLock {
            $0 += 1
            return $0
        }
        if call <= failing { throw DeliveryError.retry("down") }
        return DeliveryReceipt("ok")
    }
}

@Suite("The delivery loop after a store error", .timeLimit(.minutes(5)))
struct DeliveryStoreErrorTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    static let backoff = Backoff(base: .seconds(5), maximum: .seconds(900))

    /// A state with one notification of `chat` in its outbox, never attempted.
    private func holdingOne() async throws -> MemoryState {
        let store = MemoryState()
        var record = FeedRecord(name: "rx", type: "github")
        record.lastPoll = NotificationFixtures.at
        let notification = FeedNotification(
            id: "n-1", notifier: "chat", feed: "rx", type: "github", event: .recovered, at: NotificationFixtures.at,
            total: 0, items: [])
        try await store.commit(
            PollCommit(
                record: record, items: [], firstSeen: NotificationFixtures.at, groups: [], validators: [:],
                values: [:], notifications: [notification]), feed: "rx")
        return store
    }

    /// Runs the delivery of `store` through `notifier` on `clock` until `body` returns, with what it heard.
    private func running(
        _ store: FlakyStore, _ notifier: CountingNotifier, clock: ManualClock,
        _ body: (inout AsyncStream<NotificationDelivery.Attempt>.Iterator) async throws -> Void
    ) async throws {
        let (attempts, heard) = AsyncStream<NotificationDelivery.Attempt>.makeStream()
        let delivery = NotificationDelivery(
            store: store, notifiers: ["chat": notifier], clock: clock, backoff: Self.backoff,
            logger: Self.logger, observer: { heard.yield($0) })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await delivery.run(wakeup: Wakeup()) }
            var iterator = attempts.makeAsyncIterator()
            try await body(&iterator)
            group.cancelAll()
        }
    }

    @Test("the outbox cannot be read: the loop waits the backoff's base, then delivers")
    func failedRead() async throws {
        let store = FlakyStore(try await holdingOne(), failingReads: 1)
        let notifier = CountingNotifier(failing: 0)
        let clock = ManualClock()
        let start = clock.date
        try await running(store, notifier, clock: clock) { heard in
            try await clock.waitForSleepers(1)
            #expect(clock.nextDeadline == start.addingTimeInterval(5.001))
            #expect(notifier.calls.count.withLock { $0 } == 0)
            clock.advance(by: .milliseconds(5001))
            let attempt = await heard.next()
            #expect(attempt?.notification.id == "n-1")
            #expect(attempt?.result == .delivered("ok"))
        }
        #expect(notifier.calls.count.withLock { $0 } == 1)
        #expect(try await store.base.outbox(refused: true).isEmpty)
    }

    @Test("a failed attempt cannot be recorded: the loop waits the backoff's base, then tries again and delivers")
    func failedRecord() async throws {
        let store = FlakyStore(try await holdingOne(), failingRecords: 1)
        let notifier = CountingNotifier(failing: 1)
        let clock = ManualClock()
        let start = clock.date
        try await running(store, notifier, clock: clock) { heard in
            let first = await heard.next()
            #expect(first?.result == .willRetry("down", next: start.addingTimeInterval(3.75)))
            try await clock.waitForSleepers(1)
            #expect(clock.nextDeadline == start.addingTimeInterval(5.001))
            clock.advance(by: .milliseconds(5001))
            let second = await heard.next()
            #expect(second?.result == .delivered("ok"))
        }
        #expect(notifier.calls.count.withLock { $0 } == 2)
        #expect(try await store.base.outbox(refused: true).isEmpty)
    }

    @Test("a delivery that cannot be recorded (the disk full): sent again after 5 s, 10 s, 20 s, not every 5 s")
    func unrecordedDelivery() async throws {
        let store = FlakyStore(try await holdingOne(), failingRecords: 3)
        let notifier = CountingNotifier(failing: 0)
        let clock = ManualClock()
        var now = clock.date
        try await running(store, notifier, clock: clock) { heard in
            for wait in [5.0, 10, 20] {
                #expect(await heard.next()?.result == .delivered("ok"))
                try await clock.waitForSleepers(1)
                #expect(clock.nextDeadline == now.addingTimeInterval(wait + 0.001))
                clock.advance(by: .milliseconds(Int64(wait * 1000) + 1))
                now = clock.date
            }
            // Recorded at the fourth: nothing more is sent.
            #expect(await heard.next()?.result == .delivered("ok"))
        }
        #expect(notifier.calls.count.withLock { $0 } == 4)
        #expect(try await store.base.outbox(refused: true).isEmpty)
    }
}
