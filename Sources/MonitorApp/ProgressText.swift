import MonitorCore
import MonitorText

/// The live progress lines of `run --once` on a terminal, as pure functions of the views.
package enum ProgressText {
    /// `  NAME  [######------]  3/5 requests  12 items, 3 new`; a feed not started yet shows `waiting`.
    package static func line(feed: String, view: FeedView?, nameWidth: Int, barWidth: Int = 20) -> String {
        let name = feed.padding(to: nameWidth)
        guard let view else { return "  \(name)  waiting" }
        let counts = "\(view.items) item\(view.items == 1 ? "" : "s"), \(view.new) new"
        guard let total = view.total, total > 0 else {
            return "  \(name)  polling…  \(view.done) request\(view.done == 1 ? "" : "s")  \(counts)"
        }
        return
            "  \(name)  [\(bar(done: view.done, total: total, width: barWidth))]  \(view.done)/\(total) requests  \(counts)"
    }

    /// `######----`: `done` of `total` as `width` characters, `#` for what is done (`total` > 0).
    package static func bar(done: Int, total: Int, width: Int) -> String {
        let filled = max(0, min(width, done * width / total))
        return String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    }

    /// The block of lines for the feeds not printed yet, in the order given: those `finished` (waiting for a feed
    /// above them) show its line instead of progress.
    package static func block(feeds: [String], views: [String: FeedView], finished: [String: String] = [:]) -> String {
        let width = feeds.map { TerminalText.width($0) }.max() ?? 0
        return feeds.map { feed in
            finished[feed].map { "  \(feed.padding(to: width))  \($0)\n" }
                ?? line(feed: feed, view: views[feed], nameWidth: width) + "\n"
        }.joined()
    }
}
