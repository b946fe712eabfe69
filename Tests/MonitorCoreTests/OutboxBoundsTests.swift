import Foundation
import MonitorItems
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

@Suite("Each notifier's outbox bounded by a count and an age, in SQLite and in PostgreSQL")
struct OutboxBoundsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let chatBounds = OutboxBounds(count: 2, age: .seconds(86_400))
    static let countReason = "more than 2 notifications waited for chat (max_pending)"
    static let ageReason = "not delivered within 1d (max_age)"

    static func notification(_ id: String, notifier: String = "chat", at: Date = now) -> FeedNotification {
        FeedNotification(
            id: id, notifier: notifier, feed: "rx", type: "github", event: .new, at: at, total: 1,
            items: [Item(id: "i-\(id)", title: "Item \(id)", date: at, groups: ["g"], url: "https://x/\(id)")])
    }

    /// A poll's commit at `at` writing `notifications`, with the bounds of `chat` (`script` has none).
    static func commit(
        _ notifications: [FeedNotification], at: Date = now, bounds: OutboxBounds = chatBounds
    ) -> PollCommit {
        var record = FeedRecord(name: "rx", type: "github")
        record.lastPoll = at
        return PollCommit(
            record: record, items: [], firstSeen: at, groups: [], validators: [:], values: [:],
            notifications: notifications, bounds: ["chat": bounds])
    }

    static func dropped(_ ids: [String], reason: String, at: Date = now) -> [DroppedNotification] {
        ids.map { DroppedNotification(notification: notification($0, at: at), reason: reason) }
    }

    @Test(
        "a commit beyond max_pending drops that notifier's oldest in its transaction, each reported and counted",
        arguments: StateBackend.allCases)
    func count(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        // Within the bound: nothing dropped. `script` has no bounds: it keeps everything.
        let first = try await store.commit(
            Self.commit([Self.notification("a"), Self.notification("b"), Self.notification("s1", notifier: "script")]),
            feed: "rx")
        #expect(first.dropped == [])
        // One beyond: the oldest goes.
        let second = try await store.commit(Self.commit([Self.notification("c")]), feed: "rx")
        #expect(second.dropped == Self.dropped(["a"], reason: Self.countReason))
        // Three more at once: the two oldest that were there, then the oldest new one.
        let third = try await store.commit(
            Self.commit([Self.notification("d"), Self.notification("e"), Self.notification("f")]), feed: "rx")
        #expect(third.dropped == Self.dropped(["b", "c", "d"], reason: Self.countReason))
        #expect(try await store.outbox().map(\.notification.id) == ["s1", "e", "f"])
        #expect(try await store.pendingCount(of: "chat") == 2)
        #expect(try await store.pendingCount(of: "script") == 1)
        #expect(try await store.nextNotification(of: "chat")?.notification == Self.notification("e"))
        #expect(try await store.nextNotification(of: "script")?.notification.id == "s1")
        #expect(try await store.nextNotification(of: "nobody") == nil)
        let statuses = try await store.notifierStatuses()
        #expect(statuses.map(\.name) == ["chat", "script"])
        #expect(statuses.map(\.dropped) == [4, 0])
        #expect(statuses.map(\.pending) == [2, 1])
    }

    @Test(
        "a commit drops what is older than max_age, oldest first; a refused notification is neither counted nor dropped",
        arguments: StateBackend.allCases)
    func age(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let bounds = OutboxBounds(count: 10, age: .seconds(86_400))
        let hour = Self.now.addingTimeInterval(3600)
        try await store.commit(
            Self.commit([Self.notification("a"), Self.notification("r")], bounds: bounds), feed: "rx")
        try await store.failed(
            ["r"], notifier: "chat", error: "HTTP 404", at: Self.now, nextAttempt: nil, refused: true)
        try await store.commit(Self.commit([Self.notification("b", at: hour)], at: hour, bounds: bounds), feed: "rx")
        // A day after `a` was written: `a` is not older than the age yet.
        let day = Self.now.addingTimeInterval(86_400)
        let within = try await store.commit(
            Self.commit([Self.notification("c", at: day)], at: day, bounds: bounds), feed: "rx")
        #expect(within.dropped == [])
        // A day and a second after: `a` is; `b` (an hour younger) is not.
        let later = day.addingTimeInterval(1)
        let aged = try await store.commit(
            Self.commit([Self.notification("d", at: later)], at: later, bounds: bounds), feed: "rx")
        #expect(aged.dropped == Self.dropped(["a"], reason: Self.ageReason))
        #expect(try await store.outbox().map(\.notification.id) == ["b", "c", "d"])
        #expect(try await store.outbox(refused: true).map(\.notification.id) == ["r", "b", "c", "d"])
        #expect(try await store.pendingCount(of: "chat") == 3)
        let chat = try #require(try await store.notifierStatuses().first)
        #expect(chat.dropped == 1)
        #expect(chat.refused == 1)
    }

    @Test(
        "without a commit: the age and a lowered count drop at delivery time, old and new reasons apart",
        arguments: StateBackend.allCases)
    func delivery(backend: StateBackend) async throws {
        let state = try await backend.makeState()
        let store = try await state.open()
        let loose = OutboxBounds(count: 100, age: .seconds(7 * 86_400))
        let hour = Self.now.addingTimeInterval(3600)
        try await store.commit(
            Self.commit([Self.notification("a"), Self.notification("b")], bounds: loose), feed: "rx")
        try await store.commit(
            Self.commit(
                [Self.notification("c", at: hour), Self.notification("d", at: hour), Self.notification("e", at: hour)],
                at: hour, bounds: loose),
            feed: "rx")
        #expect(try await store.dropNotifications(beyond: ["chat": loose], now: hour) == [])
        #expect(try await store.dropNotifications(beyond: [:], now: hour.addingTimeInterval(86_400 * 365)) == [])
        // Two hours later, bounds of 1 hour and 2 notifications: `a` and `b` are too old, `c` one too many.
        let tight = OutboxBounds(count: 2, age: .seconds(3600))
        let dropped = try await store.dropNotifications(
            beyond: ["chat": tight, "script": tight], now: Self.now.addingTimeInterval(7200))
        #expect(
            dropped
                == Self.dropped(["a", "b"], reason: "not delivered within 1h (max_age)")
                + [DroppedNotification(notification: Self.notification("c", at: hour), reason: Self.countReason)])
        #expect(try await store.outbox().map(\.notification.id) == ["d", "e"])
        #expect(try await store.notifierStatuses().map(\.dropped) == [3])
        // Read by another process: the same.
        let other = try await state.open()
        #expect(try await other.nextNotification(of: "chat")?.notification.id == "d")
    }
}
