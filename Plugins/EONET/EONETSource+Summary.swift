import Foundation
import MonitorCore
import MonitorText

// MARK: - Summary

extension EONETSource {
    /// The headline; then every category, sorted by title, with its events, how many are open and closed, and
    /// how many are new (a category without events shows 0); then the distinct events and the poll's duration.
    package func summary(of report: PollReport, now: Date) -> String {
        var output = SummaryText.headline(report)
        guard report.status != .failed else { return output }
        let categories = report.groups.sorted { ($0.title.lowercased(), $0.id) < ($1.title.lowercased(), $1.id) }
        // One column per value of the declared breakdown (open, closed), as the core counted them.
        let values = Self.breakdown?.values ?? []
        output += SummaryText.table(
            header: ["category", "events"] + values + ["new"],
            rows: categories.map { category in
                [TerminalText.sanitized(category.title), "\(category.count)"]
                    + values.map { "\(category.breakdown[$0] ?? 0)" } + [category.new > 0 ? "+\(category.new)" : ""]
            },
            rightAligned: Set(1...(values.count + 2)))
        let events = "\(report.items) distinct event\(report.items == 1 ? "" : "s")"
        output += "  \(events) in \(SummaryText.seconds(report.duration))\n"
        return output
    }
}
