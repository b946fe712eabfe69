import Foundation
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("The live view of monitor run, rendered to a string")
struct LiveViewTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC

    @Test("one line per feed in each state, then the summary of the feed that changed last")
    func render() {
        var waiting = LiveView.FeedLine(name: "swift-top")
        waiting.next = now.addingTimeInterval(2)
        var polling = LiveView.FeedLine(name: "planet")
        polling.phase = .polling
        polling.progress = (7, 14)
        polling.items = 812
        var ok = LiveView.FeedLine(name: "rxswift")
        ok.phase = .ok
        ok.items = 50
        ok.new = 3
        ok.next = now.addingTimeInterval(900)
        var failed = LiveView.FeedLine(name: "broken")
        failed.phase = .failed
        failed.failures = 3
        failed.next = now.addingTimeInterval(240)
        var stale = LiveView.FeedLine(name: "quiet")
        stale.phase = .notModified
        stale.items = 1
        stale.stale = true
        stale.next = now.addingTimeInterval(60)
        let output = LiveView.render(
            [waiting, polling, ok, failed, stale], focus: "rxswift (github): ok\n  PushEvent  3", width: 80)
        #expect(
            output == """
                  swift-top  waiting                     0 items                 next 08:00:02
                  planet     polling [#####-----] 7/14   812 items
                  rxswift    ok                          50 items     +3 new     next 08:15:00
                  broken     failed (3×)                 0 items                 next 08:04:00
                  quiet      stale                       1 item                  next 08:01:00

                rxswift (github): ok
                  PushEvent  3

                """)
    }

    @Test("lines are cut to the terminal's width")
    func width() {
        var line = LiveView.FeedLine(name: "a-very-long-feed-name")
        line.next = now
        let output = LiveView.render([line], focus: nil, width: 30)
        #expect(output == "  a-very-long-feed-name  wait…\n")
        #expect(output.count == 31)
    }
}
