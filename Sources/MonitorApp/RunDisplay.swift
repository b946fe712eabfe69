import Foundation
import MonitorCore

/// Shows the events of a `run --once`: JSON lines, plain summaries, or on a terminal live progress lines
/// redrawn in place with each summary printed above them as its feed finishes.
///
/// It keeps only what it draws: the views of the feeds still polling, and only on a terminal; a report is
/// printed and forgotten, so that thousands of feeds cost it little. Its methods may be called from several tasks: a
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
                erase()
                let summary =
                    sources[report.feed]?.summary(of: report, now: Date()) ?? SummaryText.standard(report, now: Date())
                output(summary + "\n")
                if terminal { redraw() }
            }
        case .lease(let feed, let holder?) where !holder.isThisInstance:
            // On a shared schedule: another instance holds the feed, which is skipped.
            pending.remove(feed)
            views[feed] = nil
            switch format {
            case .json:
                output(LiveDisplay.json(feed: feed, holder: holder).text + "\n")
            case .text:
                erase()
                output("\(feed): skipped: \(LiveView.leased(holder)) UTC\n")
                if terminal { redraw() }
            }
        case .scheduled, .polling, .lease, .stopped, .notice, .delivery, .state, .reload:
            break
        }
    }

    /// A once run does not reload its feeds file.
    func setFeeds(_ feeds: [FeedConfig], sources: [String: any FeedSource]) {}

    /// Clears the progress lines at the end.
    func finish() {
        lock.withLock { erase() }
    }

    private func redraw() {
        erase()
        guard !pending.isEmpty else { return }
        let block = ProgressText.block(feeds: feeds.filter(pending.contains), views: views)
        output(block)
        drawnLines = pending.count
        lastDraw = Date()
    }

    private func erase() {
        guard terminal, drawnLines > 0 else { return }
        output("\u{1B}[\(drawnLines)A\u{1B}[J")
        drawnLines = 0
    }
}
