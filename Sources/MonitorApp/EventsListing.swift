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

    /// One line per item: the date, the source's detail columns, the title; or a line saying there are none.
    /// The same table as `SummaryText.table`: indented by two spaces, columns two spaces apart, no trailing spaces.
    package static func text(_ items: [Item], columns: [String]) -> String {
        guard !items.isEmpty else { return "no items\n" }
        let header = ["date (UTC)"] + columns + ["title"]
        var rows: [[String]] = [header]
        rows.reserveCapacity(items.count + 1)
        for item in items {
            var row = [UTCTime.minute(item.date)]
            for column in columns { row.append(safe(item.detail(column) ?? "")) }
            row.append(safe(item.title))
            rows.append(row)
        }
        var widths = [Int](repeating: 0, count: header.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], TerminalText.width(cell)) }
        }
        var output = ""
        output.reserveCapacity(rows.count * (widths.reduce(0, +) + 2 * widths.count + 1))
        var line = ""
        for row in rows {
            line.removeAll(keepingCapacity: true)
            line += "  "
            for (column, cell) in row.enumerated() {
                if column > 0 { line += "  " }
                line += cell
                if column < row.count - 1 {
                    line += String(repeating: " ", count: widths[column] - TerminalText.width(cell))
                }
            }
            while line.utf8.last == UInt8(ascii: " ") { line.removeLast() }
            output += line
            output += "\n"
        }
        return output
    }

    /// `text` made safe for a terminal; printable ASCII is already.
    private static func safe(_ text: String) -> String {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? text : TerminalText.sanitized(text)
    }
}
