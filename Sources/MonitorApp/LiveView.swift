import Foundation
import MonitorCore
import MonitorText

/// The live view of `monitor run` on a terminal, as pure functions: one line per feed, then the summary of
/// the feed that changed last.
package enum LiveView {
    /// What the view knows of one feed.
    package struct FeedLine: Sendable {
        /// Where a feed stands.
        package enum Phase: String, Sendable, Equatable {
            case waiting, polling, ok, partial, failed
            case notModified = "not modified"
        }

        package var name: String
        package var phase: Phase = .waiting
        /// Requests done and expected while polling.
        package var progress: (done: Int, total: Int?)?
        /// Items after the last poll (or so far while polling).
        package var items = 0
        /// New items of the last poll.
        package var new = 0
        /// When it polls next.
        package var next: Date?
        /// Polls failed in a row.
        package var failures = 0
        /// Whether it has had no new item for longer than it should (`expect_update_within`).
        package var stale = false
        /// Whether its last poll may have missed events (`PollReport.gap`).
        package var gap = false
        /// On a shared schedule: the instance holding its lease (this one while it polls the feed), as last seen.
        package var holder: FeedHolder?
    }

    /// The view: `state` first when there is one (the state cannot be reached), a line per feed, each cut to `width`
    /// columns, then a blank line and `focus` (at most `focusLines` lines of it).
    package static func render(
        _ lines: [FeedLine], focus: String?, width: Int, focusLines: Int = 16,
        state: String? = nil
    ) -> String {
        let nameWidth = lines.map { TerminalText.width($0.name) }.max() ?? 0
        var output = state.map { TerminalText.cut($0, to: width) + "\n" } ?? ""
        let stateWidth = stateWidth(lines, nameWidth: nameWidth, width: width)
        output += lines.map {
            TerminalText.cut(line($0, nameWidth: nameWidth, stateWidth: stateWidth), to: width) + "\n"
        }
        .joined()
        if let focus, !focus.isEmpty {
            output += "\n"
            output += focus.split(separator: "\n", omittingEmptySubsequences: false).prefix(focusLines)
                .map { TerminalText.cut(String($0), to: width) }.joined(separator: "\n")
            if !output.hasSuffix("\n") { output += "\n" }
        }
        return output
    }

    /// One feed's line: `  NAME  STATE  ITEMS  NEW  next HH:MM:SS`; on a shared schedule, while an instance holds
    /// the feed, `leased here until HH:MM:SS` (this one) or `leased by OWNER until HH:MM:SS` instead of the next time.
    package static func line(
        _ line: FeedLine, nameWidth: Int, stateWidth: Int = 26, look: BrowserScreen.Look = .plain
    ) -> String {
        let state = state(of: line)
        let items = "\(line.items) item\(line.items == 1 ? "" : "s")"
        let new = line.new > 0 ? "+\(line.new) new" : ""
        var next = line.phase == .polling ? "" : line.next.map { "next \(UTCTime.clock($0))" } ?? ""
        if let holder = line.holder { next = leased(holder) }
        var text = "  " + line.name.padding(to: nameWidth) + "  " + styled(state, line, look).padding(to: stateWidth)
        text += "  " + items.padding(to: 11) + "  " + new.padding(to: 9) + "  " + next
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    /// The width of the state column in rows of `width` cells: 26, less what `next HH:MM:SS` needs to fit, never less
    /// than the widest of `lines`' states.
    package static func stateWidth(_ lines: [FeedLine], nameWidth: Int, width: Int) -> Int {
        let widest = lines.map { TerminalText.width(state(of: $0)) }.max() ?? 0
        return min(26, max(widest, width - nameWidth - 43))
    }

    /// `ok`, `failed (2×)`, `polling [██░░] 3/14`, `stale, gap`…
    private static func state(of line: FeedLine) -> String {
        var state: String
        switch line.phase {
        case .polling:
            if let progress = line.progress, let total = progress.total, total > 0 {
                state =
                    "polling [\(ProgressText.bar(done: progress.done, total: total, width: 10))] \(progress.done)/\(total)"
            } else {
                state = "polling…"
            }
        case .failed:
            state = line.failures > 1 ? "failed (\(line.failures)×)" : "failed"
        default:
            state = line.phase.rawValue
        }
        if line.stale, line.phase != .polling, line.phase != .failed { state = "stale" }
        // Events may be missing: marked until a poll that misses none.
        if line.gap, line.phase != .polling, line.phase != .failed { state += ", gap" }
        return state
    }

    /// `state` in the colour of `line`'s phase (failed red, partial, stale or with a gap yellow, ok green, polling
    /// cyan), or, in two tones, bold when it failed.
    private static func styled(_ state: String, _ line: FeedLine, _ look: BrowserScreen.Look) -> String {
        let style: String?
        switch (look, line.phase) {
        case (.plain, _): style = nil
        case (_, .failed): style = look == .colour ? "1;31" : "1"
        case (.twoTone, _), (_, .waiting): style = nil
        case (_, .polling): style = "36"
        case _ where line.stale || line.gap || line.phase == .partial: style = "33"
        default: style = "32"
        }
        return style.map { "\u{1B}[\($0)m\(state)\u{1B}[22;39m" } ?? state
    }

    /// `leased here until HH:MM:SS` when `holder` is this instance, else `leased by OWNER until HH:MM:SS` (the owner id
    /// cleaned of control characters).
    package static func leased(_ holder: FeedHolder) -> String {
        let by = holder.isThisInstance ? "here" : "by \(TerminalText.sanitized(holder.owner))"
        return "leased \(by) until \(UTCTime.clock(holder.until))"
    }

    /// The panel of a failing feed at `now`: since when it fails and how many polls in a row, its error in full (cleaned of
    /// control characters, its lines kept) wrapped at `width` and indented, then when it polls next.
    package static func failurePanel(
        _ feed: String, _ failure: LiveState.Failure, next: Date?, now: Date, width: Int
    ) -> [String] {
        let since = (failure.failingBefore ? "before " : "") + UTCTime.moment(failure.since, now: now)
        let polls = failure.polls == 1 ? "1 poll" : "\(failure.polls) polls in a row"
        var panel = [
            "\(TerminalText.sanitized(feed)) (\(TerminalText.sanitized(failure.type))): failing since \(since), \(polls)"
        ]
        for paragraph in TerminalText.sanitized(failure.error, keepNewlines: true).split(separator: "\n") {
            panel += TerminalText.wrapped(String(paragraph), width: width - 2).map { "  " + $0 }
        }
        if let next { panel.append("next poll at \(UTCTime.moment(next, now: now))") }
        return panel
    }

    /// `held back until 17:30:00 (rate limit exhausted)`: a server's hold on a feed.
    static func holdLine(until: Date, reason: String?, now: Date) -> String {
        let reason = reason.map { " (\(TerminalText.sanitized($0)))" } ?? ""
        return "held back until \(UTCTime.moment(until, now: now))\(reason)"
    }

    /// The panel of a feed being polled: a heading with its progress, then each group with its count so far,
    /// `…` while its response is pending, `failed` when its request failed.
    package static func pollingPanel(_ view: FeedView) -> String {
        var heading = "\(TerminalText.sanitized(view.feed)): polling"
        if let total = view.total, total > 0 { heading += " \(view.done)/\(total) requests," }
        heading += " \(view.items) item\(view.items == 1 ? "" : "s") so far"
        let titles = view.groups.map { TerminalText.cut(TerminalText.sanitized($0.title), to: 40) }
        let titleWidth = titles.map { TerminalText.width($0) }.max() ?? 0
        let rows = zip(view.groups, titles).map { group, title in
            let count: String
            switch group.phase {
            case .pending: count = "…"
            case .failed: count = "failed"
            case .done: count = "\(group.count)"
            }
            var row =
                "  " + title.padding(to: titleWidth) + "  " + String(repeating: " ", count: max(0, 6 - count.count))
            row += count
            if group.phase == .done, group.new > 0 { row += "  +\(group.new) new" }
            return row
        }
        return ([heading] + rows).joined(separator: "\n")
    }
}
