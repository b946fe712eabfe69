import Foundation
import MonitorCore
import MonitorJSON
import MonitorText

/// Shows the events of a long-running `monitor run` that is not full-screen.
///
/// - On a terminal: the live view redrawn in place; new items, failures and recoveries printed once above
///   it, so the scrollback is a log of what happened. While a feed polls, the panel under the feed lines
///   shows its groups with their counts as they come in.
/// - Otherwise: one plain line per event (poll finished, new item, failure, recovery), no redrawing.
/// - With `--format json`: one JSON object per poll, one per attempt at delivering a notification, one per change of
///   the state's reachability, and on a shared schedule one per change of a feed's holder, per line.
///
/// What to show is decided by `LiveState`, a pure state machine; this class only prints.
/// Its methods may be called from several tasks: a lock serialises them (hence `@unchecked Sendable`).
final class LiveDisplay: RunView, @unchecked Sendable {
    private let lock = NSLock()
    private let format: OutputFormat
    private let terminal: Bool
    private var state: LiveState
    private let output: @Sendable (String) -> Void
    private let width: Int
    private var drawnLines = 0
    private var lastDraw = Date.distantPast

    init(
        format: OutputFormat, terminal: Bool, feeds: [FeedConfig], sources: [String: any FeedSource],
        output: @escaping @Sendable (String) -> Void, width: Int = 100, now: Date = Date()
    ) {
        self.format = format
        self.terminal = terminal && format == .text
        self.state = LiveState(feeds: feeds, sources: sources, now: now, panels: terminal && format == .text)
        self.output = output
        self.width = width
    }

    func show(_ event: PollEvent) {
        show(event, now: Date())
    }

    /// Shows one event as at `now`.
    func show(_ event: PollEvent, now: Date) {
        lock.withLock { handle(event, now: now) }
    }

    private func handle(_ event: PollEvent, now: Date) {
        let result = state.apply(event, now: now, quiet: terminal)
        switch format {
        case .json:
            switch event {
            case .finished(let report): output(report.json.text + "\n")
            case .delivery(let attempt): output(NotifierSet.json(attempt).text + "\n")
            case .lease: result.lease.map { output(Self.json(feed: $0.feed, holder: $0.holder).text + "\n") }
            // Said when it changes: what the log says in text.
            case .state(let error) where !result.log.isEmpty: output(StatusListing.json(state: error).text + "\n")
            default: break
            }
        case .text:
            if terminal {
                if !result.log.isEmpty { erase() }
                for message in result.log { output(TerminalText.cut(message, to: width) + "\n") }
                redraw(now: now, force: result.redrawNow)
            } else {
                for message in result.log { output(message + "\n") }
            }
        }
    }

    /// A change of a feed's holder on a shared schedule, as a JSON line: `{"feed": …, "lease": {"owner": …,
    /// "thisInstance": …, "until": …}}`, or `"lease": null` once no instance holds it. The owner id is cleaned of
    /// control characters.
    static func json(feed: String, holder: FeedHolder?) -> JSONValue {
        let lease: JSONValue =
            holder.map { holder in
                .object([
                    ("owner", .string(TerminalText.sanitized(holder.owner))),
                    ("thisInstance", .bool(holder.isThisInstance)), ("until", .date(holder.until)),
                ])
            } ?? .null
        return .object([("feed", .string(feed)), ("lease", lease)])
    }

    /// Updates the feeds shown (after the feeds file changed) keeping what is known of the others.
    func setFeeds(_ feeds: [FeedConfig], sources: [String: any FeedSource]) {
        lock.withLock { state.setFeeds(feeds, sources: sources) }
    }

    /// Clears the live view at the end.
    func finish() {
        lock.withLock { erase() }
    }

    // MARK: - Drawing

    private func redraw(now: Date, force: Bool) {
        guard terminal else { return }
        guard force || now.timeIntervalSince(lastDraw) > 0.1 else { return }
        erase()
        let view = LiveView.render(
            state.lines, focus: state.focus.flatMap { state.panel(of: $0, now: now, width: width) }, width: width,
            state: state.stateLine)
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
