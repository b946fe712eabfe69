import Foundation
import MonitorCore

/// The listing of `monitor events`, as pure functions.
public enum EventsListing {
    /// The items of `group` dated within the last `days` days, newest first, at most `limit`.
    public static func filter(_ items: [Item], group: String?, days: Int?, limit: Int?, now: Date) -> [Item] {
        var selected = items
        if let group { selected = selected.filter { $0.groups.contains(group) } }
        if let days {
            let since = now.addingTimeInterval(-Double(days) * 86_400)
            selected = selected.filter { $0.date >= since }
        }
        selected.sort { ($0.date, $0.id) > ($1.date, $1.id) }
        if let limit { selected = Array(selected.prefix(limit)) }
        return selected
    }

    /// One line per item: the date, the source's detail columns, the title; or a line saying there are none.
    public static func text(_ items: [Item], columns: [String], now: Date) -> String {
        guard !items.isEmpty else { return "no items\n" }
        let rows = items.map { item in
            [date(item.date)] + columns.map { TerminalText.sanitized(item.detail($0) ?? "") } + [
                TerminalText.sanitized(item.title)
            ]
        }
        return SummaryText.table(header: ["date"] + columns + ["title"], rows: rows)
    }

    /// `2026-11-22 04:10` in UTC.
    static func date(_ date: Date) -> String {
        let text = ISO8601.string(date)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }
}
