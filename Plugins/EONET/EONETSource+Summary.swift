import Foundation
import MonitorCore

// MARK: - Summary

extension EONETSource {
    /// The headline; then every category, sorted by title, with its events, how many are open and closed, and
    /// how many are new (a category without events shows 0); then the distinct events and the poll's duration.
    public func summary(of report: PollReport, now: Date) -> String {
        var output = SummaryText.headline(report)
        guard report.status != .failed else { return output }
        let categories = report.groups.sorted { ($0.title.lowercased(), $0.id) < ($1.title.lowercased(), $1.id) }
        output += SummaryText.table(
            header: ["category", "events", "open", "closed", "new"],
            rows: categories.map { category in
                [
                    TerminalText.sanitized(category.title), "\(category.count)",
                    "\(category.breakdown["open"] ?? 0)", "\(category.breakdown["closed"] ?? 0)",
                    category.new > 0 ? "+\(category.new)" : "",
                ]
            },
            rightAligned: [1, 2, 3, 4])
        let events = "\(report.items) distinct event\(report.items == 1 ? "" : "s")"
        output += "  \(events) in \(SummaryText.seconds(report.duration))\n"
        return output
    }
}
