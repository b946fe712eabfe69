import Foundation
import MonitorItems
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

@Suite("The notifications outbox in the state, in SQLite and in PostgreSQL")
struct OutboxStoreTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func notification(_ id: String, notifier: String = "chat") -> FeedNotification {
        FeedNotification(
            id: id, notifier: notifier, feed: "rx", type: "github", event: .new, at: now, total: 1,
            items: [Item(id: "i-\(id)", title: "Item \(id)", date: now, groups: ["g"], url: "https://x/\(id)")])
    }

    static func commit(_ notifications: [FeedNotification]) -> PollCommit {
        var record = FeedRecord(name: "rx", type: "github")
        record.lastPoll = now
        return PollCommit(
            record: record, items: [], firstSeen: now, groups: [], validators: [:], values: [:],
            notifications: notifications)
    }

    @Test(
        "a commit writes its notifications with the poll; they read back whole, in the order written",
        arguments: StateBackend.allCases)
    func commitWritesOutbox(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        try await store.commit(
            Self.commit([Self.notification("b"), Self.notification("a", notifier: "script")]), feed: "rx")
        try await store.commit(Self.commit([Self.notification("c")]), feed: "rx")
        let outbox = try await store.outbox()
        #expect(
            outbox.map(\.notification) == [
                Self.notification("b"), Self.notification("a", notifier: "script"), Self.notification("c"),
            ])
        #expect(outbox.map(\.attempts) == [0, 0, 0])
        #expect(outbox.map(\.nextAttempt) == [nil, nil, nil])
        // Another process opening the same state sees them too.
        let other = try await state.open()
        #expect(try await other.outbox().count == 3)
        #expect(try await other.record(feed: "rx")?.lastPoll == Self.now)
    }

    @Test(
        "delivered leaves the outbox; failed counts the attempt; refused is kept 7 days, not to deliver",
        arguments: StateBackend.allCases)
    func lifecycle(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        try await store.commit(
            Self.commit([Self.notification("a"), Self.notification("b"), Self.notification("c", notifier: "script")]),
            feed: "rx")
        let later = Self.now.addingTimeInterval(60)
        try await store.delivered(["a"], notifier: "chat", at: Self.now)
        try await store.failed(
            ["b"], notifier: "chat", error: "POST https://hooks.example/… answered HTTP 503", at: later,
            nextAttempt: later.addingTimeInterval(5), refused: false)
        try await store.failed(
            ["c"], notifier: "script", error: "'notify.sh' exited with status 1", at: later, nextAttempt: nil,
            refused: false)
        try await store.failed(
            ["c"], notifier: "script", error: "POST answered HTTP 404", at: later, nextAttempt: nil, refused: true)

        let pending = try await store.outbox()
        #expect(pending.map(\.notification.id) == ["b"])
        #expect(pending.map(\.attempts) == [1])
        #expect(pending.map(\.nextAttempt) == [later.addingTimeInterval(5)])
        #expect(pending.map(\.lastError) == ["POST https://hooks.example/… answered HTTP 503"])
        let all = try await store.outbox(refused: true)
        #expect(all.map(\.notification.id) == ["b", "c"])
        #expect(all.map(\.refusedAt) == [nil, later])
        #expect(all.map(\.attempts) == [1, 2])

        var chat = NotifierStatus(name: "chat")
        chat.pending = 1
        chat.lastDelivered = Self.now
        chat.lastError = "POST https://hooks.example/… answered HTTP 503"
        chat.lastErrorAt = later
        var script = NotifierStatus(name: "script")
        script.refused = 1
        script.lastError = "POST answered HTTP 404"
        script.lastErrorAt = later
        #expect(try await store.notifierStatuses() == [chat, script])

        #expect(try await store.dropExpiredNotifications(now: later.addingTimeInterval(7 * 86_400 - 1)) == 0)
        #expect(try await store.dropExpiredNotifications(now: later.addingTimeInterval(7 * 86_400 + 1)) == 1)
        #expect(try await store.outbox(refused: true).map(\.notification.id) == ["b"])
    }
}
