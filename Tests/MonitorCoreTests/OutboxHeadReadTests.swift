import Foundation
import Logging
import MonitorCore
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing

/// A real state that counts the outbox entries it hands out: each one a row read and decoded.
private final class CountingStore: StateStoring {
    let base: any StateStoring
    let decoded = Mutex(0)

    init(_ base: any StateStoring) {
        self.base = base
    }

    private func counted<Entries: Collection>(_ entries: Entries) -> Entries {
        decoded.withLock { $0 += entries.count }
        return entries
    }

    var location: String { base.location }
    func snapshot(feed: String) async throws -> FeedSnapshot { try await base.snapshot(feed: feed) }
    func record(feed: String) async throws -> FeedRecord? { try await base.record(feed: feed) }
    func records() async throws -> [FeedRecord] { try await base.records() }
    func feedNames() async throws -> [String] { try await base.feedNames() }
    func items(of feed: String, group: String?, since: Date?, limit: Int?) async throws -> [Item] {
        try await base.items(of: feed, group: group, since: since, limit: limit)
    }
    func groups(feed: String) async throws -> [ItemGroup] { try await base.groups(feed: feed) }
    func commit(_ commit: PollCommit, feed: String) async throws -> CommitStatistics {
        try await base.commit(commit, feed: feed)
    }
    func outbox(refused: Bool) async throws -> [OutboxEntry] { counted(try await base.outbox(refused: refused)) }
    func nextNotification(of notifier: String) async throws -> OutboxEntry? {
        counted(try await base.nextNotification(of: notifier).map { [$0] } ?? []).first
    }
    func pendingCount(of notifier: String) async throws -> Int { try await base.pendingCount(of: notifier) }
    func dropNotifications(beyond bounds: [String: OutboxBounds], now: Date) async throws -> [DroppedNotification] {
        try await base.dropNotifications(beyond: bounds, now: now)
    }
    func delivered(_ id: String, notifier: String, at time: Date) async throws {
        try await base.delivered(id, notifier: notifier, at: time)
    }
    func failed(
        _ id: String, notifier: String, error: String, at time: Date, nextAttempt: Date?, refused: Bool
    ) async throws {
        try await base.failed(
            id, notifier: notifier, error: error, at: time, nextAttempt: nextAttempt, refused: refused)
    }
    func dropExpiredNotifications(now: Date) async throws -> Int { try await base.dropExpiredNotifications(now: now) }
    func notifierStatuses() async throws -> [NotifierStatus] { try await base.notifierStatuses() }
}

/// A receiver that is down (a stub of the protocol): every delivery fails, to be tried again.
private struct DownNotifier: Notifier {
    static let type = "down"
    static let summary = "Always down"
    static let options: [any OptionDeclaration] = []

    init() {}
    init(name: String, options: FeedOptions, context: NotifierContext) {}

    var target: String { "nowhere" }

    func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        throw DeliveryError.retry("HTTP 503")
    }
}

@Suite("The delivery reads each notifier's head, never the whole outbox", .timeLimit(.minutes(2)))
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
            store: store, notifiers: ["chat": DownNotifier()], clock: clock.pollClock,
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
