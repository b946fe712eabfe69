import Foundation
import MonitorCore

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
        let header = ["date"] + columns + ["title"]
        var rows: [[String]] = [header]
        rows.reserveCapacity(items.count + 1)
        for item in items {
            var row = [date(item.date)]
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

    /// `2026-11-22 04:10` in UTC.
    static func date(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = ISO8601.civil(daysSinceEpoch: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8((value / divisor) % 10))
                divisor /= 10
            }
        }
        if year < 1583 || year > 9999 {
            // Before the Gregorian calendar, or after four digits: as Foundation writes it.
            let text = ISO8601.string(date)
            return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
        }
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: " "))
        digits(time / 3600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(time % 3600 / 60, 2)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` made safe for a terminal; printable ASCII is already.
    private static func safe(_ text: String) -> String {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? text : TerminalText.sanitized(text)
    }
}
