import Foundation
import Logging
import MonitorItems
import MonitorOptions
import MonitorSQLite
import Synchronization
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore

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
        let store = try SQLiteStateStore(directory: directory.url)
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
            environment: [:])
        let export = MetricsExport()
        let clock = ManualClock(start: now)
        let delivery = NotificationDelivery(
            store: store, notifiers: ["chat": ScriptedNotifier(name: "chat", options: FeedOptions(), context: context)],
            clock: clock, logger: Logger(label: "test"), metrics: export.metrics)

        // The first attempt fails: both stay pending (the second waits behind the first), one failure counted.
        let first = await delivery.deliverDue(all: true)
        #expect(first.map(\.notification.id) == ["a"])
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

    @Test("drops counted by notifier: one by a poll's commit (reported as an event), one by a round of the delivery")
    func dropped() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStateStore(directory: directory.url)
        let export = MetricsExport()
        let answer = Watched("2")
        var runner = PollRunner(
            store: store, transport: StubTransport { _ in HTTPResponse(status: 200, body: Array(answer.value.utf8)) },
            settings: Settings(), logger: Logger(label: "test"))
        runner.metrics = export.metrics
        var options = FeedOptions()
        options.set("on", .list(["new"]))
        options.set("max_pending", .integer(1))
        runner.outbox = NotificationOutbox(
            notifiers: [
                NotifierConfig(name: "chat", type: "scripted", options: options)
            ])
        let feed = PollHarness.feed(ScriptedSource.self, options: ["urls": .list(["http://x/a"])])
        let poll = { () async -> [NotificationDelivery.Attempt] in
            let (events, continuation) = AsyncStream<PollEvent>.makeStream()
            _ = await runner.poll(feed, source: ScriptedSource(options: feed.options), events: continuation)
            continuation.finish()
            var attempts: [NotificationDelivery.Attempt] = []
            for await event in events {
                if case .delivery(let attempt) = event { attempts.append(attempt) }
            }
            return attempts
        }
        #expect(await poll().isEmpty)
        answer.update { $0 = "3" }
        #expect(await poll().isEmpty)
        let first = try #require(try await store.outbox().first?.notification)
        answer.update { $0 = "4" }
        #expect(
            await poll() == [
                NotificationDelivery.Attempt(
                    notification: first, result: .dropped("more than 1 notification waited for chat (max_pending)"))
            ])
        var metrics = try PrometheusText(String(decoding: export.text(), as: UTF8.self))
        #expect(
            metrics.samples("monitor_notifications_dropped_total") == [
                .init("monitor_notifications_dropped_total", ["notifier": "chat"], 1)
            ])

        // The delivery's round under an age of a minute, an hour later: the one left goes, heard and counted.
        let context = NotifierContext(
            transport: StubTransport { _ in HTTPResponse(status: 200) }, timeout: .seconds(1), maxBody: 1,
            environment: [:])
        let clock = ManualClock(start: Date().addingTimeInterval(3600))
        let heard = Mutex<[NotificationDelivery.Attempt]>([])
        let delivery = NotificationDelivery(
            store: store, notifiers: ["chat": ScriptedNotifier(name: "chat", options: FeedOptions(), context: context)],
            bounds: ["chat": OutboxBounds(count: 10, age: .seconds(60))], clock: clock,
            logger: Logger(label: "test"), observer: { attempt in heard.withLock { $0.append(attempt) } },
            metrics: export.metrics)
        let round = await delivery.deliverDue(all: true)
        #expect(round.map(\.result) == [.dropped("not delivered within 1m (max_age)")])
        #expect(heard.withLock { $0 } == round)
        #expect(try await store.outbox().isEmpty)
        metrics = try PrometheusText(String(decoding: export.text(), as: UTF8.self))
        #expect(metrics.samples.filter { $0.name.hasPrefix("monitor_notifications") }.count == 2)
        #expect(metrics.value("monitor_notifications_dropped_total", ["notifier": "chat"]) == 2)
        #expect(metrics.value("monitor_notifications_pending", ["notifier": "chat"]) == 0)
    }
}
