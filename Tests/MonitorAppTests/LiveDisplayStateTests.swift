import Foundation
import MonitorOptions
import MonitorText
import Synchronization
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("The lines monitor run prints when its state cannot be reached, and when it answers again")
struct LiveDisplayStateTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC
    let error = StateError.unreachable("cannot connect to postgres://monitor@db:5432/feeds: connection refused")

    /// What a display without a terminal prints for the events, each at its time.
    private func printed(_ format: OutputFormat) -> [String] {
        let lines = Mutex<[String]>([])
        let feed = FeedConfig(
            name: "rx", type: "github", options: FeedOptions())
        let display = LiveDisplay(
            format: format, terminal: false, feeds: [feed], sources: [:],
            output: { text in lines.withLock { $0.append(text) } }, now: now)
        for (seconds, event) in [
            (10.0, PollEvent.state(unreachable: error)), (20, .state(unreachable: error)),
            (30, .state(unreachable: nil)),
            (40, .state(unreachable: nil)),
        ] {
            display.show(event, now: now.addingTimeInterval(seconds))
        }
        return lines.withLock { $0 }
    }

    @Test("text: one line when it cannot be reached, one when it answers again, nothing in between")
    func text() {
        #expect(
            printed(.text) == [
                "08:00:10 state unreachable: cannot connect to postgres://monitor@db:5432/feeds: connection refused\n",
                "08:00:30 state reachable again\n",
            ])
    }

    @Test("JSON lines: one object for each change, its first key `state`")
    func json() {
        #expect(
            printed(.json) == [
                #"{"state":"unreachable","error":"cannot connect to postgres://monitor@db:5432/feeds: connection refused"}"#
                    + "\n",
                #"{"state":"reachable"}"# + "\n",
            ])
    }
}
