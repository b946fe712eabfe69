import Foundation
import Logging
import MonitorItems
import PostgresTestSupport
import Samples
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

/// A real state that counts the outbox entries it hands out: each one a row read and decoded.
private final class CountingStore: ForwardingStore {
    let base: any StateStoring
    let decoded = Mutex(0)

    init(_ base: any StateStoring) {
        self.base = base
    }

    func outbox(refused: Bool) async throws -> [OutboxEntry] {
        let entries = try await base.outbox(refused: refused)
        decoded.withLock { $0 += entries.count }
        return entries
    }
    func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        let entry = try await base.nextNotification(of: notifier)
        decoded.withLock { $0 += entry == nil ? 0 : 1 }
        return entry
    }
}

@Suite("The delivery reads each notifier's head, never the whole outbox", .timeLimit(.minutes(5)))
struct OutboxHeadReadTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func commit(_ ids: [String]) -> PollCommit {
        var record = FeedRecord(name: "rx", type: "github")
        record.lastPoll = now
        return PollCommit(
            record: record, items: [], firstSeen: now, groups: [], validators: [:], values: [:],
            notifications: ids.map { id in
                FeedNotification(
                    id: id, notifier: "chat", feed: "rx", type: "github", event: .new, at: now, total: 1,
                    items: [Item(id: "i-\(id)", title: "Item \(id)", date: now, groups: ["g"])])
            })
    }

    @Test(
        "500 notifications waiting for a receiver that is down: each round and each commit's wakeup decodes one",
        arguments: StateBackend.allCases)
    func headOnly(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = CountingStore(try await state.open())
        try await store.commit(Self.commit((1...500).map { "n\($0)" }), feed: "rx")
        let clock = ManualClock(start: Self.now)
        let delivery = NotificationDelivery(
            store: store, notifiers: ["chat": DownNotifier()], clock: clock,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))

        // The first round: the head is tried and not delivered; the 499 behind it are not read.
        let first = await delivery.deliverDue(all: true)
        #expect(first.map(\.notification.id) == ["n1"])
        #expect(store.decoded.withLock { $0 } == 1)

        // Ten polls commit a notification each and wake the delivery: the head is read, not due, nothing else.
        for poll in 1...10 {
            try await store.commit(Self.commit(["p\(poll)"]), feed: "rx")
            #expect(await delivery.deliverDue().isEmpty)
        }
        #expect(store.decoded.withLock { $0 } == 11)
        #expect(try await store.base.pendingCount(of: "chat") == 510)
    }
}
