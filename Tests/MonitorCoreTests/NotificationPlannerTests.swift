import Foundation
import MonitorItems
import MonitorOptions
import MonitorText
import Testing

@testable import MonitorCore

@Suite("Which notifications a poll produces (NotificationPlanner)")
struct NotificationPlannerTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func feed(staleAfter: Duration? = nil) -> FeedConfig {
        var options = FeedOptions()
        if let staleAfter { options.set("expect_update_within", .duration(staleAfter)) }
        return FeedConfig(name: "rx", type: "github", options: options)
    }

    static func notifier(_ name: String, feeds: [String]? = nil, on: [String] = ["new", "failed", "recovered"])
        -> NotifierConfig
    {
        var options = FeedOptions()
        if let feeds { options.set("feeds", .list(feeds)) }
        options.set("on", .list(on))
        return NotifierConfig(
            name: name, type: "webhook", options: options)
    }

    static func record(failures: Int = 0, lastSuccess: Date? = now, lastNew: Date? = nil, lastPoll: Date? = now)
        -> FeedRecord
    {
        var record = FeedRecord(name: "rx", type: "github")
        record.failures = failures
        record.lastSuccess = lastSuccess
        record.lastNew = lastNew
        record.lastPoll = lastPoll
        return record
    }

    static func report(
        _ status: PollReport.Status, new ids: [String] = [], firstSync: Bool = false, error: String? = nil
    )
        -> PollReport
    {
        var report = PollReport(feed: "rx", type: "github", status: status, error: error, started: now)
        report.newItems = ids.enumerated().map { index, id in
            Item(id: id, title: "Event \(id)", date: now.addingTimeInterval(-Double(index) * 60), groups: ["g"])
        }
        report.isFirstSync = firstSync
        return report
    }

    /// Ids made in order: n1, n2, …
    static func ids() -> () -> String {
        var next = 0
        return {
            next += 1
            return "n\(next)"
        }
    }

    @Test("a first sync notifies nothing, however many items it found")
    func firstSync() {
        let notifications = NotificationPlanner.notifications(
            of: Self.report(.ok, new: ["a", "b", "c"], firstSync: true), feed: Self.feed(), previous: nil,
            record: Self.record(lastNew: Self.now), notifiers: [Self.notifier("chat")], makeID: Self.ids())
        #expect(notifications.isEmpty)
    }

    @Test("a poll with 3 new items makes exactly one `new` notification per notifier, with those 3 items")
    func threeNew() {
        let notifications = NotificationPlanner.notifications(
            of: Self.report(.ok, new: ["a", "b", "c"]), feed: Self.feed(), previous: Self.record(),
            record: Self.record(lastNew: Self.now), notifiers: [Self.notifier("chat"), Self.notifier("script")],
            makeID: Self.ids())
        #expect(notifications.map(\.id) == ["n1", "n2"])
        #expect(notifications.map(\.notifier) == ["chat", "script"])
        #expect(notifications.map(\.event) == [.new, .new])
        #expect(notifications.map(\.total) == [3, 3])
        #expect(notifications.map { $0.items.map(\.id) } == [["a", "b", "c"], ["a", "b", "c"]])
        #expect(notifications.map(\.feed) == ["rx", "rx"])
        #expect(notifications.map(\.type) == ["github", "github"])
        #expect(notifications.map(\.at) == [Self.now, Self.now])
        #expect(notifications.map(\.error) == [nil, nil])
    }

    @Test("a poll with nothing new notifies nothing")
    func nothingNew() {
        #expect(
            NotificationPlanner.events(
                of: Self.report(.notModified), previous: Self.record(), record: Self.record(), staleAfter: nil
            ).isEmpty)
    }

    @Test("failing notifies once, when it starts; the polls that go on failing do not")
    func failedOnce() {
        let first = NotificationPlanner.notifications(
            of: Self.report(.failed, error: "HTTP 500"), feed: Self.feed(), previous: Self.record(failures: 0),
            record: Self.record(failures: 1), notifiers: [Self.notifier("chat")], makeID: Self.ids())
        #expect(first.map(\.event) == [.failed])
        #expect(first.map(\.error) == ["HTTP 500"])
        #expect(first.map(\.total) == [0])
        let second = NotificationPlanner.events(
            of: Self.report(.failed, error: "HTTP 500"), previous: Self.record(failures: 1),
            record: Self.record(failures: 2), staleAfter: nil)
        #expect(second.isEmpty)
    }

    @Test("recovering notifies once; with new items it notifies both")
    func recoveredOnce() {
        #expect(
            NotificationPlanner.events(
                of: Self.report(.ok), previous: Self.record(failures: 3), record: Self.record(), staleAfter: nil)
                == [.recovered])
        #expect(
            NotificationPlanner.events(
                of: Self.report(.partial, new: ["x"]), previous: Self.record(failures: 1), record: Self.record(),
                staleAfter: nil) == [.recovered, .new])
        #expect(
            NotificationPlanner.events(
                of: Self.report(.ok), previous: Self.record(failures: 0), record: Self.record(), staleAfter: nil
            )
            .isEmpty)
    }

    @Test("`stale` is sent once when the feed becomes stale, and only to notifiers that ask for it")
    func stale() {
        let limit = Duration.seconds(3600)
        let lastNew = Self.now.addingTimeInterval(-3700)
        let previous = Self.record(lastNew: lastNew, lastPoll: Self.now.addingTimeInterval(-600))
        let notifications = NotificationPlanner.notifications(
            of: Self.report(.notModified), feed: Self.feed(staleAfter: limit), previous: previous,
            record: Self.record(lastNew: lastNew),
            notifiers: [Self.notifier("chat"), Self.notifier("pager", on: ["stale"])],
            makeID: Self.ids())
        #expect(notifications.map(\.notifier) == ["pager"])
        #expect(notifications.map(\.event) == [.stale])
        #expect(notifications.map(\.error) == ["no new item for more than 1h (expect_update_within)"])
        // Still stale at the next poll: not again.
        let again = NotificationPlanner.events(
            of: Self.report(.notModified), previous: Self.record(lastNew: lastNew),
            record: Self.record(lastNew: lastNew, lastPoll: Self.now.addingTimeInterval(600)), staleAfter: limit)
        #expect(again.isEmpty)
    }

    @Test("`gap` is sent at each poll that may have missed events, after `new`, only to notifiers that ask for it")
    func gap() {
        var report = Self.report(.ok, new: ["e1"])
        report.gap = PollGap(since: Self.now.addingTimeInterval(-7_200), until: Self.now.addingTimeInterval(-3_600))
        let notifications = NotificationPlanner.notifications(
            of: report, feed: Self.feed(), previous: Self.record(), record: Self.record(),
            notifiers: [Self.notifier("chat"), Self.notifier("pager", on: ["new", "gap"])], makeID: Self.ids())
        #expect(notifications.map { "\($0.notifier) \($0.event)" } == ["chat new", "pager new", "pager gap"])
        let gap = notifications.last
        #expect(gap?.id == "n3")
        #expect(gap?.gap == report.gap)
        #expect(gap?.error == "older events may be missing: 2027-01-15T06:00:00Z to 2027-01-15T07:00:00Z (1h)")
        #expect((gap?.total, gap?.items) == (0, []))
    }

    @Test("`feeds:` and `on:` filter what each notifier gets")
    func filters() {
        let notifications = NotificationPlanner.notifications(
            of: Self.report(.ok, new: ["a"]), feed: Self.feed(), previous: Self.record(failures: 2),
            record: Self.record(lastNew: Self.now),
            notifiers: [
                Self.notifier("other-feed", feeds: ["planet"]), Self.notifier("rx-only", feeds: ["rx"]),
                Self.notifier("new-only", on: ["new"]), Self.notifier("recovered-only", on: ["recovered"]),
            ], makeID: Self.ids())
        #expect(
            notifications.map { "\($0.notifier) \($0.event.rawValue)" } == [
                "rx-only recovered", "rx-only new", "new-only new", "recovered-only recovered",
            ])
    }
}
