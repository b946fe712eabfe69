import Foundation
import Logging
import MonitorOptions
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

@Suite("A poll writes its notifications to the outbox in its own commit (PollRunner with an outbox)")
struct PollNotificationsTests {
    @Test(
        "first sync none; 3 new items one `new` with those 3; failing once `failed`; recovering once `recovered`",
        arguments: StateBackend.allCases)
    func sequence(backend: StateBackend) async throws {
        let harness = try await PollHarness.make(backend)
        let answer = Watched(HTTPResponse(status: 200, body: Array("2".utf8)))
        let transport = StubTransport { _ in answer.value }
        var runner = PollRunner(
            store: harness.store, transport: transport, settings: harness.settings, logger: Logger(label: "test"))
        runner.policy.retryBaseDelay = .milliseconds(1)
        var chat = FeedOptions()
        chat.set("on", .list(["new", "failed", "recovered"]))
        let outbox = NotificationOutbox(
            notifiers: [
                NotifierConfig(name: "chat", type: "webhook", options: chat)
            ])
        runner.outbox = outbox
        let feed = PollHarness.feed(ScriptedSource.self, options: ["urls": .list(["http://x/a"])])
        let poll = { () async -> PollReport in
            await runner.poll(feed, source: ScriptedSource(options: feed.options))
        }

        #expect(await poll().status == .ok)
        #expect(try await harness.store.outbox().isEmpty)

        answer.update { $0 = HTTPResponse(status: 200, body: Array("5".utf8)) }
        #expect(await poll().new == 3)
        var outboxed = try await harness.store.outbox().map(\.notification)
        #expect(outboxed.map(\.event) == [.new])
        #expect(outboxed.first?.items.map(\.id) == ["a-4", "a-3", "a-2"])
        #expect(outboxed.first?.total == 3)
        #expect(outboxed.first?.feed == "test")
        #expect(outboxed.first?.type == "scripted")
        // The poll's commit woke the delivery.
        await outbox.wakeup.wait()

        answer.update { $0 = HTTPResponse(status: 404) }
        #expect(await poll().status == .failed)
        #expect(await poll().status == .failed)
        answer.update { $0 = HTTPResponse(status: 200, body: Array("5".utf8)) }
        #expect(await poll().status == .ok)
        #expect(await poll().status == .ok)
        outboxed = try await harness.store.outbox().map(\.notification)
        #expect(outboxed.map(\.event) == [.new, .failed, .recovered])
        #expect(outboxed[1].error == "GET http://x/a: HTTP 404 Not Found")
        #expect(Set(outboxed.map(\.id)).count == 3)
    }
}
