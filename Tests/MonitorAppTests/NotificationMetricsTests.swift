import Foundation
import Logging
import MonitorCore
import Synchronization
import TestSupport
import Testing

@testable import MonitorApp

/// A notifier (a stub of the protocol) whose receiver answers from a script: each call takes the next answer.
private struct ScriptedNotifier: Notifier {
    static let type = "scripted"
    static let summary = "answers from a script"
    static let options: [any OptionDeclaration] = []
    static let answers = Mutex<[String: [Bool]]>([:])

    let name: String
    var target: String { "script" }

    init(name: String, options: FeedOptions, context: NotifierContext) {
        self.name = name
    }

    func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        let delivered = Self.answers.withLock { answers in
            answers[name]?.isEmpty == false ? answers[name]!.removeFirst() : true
        }
        guard delivered else { throw DeliveryError.retry("HTTP 503 Service Unavailable") }
        return DeliveryReceipt("HTTP 200")
    }
}

@Suite("metrics of the notifications: pending by notifier, failed deliveries counted")
struct NotificationMetricsTests {
    @Test("two notifications to a receiver failing once: pending 2, then 2 (1 failure), then 0")
    func pendingAndFailed() async throws {
        let directory = try TemporaryDirectory()
        let store = try StateStore(directory: directory.url)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var record = FeedRecord(name: "rx", type: "github")
        record.lastPoll = now
        let notifications = ["a", "b"].map { id in
            FeedNotification(
                id: id, notifier: "chat", feed: "rx", type: "github", event: .new, at: now, total: 1,
                items: [Item(id: "i-\(id)", title: "Item \(id)", date: now, groups: ["g"])])
        }
        try await store.commit(
            PollCommit(
                record: record, items: [], firstSeen: now, groups: [], validators: [:], values: [:],
                notifications: notifications),
            feed: "rx")
        ScriptedNotifier.answers.withLock { $0["chat"] = [false, true, true] }
        let context = NotifierContext(
            transport: StubTransport { _ in HTTPResponse(status: 200) }, timeout: .seconds(1), maxBody: 1,
            environment: [:], logger: Logger(label: "test"))
        let export = MetricsExport()
        let clock = ManualClock(start: now)
        let delivery = NotificationDelivery(
            store: store, notifiers: ["chat": ScriptedNotifier(name: "chat", options: FeedOptions(), context: context)],
            clock: clock.pollClock, logger: Logger(label: "test"), metrics: export.metrics)

        // The first attempt fails: both stay pending (the second waits behind the first), one failure counted.
        let first = await delivery.deliverDue(all: true)
        #expect(first.map(\.notification.id) == ["a", "b"])
        var metrics = try PrometheusText(String(decoding: export.text(), as: UTF8.self))
        #expect(
            Set(metrics.samples) == [
                .init("monitor_notifications_pending", ["notifier": "chat"], 2),
                .init("monitor_notifications_failed_total", ["notifier": "chat"], 1),
            ])

        // The next attempt delivers both.
        let second = await delivery.deliverDue(all: true)
        #expect(second.count == 2)
        #expect(try await store.outbox().isEmpty)
        metrics = try PrometheusText(String(decoding: export.text(), as: UTF8.self))
        #expect(
            Set(metrics.samples) == [
                .init("monitor_notifications_pending", ["notifier": "chat"], 0),
                .init("monitor_notifications_failed_total", ["notifier": "chat"], 1),
            ])
    }
}
