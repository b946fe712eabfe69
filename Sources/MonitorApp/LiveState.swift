import Foundation
import MonitorCore
import MonitorText

/// What `monitor run` knows of its feeds, as a pure state machine: each event changes the state and says
/// which lines to log (a failure when a feed starts failing, its recovery, new items), and the live panel is
/// rendered from the state alone.
///
/// A feed's error is logged when it starts failing and again when it recovers, not at every poll; a feed is
/// stale when it has had no new item for longer than its `expect_update_within`. A state that cannot be reached is
/// logged once when that starts and once when it ends, and shown above the feeds meanwhile, rather than blamed on
/// each feed.
package struct LiveState: Sendable {
    /// The feeds in the order of the feeds file.
    package private(set) var lines: [LiveView.FeedLine]
    /// Where each feed's line is in `lines`: an event finds its feed at once, however many feeds there are.
    private var positions: [String: Int]
    /// The live view of each feed being polled (the catalog with its running counts).
    package private(set) var views: [String: FeedView] = [:]
    /// The summary of each feed's last successful poll.
    package private(set) var summaries: [String: String] = [:]
    /// Why each failing feed fails, and since when.
    package private(set) var failures: [String: Failure] = [:]
    /// The feed that changed last (a failed poll leaves it on the feed summarised last).
    package private(set) var focus: String?
    private var summarized: String?
    /// How the feeds fare (failing, held back, stale, the state, the last reload), as `/healthz` and `STATUS=` see it.
    private var health = FeedHealth()
    /// The sources that summarise their feeds' reports, by feed.
    private var sources: [String: any FeedSource]
    /// Where each feed being polled stood before, for a poll the state's failure ends without a word of the feed.
    private var before: [String: LiveView.FeedLine.Phase] = [:]
    /// Why the state cannot be reached, and since when; nil while it answers.
    package var unreachable: (error: StateError, since: Date)? { health.unreachable }

    /// Whether the panel is shown: without it (JSON lines, a log that is not a terminal) no view or summary is
    /// kept or made, so that thousands of feeds cost a line each.
    package let panels: Bool

    /// A failing feed, as its panel shows it.
    package struct Failure: Sendable, Equatable {
        /// The source's type.
        package var type: String
        /// The last poll's error, whole.
        package var error: String
        /// Polls failed in a row.
        package var polls: Int
        /// When the first failed poll this run saw started.
        package var since: Date
        /// Whether the feed was failing already before `since` (an earlier run saw it fail).
        package var failingBefore: Bool
    }

    /// The state of `feeds` before any poll; `sources` summarise their reports (others get the standard summary).
    /// `panels: false` when the panel is never shown.
    package init(
        feeds: [FeedConfig], sources: [String: any FeedSource], now: Date, panels: Bool = true
    ) {
        self.panels = panels
        lines = feeds.map { LiveView.FeedLine(name: $0.name) }
        positions = Self.positions(of: lines)
        health.setFeeds(feeds, interval: nil, now: now)
        self.sources = sources
    }

    /// What `apply` asks to be printed.
    package struct Output: Sendable {
        /// Lines for the log (without their newline), in order.
        package var log: [String] = []
        /// Whether the panel changed in a way worth drawing at once (not only a progress step).
        package var redrawNow = false
        /// On a shared schedule: the feed's holder changed (claimed, renewed, released, or seen held by another
        /// instance), to `holder`.
        package var lease: (feed: String, holder: FeedHolder?)?
    }

    /// The state after `event` at `now`, with what to log. With `quiet`, a successful poll without news is not
    /// logged (the panel shows it); otherwise every poll ends with a line.
    package mutating func apply(_ event: PollEvent, now: Date, quiet: Bool) -> Output {
        var output = Output()
        let wasUnreachable = health.unreachable != nil
        health.apply(event, now: now)
        switch event {
        case .scheduled(let feed, let next, _, _):
            update(feed) { $0.next = next }
            output.redrawNow = true
        case .polling(let feed):
            if let position = positions[feed] { before[feed] = lines[position].phase }
            update(feed) {
                $0.phase = .polling
                $0.progress = nil
            }
            views[feed] = nil
            focus = feed
        case .lease(let feed, let holder):
            guard let position = positions[feed], lines[position].holder != holder else { break }
            let before = lines[position].holder
            lines[position].holder = holder
            output.lease = (feed, holder)
            output.redrawNow = true
            // Another instance's hold is logged when it starts (not at each renewal); this instance's own are its
            // polls.
            if let holder, !holder.isThisInstance, before?.owner != holder.owner {
                output.log = [
                    "\(UTCTime.clock(now)) \(feed): \(LiveView.leased(holder))"
                ]
            }
        case .view(let view):
            update(view.feed) {
                $0.progress = (view.done, view.total)
                $0.items = view.items
            }
            if panels { views[view.feed] = view }
            focus = view.feed
        case .finished(let report):
            output.log = finished(report, now: now, quiet: quiet)
            output.redrawNow = true
        case .stopped(let feed):
            if let position = positions[feed] {
                lines.remove(at: position)
                positions = Self.positions(of: lines)
            }
            views[feed] = nil
            summaries[feed] = nil
            failures[feed] = nil
            if focus == feed { focus = nil }
            if summarized == feed { summarized = nil }
            output.log = ["\(UTCTime.clock(now)) \(feed): removed from the feeds file; stopped"]
            output.redrawNow = true
        case .notice(let text):
            output.log = [text]
            output.redrawNow = true
        case .delivery(let attempt):
            output.log = [NotifierSet.notice(attempt)]
            output.redrawNow = true
        case .state(let error?):
            guard !wasUnreachable else { break }
            output.log = ["\(UTCTime.clock(now)) \(StatusListing.unreachableLine(error))"]
            output.redrawNow = true
        case .state(nil):
            guard wasUnreachable else { break }
            output.log = ["\(UTCTime.clock(now)) state reachable again"]
            output.redrawNow = true
        case .reload:
            output.redrawNow = true
        }
        return output
    }

    /// `state unreachable since 12:00:05: …` while the state cannot be reached, else `feeds file invalid (line 14):
    /// running the last valid one` while a reload is rejected: shown above the feeds (in the full screen, on the log
    /// row); nil otherwise.
    package var stateLine: String? {
        unreachable.map { StatusListing.unreachableLine($0.error, since: UTCTime.clock($0.since)) }
            ?? health.rejectedReload
    }

    /// Updates the feeds (after the feeds file changed at `now`) keeping what is known of the others; a new feed's
    /// staleness counts from `now`, as `/healthz` counts it.
    package mutating func setFeeds(_ feeds: [FeedConfig], sources: [String: any FeedSource], now: Date = Date()) {
        let known = lines
        lines = feeds.map { feed in positions[feed.name].map { known[$0] } ?? LiveView.FeedLine(name: feed.name) }
        positions = Self.positions(of: lines)
        self.sources.merge(sources) { $1 }
        health.setFeeds(feeds, interval: nil, now: now)
    }

    /// The panel for `feed` at `now`: while it polls, its groups with their counts so far (`…` pending, `failed`);
    /// while it fails, its error in full wrapped at `width`, since when it fails and when it polls next; otherwise the
    /// summary of its last successful poll. Then, while a server holds it back, until when and why. Nil when there is
    /// nothing to show.
    package func panel(of feed: String, now: Date, width: Int) -> String? {
        guard let position = positions[feed] else { return nil }
        let line = lines[position]
        if line.phase == .polling, let view = views[feed] { return LiveView.pollingPanel(view) }
        var panel: [String] = []
        if line.phase == .failed, let failure = failures[feed] {
            panel = LiveView.failurePanel(feed, failure, next: line.next, now: now, width: width)
        } else if var summary = summaries[feed] {
            while summary.hasSuffix("\n") { summary.removeLast() }
            panel = [summary]
        }
        if let hold = health.hold(of: feed), hold.until > now {
            panel.append(LiveView.holdLine(until: hold.until, reason: hold.reason, now: now))
        }
        return panel.isEmpty ? nil : panel.joined(separator: "\n")
    }

    // MARK: - A poll's end

    private mutating func finished(_ report: PollReport, now: Date, quiet: Bool) -> [String] {
        let phase = before.removeValue(forKey: report.feed)
        if report.unreachableState != nil {
            // The state's failure, said once for every feed (`.state`): the feed stands where it stood.
            update(report.feed) {
                $0.phase = phase ?? .waiting
                $0.progress = nil
            }
            views[report.feed] = nil
            return []
        }
        // Failing since an earlier poll (its phase is `polling` meanwhile); a recovery also from a failure stored before
        // this run, as its `recovered` notification says.
        let wasFailing =
            positions[report.feed].map { lines[$0].failures > 0 } ?? false
            || (report.status != .failed && report.failedBefore)
        update(report.feed) { line in
            line.phase = Self.phase(report.status)
            line.progress = nil
            line.items = report.items
            line.new = report.new
            line.failures = report.status == .failed ? max(report.failures, 1) : 0
            line.gap = report.gap != nil
        }
        views[report.feed] = nil
        if panels {
            failures[report.feed] =
                report.status != .failed
                ? nil
                : Failure(
                    type: report.type, error: report.error ?? "unknown error", polls: max(report.failures, 1),
                    since: failures[report.feed]?.since ?? report.started,
                    failingBefore: failures[report.feed]?.failingBefore ?? (report.failures > 1))
        }
        let stale = health.isStale(report.feed, now: now)
        update(report.feed) { $0.stale = stale }
        var messages: [String] = []
        let stamp = UTCTime.clock(now)
        switch (report.status, wasFailing) {
        case (.failed, false):
            messages.append(
                "\(stamp) \(report.feed): failed: \(TerminalText.sanitized(report.error ?? "unknown error"))")
        case (.failed, true):
            break
        case (_, true):
            messages.append("\(stamp) \(report.feed): recovered (\(Self.phase(report.status).rawValue))")
        case (.partial, false):
            messages.append("\(stamp) \(report.feed): partial: \(TerminalText.sanitized(report.error ?? ""))")
        default:
            if !quiet {
                let what = report.status == .notModified ? "not modified" : "ok"
                messages.append("\(stamp) \(report.feed): \(what), \(report.items) items, \(report.new) new")
            }
        }
        if let gap = report.gap {
            messages.append("\(stamp) \(report.feed): \(TerminalText.sanitized(gap.text))")
        }
        if report.isFirstSync {
            // On a feed's first sync everything is new: say how much, not each item.
            if !report.newItems.isEmpty {
                messages.append("\(stamp) \(report.feed): first sync, \(report.newItems.count) items")
            }
        } else {
            let shown = report.newItems.prefix(20)
            for item in shown {
                messages.append("\(stamp) \(report.feed) + \(TerminalText.sanitized(item.title))")
            }
            if report.newItems.count > shown.count {
                messages.append("\(stamp) \(report.feed) + … and \(report.newItems.count - shown.count) more")
            }
        }
        if report.status != .failed {
            if panels {
                summaries[report.feed] =
                    sources[report.feed]?.summary(of: report, now: now) ?? SummaryText.standard(report, now: now)
            }
            focus = report.feed
            summarized = report.feed
        } else if focus == report.feed {
            focus = summarized
        }
        return messages
    }

    private mutating func update(_ feed: String, _ change: (inout LiveView.FeedLine) -> Void) {
        guard let index = positions[feed] else { return }
        change(&lines[index])
    }

    /// The position of each feed's line (of a name listed twice, the first).
    private static func positions(of lines: [LiveView.FeedLine]) -> [String: Int] {
        Dictionary(lines.enumerated().map { ($1.name, $0) }) { first, _ in first }
    }

    private static func phase(_ status: PollReport.Status) -> LiveView.FeedLine.Phase {
        switch status {
        case .ok: .ok
        case .notModified: .notModified
        case .partial: .partial
        case .failed: .failed
        }
    }
}
