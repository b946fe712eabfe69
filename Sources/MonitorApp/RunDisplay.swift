import Foundation
import MonitorCore

/// Shows the events of a `run --once`: JSON lines in the order the feeds finish, or text summaries in the order of the
/// feeds file, each printed once every feed above it is done (on a terminal above live progress lines redrawn in
/// place), so that two runs print alike.
///
/// It keeps only what it draws: the views of the feeds still polling (only on a terminal) and the summaries waiting
/// for a feed above them; a summary is printed and forgotten, so that thousands of feeds cost it little. Its methods may be called from several tasks: a
/// lock serialises them (hence `@unchecked Sendable`).
final class RunDisplay: RunView, @unchecked Sendable {
    private let lock = NSLock()
    private let format: OutputFormat
    private let terminal: Bool
    private let sources: [String: any FeedSource]
    /// The feeds in the order of the feeds file.
    private let feeds: [String]
    private let output: @Sendable (String) -> Void
    /// The feeds not finished yet.
    private var pending: Set<String>
    /// The text of each feed finished but not printed yet (a feed above it still polls), and its progress line.
    private var held: [String: (text: String, line: String)] = [:]
    /// The index in `feeds` of the first feed not printed yet.
    private var next = 0
    /// The latest view of each feed still polling, kept only on a terminal.
    private var views: [String: FeedView] = [:]
    private var drawnLines = 0
    private var lastDraw = Date.distantPast

    init(
        format: OutputFormat, terminal: Bool, feeds: [FeedConfig], sources: [String: any FeedSource],
        output: @escaping @Sendable (String) -> Void
    ) {
        self.format = format
        self.terminal = terminal && format == .text
        self.sources = sources
        self.feeds = feeds.map(\.name)
        self.output = output
        self.pending = Set(self.feeds)
    }

    /// Shows one event.
    func show(_ event: PollEvent) {
        lock.withLock { handle(event) }
    }

    private func handle(_ event: PollEvent) {
        switch event {
        case .view(let view):
            guard terminal else { return }
            views[view.feed] = view
            if Date().timeIntervalSince(lastDraw) > 0.05 { redraw() }
        case .finished(let report):
            pending.remove(report.feed)
            views[report.feed] = nil
            switch format {
            case .json:
                output(report.json.text + "\n")
            case .text:
                let summary =
                    sources[report.feed]?.summary(of: report, now: Date()) ?? SummaryText.standard(report, now: Date())
                let status = report.status.rawValue.replacingOccurrences(of: "_", with: " ")
                hold(
                    report.feed, summary + "\n",
                    line: "\(status)  \(report.items) item\(report.items == 1 ? "" : "s"), \(report.new) new")
            }
        case .lease(let feed, let holder?) where !holder.isThisInstance:
            // On a shared schedule: another instance holds the feed, which is skipped.
            pending.remove(feed)
            views[feed] = nil
            switch format {
            case .json:
                output(LiveDisplay.json(feed: feed, holder: holder).text + "\n")
            case .text:
                hold(feed, "\(feed): skipped: \(LiveView.leased(holder)) UTC\n", line: "skipped")
            }
        case .scheduled, .polling, .lease, .stopped, .notice, .delivery, .state, .reload:
            break
        }
    }

    /// A once run does not reload its feeds file.
    func setFeeds(_ feeds: [FeedConfig], sources: [String: any FeedSource]) {}

    /// Clears the progress lines at the end, and prints what still waits (after a signal), in the file's order.
    func finish() {
        lock.withLock {
            erase()
            for feed in feeds[next...] {
                if let waiting = held.removeValue(forKey: feed) { output(waiting.text) }
            }
        }
    }

    /// Keeps `text` until every feed above `feed` is printed, then prints what is in order.
    private func hold(_ feed: String, _ text: String, line: String) {
        erase()
        held[feed] = (text, line)
        while next < feeds.count, let ready = held.removeValue(forKey: feeds[next]) {
            output(ready.text)
            next += 1
        }
        if terminal { redraw() }
    }

    private func redraw() {
        erase()
        let shown = feeds[next...].filter { pending.contains($0) || held[$0] != nil }
        guard !shown.isEmpty else { return }
        output(ProgressText.block(feeds: shown, views: views, finished: held.mapValues(\.line)))
        drawnLines = shown.count
        lastDraw = Date()
    }

    private func erase() {
        guard terminal, drawnLines > 0 else { return }
        output("\u{1B}[\(drawnLines)A\u{1B}[J")
        drawnLines = 0
    }
}
