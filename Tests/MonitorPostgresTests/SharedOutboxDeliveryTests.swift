import Foundation
import Logging
import MonitorItems
import MonitorOptions
import MonitorPostgres
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

/// One receiver for every instance: it records each notification it is given, and holds the first one until
/// `gate` opens.
private final class HeldReceiver: Notifier {
    static let type = "held"
    static let summary = "A receiver holding its first notification"
    static let options: [any OptionDeclaration] = []
    let entered = Watched(0)
    let received = Watched<[String]>([])
    let gate = Watched(false)
    var target: String { "held" }

    init() {}

    required init(name: String, options: FeedOptions, context: NotifierContext) {}

    func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        let first = entered.update { count -> Bool in
            count += 1
            return count == 1
        }
        if first { try await gate.wait { $0 } }
        received.update { $0.append(notification.id) }
        return DeliveryReceipt("ok")
    }
}

@Suite("The PostgreSQL outbox delivered by several instances", .timeLimit(.minutes(5)))
struct SharedOutboxDeliveryTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func notification(_ id: String) -> FeedNotification {
        FeedNotification(
            id: id, notifier: "chat", feed: "rx", type: "github", event: .new, at: now, total: 1,
            items: [Item(id: "i-\(id)", title: "Item \(id)", date: now, groups: ["g"])])
    }

    @Test("while one instance delivers the oldest notification, the other claims none; each is received once")
    func oneDeliveryEach() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let first = try await PostgresStateStore.open(url)
        let second = try await PostgresStateStore.open(url)
        var record = FeedRecord(name: "rx", type: "github")
        record.lastPoll = Self.now
        let ids = ["a", "b", "c", "d", "e"]
        try await first.commit(
            PollCommit(
                record: record, items: [], firstSeen: Self.now, groups: [], validators: [:], values: [:],
                notifications: ids.map(Self.notification)),
            feed: "rx")
        let receiver = HeldReceiver()
        let logger = Logger(label: "test")
        let one = NotificationDelivery(store: first, notifiers: ["chat": receiver], logger: logger)
        let other = NotificationDelivery(store: second, notifiers: ["chat": receiver], logger: logger)
        let delivering = Task { await one.deliverDue(all: true) }
        // The first instance is delivering "a" (claimed): the other reads all five still in the outbox.
        try await receiver.entered.wait { $0 == 1 }
        #expect(try await second.outbox().map(\.notification.id) == ids)
        let otherAttempts = await other.deliverDue(all: true)
        #expect(otherAttempts.isEmpty)
        receiver.gate.update { $0 = true }
        let attempts = await delivering.value
        #expect(attempts.map(\.notification.id) == ids)
        #expect(receiver.received.value == ids)
        #expect(try await second.outbox().isEmpty)
        // Nothing left to deliver twice.
        #expect(await other.deliverDue(all: true).isEmpty)
        #expect(receiver.received.value == ids)
    }

    @Test("a claim held by an instance that died is taken over once it expires")
    func expiredClaim() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let store = try await PostgresStateStore.open(url)
        var record = FeedRecord(name: "rx", type: "github")
        record.lastPoll = Self.now
        try await store.commit(
            PollCommit(
                record: record, items: [], firstSeen: Self.now, groups: [], validators: [:], values: [:],
                notifications: [Self.notification("a")]),
            feed: "rx")
        #expect(try await store.claimNotification("a", owner: "dead", lease: .seconds(60), now: Self.now))
        let at = Self.now.addingTimeInterval(59)
        #expect(try await !store.claimNotification("a", owner: "alive", lease: .seconds(60), now: at))
        let later = Self.now.addingTimeInterval(60)
        #expect(try await store.claimNotification("a", owner: "alive", lease: .seconds(60), now: later))
        try await store.delivered(["a"], notifier: "chat", at: later)
        #expect(try await !store.claimNotification("a", owner: "alive", lease: .seconds(60), now: later))
    }
}
