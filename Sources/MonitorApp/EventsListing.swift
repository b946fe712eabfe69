import Foundation
import MonitorCore
import MonitorItems
import MonitorText

/// The listing of `monitor events`, as pure functions. The items are selected by the state
/// (`StateStoring.items(feed:group:since:limit:)`); this renders them.
package enum EventsListing {
    /// The earliest date `--days N` keeps: N days of 86,400 seconds before `now`.
    package static func since(days: Int, now: Date) -> Date {
        now.addingTimeInterval(-Double(days) * 86_400)
    }

    /// One line per item: the date, the source's detail columns, the title (a `SummaryText.table`); or a line saying
    /// there are none.
    package static func text(_ items: [Item], columns: [String]) -> String {
        guard !items.isEmpty else { return "no items\n" }
        let rows = items.map { item in
            [UTCTime.minute(item.date)] + columns.map { TerminalText.sanitized(item.detail($0) ?? "") }
                + [TerminalText.sanitized(item.title)]
        }
        return SummaryText.table(header: ["date (UTC)"] + columns + ["title"], rows: rows)
    }
}
