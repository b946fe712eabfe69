import Foundation
import MonitorItems
import MonitorOptions
import MonitorText
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("The live state of monitor run: failures, recoveries and staleness as a pure state machine")
struct LiveStateTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC

    private func feed(_ name: String, type: String, staleAfter: Duration? = nil) -> FeedConfig {
        var options = FeedOptions()
        if let staleAfter { options.set("expect_update_within", .duration(staleAfter)) }
        return FeedConfig(name: name, type: type, options: options)
    }

    private func report(
        _ feed: String, _ status: PollReport.Status, at seconds: TimeInterval, items: Int = 0, new: [String] = [],
        error: String? = nil, failures: Int = 0, firstSync: Bool = false
    ) -> PollReport {
        let date = start.addingTimeInterval(seconds)
        let newItems = new.enumerated().map { index, title in
            Item(id: "\(feed)-\(index)", title: title, date: date, groups: ["PushEvent"])
        }
        var report = PollReport(
            feed: feed, type: feed == "planet" ? "eonet" : "github", status: status, error: error, requests: 1,
            items: items, new: new.count,
            groups: new.isEmpty ? [] : [.init(id: "PushEvent", title: "PushEvent", count: items, new: new.count)],
            latest: newItems, newIDs: Set(newItems.map(\.id)), started: date, duration: .milliseconds(250))
        report.failures = failures
        report.newItems = newItems
        report.isFirstSync = firstSync
        // As the record says after such a poll.
        if !new.isEmpty { report.lastNew = date }
        return report
    }

    /// Applies each event at its time and writes down what was logged and then the whole panel.
    private func transcript(_ steps: [(TimeInterval, PollEvent)], quiet: Bool = true) -> String {
        var state = LiveState(
            feeds: [feed("planet", type: "eonet", staleAfter: .seconds(3600)), feed("rx", type: "github")],
            sources: [:], now: start)
        var text = ""
        for (seconds, event) in steps {
            let now = start.addingTimeInterval(seconds)
            let output = state.apply(event, now: now, quiet: quiet)
            text += "-- +\(Int(seconds))s\(output.redrawNow ? " (redraw)" : "")\n"
            text += output.log.map { "log: \($0)\n" }.joined()
            text += LiveView.render(
                state.lines, focus: state.focus.flatMap { state.panel(of: $0, now: now, width: 80) }, width: 80,
                state: state.stateLine)
        }
        return text
    }

    @Test("a poll in progress shows its groups: counts in, … pending, failed; then its summary")
    func pollingPanel() {
        // The fold of a poll two requests in: Wildfires answered, Sea and Lake Ice pending, Severe Storms failed
        // (its 5 stored events are kept, so 17 items so far: 12 new and 5 carried).
        let catalog = [
            ItemGroup(id: "fires", title: "Wildfires"), ItemGroup(id: "ice", title: "Sea and Lake Ice"),
            ItemGroup(id: "storms", title: "Severe Storms"),
        ]
        // Stored before the poll: 3 events of Sea and Lake Ice and 5 of Severe Storms.
        let stored = FeedSnapshot(
            items: (1...3).map { Item(id: "ice-\($0)", title: "Ice \($0)", date: start, groups: ["ice"]) }
                + (1...5).map { Item(id: "storm-\($0)", title: "Storm \($0)", date: start, groups: ["storms"]) },
            groups: catalog)
        var tally = PollTally(stored: stored, retention: .replace)
        tally.apply(.groups(catalog))
        tally.apply(.progress(done: 2, total: 4))
        tally.apply(
            .items((1...12).map { Item(id: "fire-\($0)", title: "Fire \($0)", date: start, groups: ["fires"]) }))
        tally.apply(.completed(groups: ["fires"]))
        tally.apply(.failure(SubRequestFailure(what: "category 'storms'", message: "HTTP 500", group: "storms")))
        let view = FeedView(feed: "planet", tally: tally)
        let text = transcript([
            (0, .scheduled(feed: "planet", next: start.addingTimeInterval(2), skipped: 0)),
            (2, .polling(feed: "planet")),
            (3, .view(view)),
            (4, .finished(report("planet", .partial, at: 4, items: 12, error: "category 'storms': HTTP 500"))),
        ])
        #expect(
            text == """
                -- +0s (redraw)
                  planet  waiting                     0 items                 next 08:00:02
                  rx      waiting                     0 items
                -- +2s
                  planet  polling…                    0 items
                  rx      waiting                     0 items
                -- +3s
                  planet  polling [#####-----] 2/4    17 items
                  rx      waiting                     0 items

                planet: polling 2/4 requests, 17 items so far
                  Wildfires             12  +12 new
                  Sea and Lake Ice       …
                  Severe Storms     failed
                -- +4s (redraw)
                log: 08:00:04 planet: partial: category 'storms': HTTP 500
                  planet  partial                     12 items                next 08:00:02
                  rx      waiting                     0 items

                planet (eonet): partial — 12 items, 0 new, 1 request, 250ms
                  error: category 'storms': HTTP 500

                """)
    }

    @Test("without a panel (JSON lines, no terminal) no view or summary is kept; lines and log are the same")
    func withoutPanels() {
        let feeds = [feed("planet", type: "eonet"), feed("rx", type: "github")]
        var shown = LiveState(feeds: feeds, sources: [:], now: start)
        var unshown = LiveState(feeds: feeds, sources: [:], now: start, panels: false)
        let view = FeedView(feed: "rx", tally: PollTally(stored: FeedSnapshot(), retention: .replace))
        let events: [(TimeInterval, PollEvent)] = [
            (0, .scheduled(feed: "rx", next: start, skipped: 0)), (0, .polling(feed: "rx")), (1, .view(view)),
            (2, .finished(report("rx", .ok, at: 2, items: 3, new: ["Push 1", "Push 2"]))),
            (3, .polling(feed: "planet")), (4, .finished(report("planet", .failed, at: 4, error: "HTTP 500"))),
        ]
        for (seconds, event) in events {
            let now = start.addingTimeInterval(seconds)
            #expect(shown.apply(event, now: now, quiet: false) == unshown.apply(event, now: now, quiet: false))
            if case .view = event {
                #expect(shown.views.keys.sorted() == ["rx"])
                #expect(unshown.views.isEmpty)
            }
        }
        #expect(shown.lines == unshown.lines)
        #expect(shown.focus == "rx" && unshown.focus == "rx")
        #expect(shown.summaries.keys.sorted() == ["rx"])
        #expect(unshown.summaries.isEmpty && unshown.views.isEmpty)
        #expect(
            shown.panel(of: "rx", now: start, width: 80) != nil && unshown.panel(of: "rx", now: start, width: 80) == nil
        )
    }

    @Test("a failure is logged once, not at every failed poll; the recovery is logged with the new items")
    func failureAndRecovery() {
        let text = transcript([
            (10, .finished(report("rx", .ok, at: 10, items: 3, new: ["a", "b", "c"], firstSync: true))),
            (20, .finished(report("rx", .failed, at: 20, error: "HTTP 500 from 127.0.0.1", failures: 1))),
            (30, .finished(report("rx", .failed, at: 30, error: "HTTP 500 from 127.0.0.1", failures: 2))),
            (40, .finished(report("rx", .ok, at: 40, items: 4, new: ["fix \u{1B}[2Jthe build"]))),
            (50, .finished(report("rx", .notModified, at: 50, items: 4))),
        ])
        #expect(
            text == """
                -- +10s (redraw)
                log: 08:00:10 rx: first sync, 3 items
                  planet  waiting                     0 items
                  rx      ok                          3 items      +3 new

                rx (github): ok — 3 items, 3 new, 1 request, 250ms
                  group      items  new
                  PushEvent      3   +3
                  latest (UTC):
                  *        08:00  a
                  *        08:00  b
                  *        08:00  c
                -- +20s (redraw)
                log: 08:00:20 rx: failed: HTTP 500 from 127.0.0.1
                  planet  waiting                     0 items
                  rx      failed                      0 items

                rx (github): failing since 08:00:20, 1 poll
                  HTTP 500 from 127.0.0.1
                -- +30s (redraw)
                  planet  waiting                     0 items
                  rx      failed (2×)                 0 items

                rx (github): failing since 08:00:20, 2 polls in a row
                  HTTP 500 from 127.0.0.1
                -- +40s (redraw)
                log: 08:00:40 rx: recovered (ok)
                log: 08:00:40 rx + fix the build
                  planet  waiting                     0 items
                  rx      ok                          4 items      +1 new

                rx (github): ok — 4 items, 1 new, 1 request, 250ms
                  group      items  new
                  PushEvent      4   +1
                  latest (UTC):
                  *        08:00  fix the build
                -- +50s (redraw)
                  planet  waiting                     0 items
                  rx      not modified                4 items

                rx (github): not modified — 4 items, 0 new, 1 request, 250ms

                """)
    }

    @Test("a poll that may have missed events is marked `, gap` and logged, until a poll that misses none")
    func gap() {
        var missed = report("rx", .ok, at: 60, items: 300, new: ["Push 1"])
        missed.gap = PollGap(since: start.addingTimeInterval(-86_400), until: start.addingTimeInterval(-3_600))
        let text = transcript(
            [
                (60, .finished(missed)),
                (120, .finished(report("rx", .notModified, at: 120, items: 300))),
            ], quiet: false)
        #expect(
            text == """
                -- +60s (redraw)
                log: 08:01:00 rx: ok, 300 items, 1 new
                log: 08:01:00 rx: older events may be missing: 2027-01-14T08:00:00Z to 2027-01-15T07:00:00Z (23h)
                log: 08:01:00 rx + Push 1
                  planet  waiting                     0 items
                  rx      ok, gap                     300 items    +1 new

                rx (github): ok — 300 items, 1 new, 1 request, 250ms
                  older events may be missing: 2027-01-14T08:00:00Z to 2027-01-15T07:00:00Z (23…
                  group      items  new
                  PushEvent    300   +1
                  latest (UTC):
                  *        08:01  Push 1
                -- +120s (redraw)
                log: 08:02:00 rx: not modified, 300 items, 0 new
                  planet  waiting                     0 items
                  rx      not modified                300 items

                rx (github): not modified — 300 items, 0 new, 1 request, 250ms

                """)
    }

    @Test("a feed failing before the run that succeeds at its first poll is logged as recovered, as it is notified")
    func recoveredAfterRestart() {
        var state = LiveState(feeds: [feed("rx", type: "github")], sources: [:], now: start)
        var ok = report("rx", .ok, at: 5, items: 3)
        ok.failedBefore = true
        #expect(state.apply(.finished(ok), now: start + 6, quiet: true).log == ["08:00:06 rx: recovered (ok)"])
        // Failing before and still failing: said once, as a failure this run sees.
        var other = LiveState(feeds: [feed("rx", type: "github")], sources: [:], now: start)
        var failed = report("rx", .failed, at: 5, error: "HTTP 500", failures: 4)
        failed.failedBefore = true
        #expect(other.apply(.finished(failed), now: start + 6, quiet: true).log == ["08:00:06 rx: failed: HTTP 500"])
    }

    @Test("a feed a reload adds is stale only expect_update_within after the reload, as /healthz counts it")
    func staleAfterReload() {
        var state = LiveState(feeds: [feed("planet", type: "eonet")], sources: [:], now: start)
        let reload = start.addingTimeInterval(7200)
        state.setFeeds(
            [feed("planet", type: "eonet"), feed("moon", type: "eonet", staleAfter: .seconds(3600))], sources: [:],
            now: reload)
        _ = state.apply(.finished(report("moon", .ok, at: 7260, items: 5)), now: reload + 60, quiet: true)
        #expect(state.lines.map(\.stale) == [false, false])
        _ = state.apply(.finished(report("moon", .ok, at: 10_900, items: 5)), now: reload + 3700, quiet: true)
        #expect(state.lines.map(\.stale) == [false, true])
    }

    @Test("a feed with no new item for longer than expect_update_within is stale until one comes; a removed feed goes")
    func staleness() {
        let text = transcript(
            [
                (1800, .finished(report("planet", .notModified, at: 1800, items: 5))),
                (3700, .finished(report("planet", .ok, at: 3700, items: 5))),
                (3800, .finished(report("planet", .ok, at: 3800, items: 6, new: ["Fire 7"]))),
                (3900, .stopped(feed: "rx")),
                (3950, .notice("feeds.yaml reloaded: stopped rx")),
            ], quiet: false)
        #expect(
            text == """
                -- +1800s (redraw)
                log: 08:30:00 planet: not modified, 5 items, 0 new
                  planet  not modified                5 items
                  rx      waiting                     0 items

                planet (eonet): not modified — 5 items, 0 new, 1 request, 250ms
                -- +3700s (redraw)
                log: 09:01:40 planet: ok, 5 items, 0 new
                  planet  stale                       5 items
                  rx      waiting                     0 items

                planet (eonet): ok — 5 items, 0 new, 1 request, 250ms
                -- +3800s (redraw)
                log: 09:03:20 planet: ok, 6 items, 1 new
                log: 09:03:20 planet + Fire 7
                  planet  ok                          6 items      +1 new
                  rx      waiting                     0 items

                planet (eonet): ok — 6 items, 1 new, 1 request, 250ms
                  group      items  new
                  PushEvent      6   +1
                  latest (UTC):
                  *        09:03  Fire 7
                -- +3900s (redraw)
                log: 09:05:00 rx: removed from the feeds file; stopped
                  planet  ok                          6 items      +1 new

                planet (eonet): ok — 6 items, 1 new, 1 request, 250ms
                  group      items  new
                  PushEvent      6   +1
                  latest (UTC):
                  *        09:03  Fire 7
                -- +3950s (redraw)
                log: feeds.yaml reloaded: stopped rx
                  planet  ok                          6 items      +1 new

                planet (eonet): ok — 6 items, 1 new, 1 request, 250ms
                  group      items  new
                  PushEvent      6   +1
                  latest (UTC):
                  *        09:03  Fire 7

                """)
    }

    @Test("a failure is logged once when each poll starts with its `polling` event too, and its recovery once")
    func failureOnceBetweenPolls() {
        var state = LiveState(feeds: [feed("rx", type: "github")], sources: [:], now: start)
        var logged: [String] = []
        for (seconds, event) in [
            (10.0, PollEvent.polling(feed: "rx")),
            (10, .finished(report("rx", .failed, at: 10, error: "HTTP 500 from 127.0.0.1", failures: 1))),
            (20, .polling(feed: "rx")), (20, .finished(report("rx", .failed, at: 20, error: "HTTP 500", failures: 2))),
            (30, .polling(feed: "rx")), (30, .finished(report("rx", .failed, at: 30, error: "HTTP 500", failures: 3))),
            (40, .polling(feed: "rx")), (40, .finished(report("rx", .ok, at: 40, items: 4))),
            (50, .polling(feed: "rx")), (50, .finished(report("rx", .ok, at: 50, items: 4))),
        ] {
            logged += state.apply(event, now: start.addingTimeInterval(seconds), quiet: true).log
        }
        #expect(logged == ["08:00:10 rx: failed: HTTP 500 from 127.0.0.1", "08:00:40 rx: recovered (ok)"])
    }

    @Test(
        "a state that cannot be reached: logged once, shown above the feeds until it answers, not a failure of the feed"
    )
    func unreachableState() {
        let error = StateError.unreachable("cannot connect to postgres://monitor@db:5432/feeds: connection refused")
        var unreachable = report("rx", .failed, at: 30, error: "cannot write the state: \(error)", failures: 1)
        unreachable.unreachableState = error
        let text = transcript([
            (10, .finished(report("rx", .ok, at: 10, items: 3))),
            (20, .polling(feed: "rx")),
            (30, .finished(unreachable)),
            (30, .state(unreachable: error)),
            (40, .scheduled(feed: "rx", next: start.addingTimeInterval(47.5), skipped: 0)),
            (50, .state(unreachable: nil)),
            (50, .state(unreachable: nil)),
        ])
        #expect(
            text == """
                -- +10s (redraw)
                  planet  waiting                     0 items
                  rx      ok                          3 items

                rx (github): ok — 3 items, 0 new, 1 request, 250ms
                -- +20s
                  planet  waiting                     0 items
                  rx      polling…                    3 items

                rx (github): ok — 3 items, 0 new, 1 request, 250ms
                -- +30s (redraw)
                  planet  waiting                     0 items
                  rx      ok                          3 items

                rx (github): ok — 3 items, 0 new, 1 request, 250ms
                -- +30s (redraw)
                log: 08:00:30 state unreachable: cannot connect to postgres://monitor@db:5432/feeds: connection refused
                state unreachable since 08:00:30: cannot connect to postgres://monitor@db:5432/…
                  planet  waiting                     0 items
                  rx      ok                          3 items

                rx (github): ok — 3 items, 0 new, 1 request, 250ms
                -- +40s (redraw)
                state unreachable since 08:00:30: cannot connect to postgres://monitor@db:5432/…
                  planet  waiting                     0 items
                  rx      ok                          3 items                 next 08:00:47

                rx (github): ok — 3 items, 0 new, 1 request, 250ms
                -- +50s (redraw)
                log: 08:00:50 state reachable again
                  planet  waiting                     0 items
                  rx      ok                          3 items                 next 08:00:47

                rx (github): ok — 3 items, 0 new, 1 request, 250ms
                -- +50s
                  planet  waiting                     0 items
                  rx      ok                          3 items                 next 08:00:47

                rx (github): ok — 3 items, 0 new, 1 request, 250ms

                """)
    }
}
