import Foundation
import MonitorCore

/// Shows the events of a long-running `monitor run`.
///
/// - On a terminal: the live view redrawn in place; new items, failures and recoveries printed once above
///   it, so the scrollback is a log of what happened.
/// - Otherwise: one plain line per event (poll finished, new item, failure, recovery), no redrawing.
/// - With `--format json`: one JSON object per poll, per line.
///
/// A feed's error is reported when it starts failing and again when it recovers, not at every poll.
/// Its methods may be called from several tasks: a lock serialises them (hence `@unchecked Sendable`).
final class LiveDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let format: OutputFormat
    private let terminal: Bool
    private var sources: [String: any FeedSource]
    private var staleAfter: [String: Duration]
    private let output: @Sendable (String) -> Void
    private let width: Int
    private let started: Date
    private var lines: [LiveView.FeedLine]
    private var lastNew: [String: Date] = [:]
    private var focus: String?
    private var drawnLines = 0
    private var lastDraw = Date.distantPast

    init(
        format: OutputFormat, terminal: Bool, feeds: [FeedConfig], sources: [String: any FeedSource],
        output: @escaping @Sendable (String) -> Void, width: Int = 100, now: Date = Date()
    ) {
        self.format = format
        self.terminal = terminal && format == .text
        self.sources = sources
        self.output = output
        self.width = width
        self.started = now
        self.lines = feeds.map { LiveView.FeedLine(name: $0.name) }
        self.staleAfter = Dictionary(
            feeds.compactMap { feed in feed.options.duration("expect_update_within").map { (feed.name, $0) } },
            uniquingKeysWith: { $1 })
    }

    /// Shows one event.
    func show(_ event: PollEvent, now: Date = Date()) {
        lock.withLock { handle(event, now: now) }
    }

    private func handle(_ event: PollEvent, now: Date) {
        switch event {
        case .scheduled(let feed, let next, _):
            update(feed) { $0.next = next }
            redraw(now: now, force: true)
        case .polling(let feed):
            update(feed) {
                $0.phase = .polling
                $0.progress = nil
            }
            redraw(now: now, force: false)
        case .view(let view):
            update(view.feed) {
                $0.progress = (view.done, view.total)
                $0.items = view.items
            }
            redraw(now: now, force: false)
        case .finished(let report):
            finished(report, now: now)
        case .stopped(let feed):
            lines.removeAll { $0.name == feed }
            log("\(LiveView.time(now)) \(feed): removed from the feeds file; stopped", now: now)
        case .notice(let text):
            log(text, now: now)
        }
    }

    /// Updates the feeds shown (after the feeds file changed) keeping what is known of the others.
    func setFeeds(_ feeds: [FeedConfig], sources: [String: any FeedSource]) {
        lock.withLock {
            lines = feeds.map { feed in lines.first { $0.name == feed.name } ?? LiveView.FeedLine(name: feed.name) }
            self.sources = self.sources.merging(sources) { $1 }
            staleAfter = Dictionary(
                feeds.compactMap { feed in feed.options.duration("expect_update_within").map { (feed.name, $0) } },
                uniquingKeysWith: { $1 })
        }
    }

    /// Clears the live view at the end.
    func finish() {
        lock.withLock { erase() }
    }

    // MARK: - Events

    private func finished(_ report: PollReport, now: Date) {
        let previous = lines.first { $0.name == report.feed }
        let wasFailing = previous?.phase == .failed
        update(report.feed) { line in
            line.phase = Self.phase(report.status)
            line.progress = nil
            line.items = report.items
            line.new = report.new
            line.failures = report.status == .failed ? max(report.failures, 1) : 0
        }
        if report.new > 0 { lastNew[report.feed] = now }
        if let threshold = staleAfter[report.feed] {
            let since = lastNew[report.feed] ?? started
            update(report.feed) { $0.stale = now.timeIntervalSince(since) > threshold.seconds }
        }
        if format == .json {
            output(report.json.text + "\n")
            return
        }
        var messages: [String] = []
        let stamp = LiveView.time(now)
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
            if !terminal {
                let what = report.status == .notModified ? "not modified" : "ok"
                messages.append("\(stamp) \(report.feed): \(what), \(report.items) items, \(report.new) new")
            }
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
            focus = sources[report.feed]?.summary(of: report, now: now) ?? SummaryText.standard(report, now: now)
        }
        if terminal {
            erase()
            for message in messages { output(LiveView.cut(message, to: width) + "\n") }
            redraw(now: now, force: true)
        } else {
            for message in messages { output(message + "\n") }
        }
    }

    private func log(_ text: String, now: Date) {
        guard format == .text else { return }
        erase()
        output(text + "\n")
        redraw(now: now, force: true)
    }

    private func update(_ feed: String, _ change: (inout LiveView.FeedLine) -> Void) {
        guard let index = lines.firstIndex(where: { $0.name == feed }) else { return }
        change(&lines[index])
    }

    private static func phase(_ status: PollReport.Status) -> LiveView.FeedLine.Phase {
        switch status {
        case .ok: .ok
        case .notModified: .notModified
        case .partial: .partial
        case .failed: .failed
        }
    }

    // MARK: - Drawing

    private func redraw(now: Date, force: Bool) {
        guard terminal else { return }
        guard force || now.timeIntervalSince(lastDraw) > 0.1 else { return }
        erase()
        let view = LiveView.render(lines, focus: focus, now: now, width: width)
        output(view)
        drawnLines = view.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) }
        lastDraw = now
    }

    private func erase() {
        guard terminal, drawnLines > 0 else { return }
        output("\u{1B}[\(drawnLines)A\u{1B}[J")
        drawnLines = 0
    }
}
