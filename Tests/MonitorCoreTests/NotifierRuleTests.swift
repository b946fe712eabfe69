import Foundation
import Testing

@testable import MonitorCore

@Suite("A notifier's where: which new items it is sent")
struct NotifierRuleTests {
    typealias Planner = NotificationPlannerTests

    static func notifier(_ name: String, where rule: String?, on: [String] = ["new", "failed", "recovered"])
        -> NotifierConfig
    {
        var notifier = Planner.notifier(name, on: on)
        if let rule { notifier.options.set("where", .string(rule)) }
        return notifier
    }

    @Test("only the new items it matches, counted in total; none matching, nothing is sent")
    func new() {
        let notifiers = [
            Self.notifier("odd", where: #"id in ["e1", "e3"]"#), Self.notifier("none", where: #"title ~ "^x""#),
            Self.notifier("all", where: nil),
        ]
        let notifications = NotificationPlanner.notifications(
            of: Planner.report(.ok, new: ["e1", "e2", "e3"]), feed: Planner.feed(), previous: Planner.record(),
            record: Planner.record(), notifiers: notifiers, makeID: Planner.ids())
        #expect(notifications.map(\.notifier) == ["odd", "all"])
        #expect(notifications.map(\.total) == [2, 3])
        #expect(notifications.map { $0.items.map(\.id) } == [["e1", "e3"], ["e1", "e2", "e3"]])
        #expect(notifications.map(\.id) == ["n1", "n2"])
    }

    @Test("failed and recovered are sent whatever the rule")
    func failedAndRecovered() {
        let notifier = Self.notifier("none", where: #"title ~ "^x""#)
        let failed = NotificationPlanner.notifications(
            of: Planner.report(.failed, error: "boom"), feed: Planner.feed(), previous: Planner.record(),
            record: Planner.record(failures: 1), notifiers: [notifier], makeID: Planner.ids())
        #expect(failed.map(\.event) == [.failed])
        let recovered = NotificationPlanner.notifications(
            of: Planner.report(.ok, new: ["e1"]), feed: Planner.feed(), previous: Planner.record(failures: 1),
            record: Planner.record(), notifiers: [notifier], makeID: Planner.ids())
        #expect(recovered.map(\.event) == [.recovered])
    }
}
