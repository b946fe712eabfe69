import Foundation
import MonitorItems
import MonitorText

/// The text summaries of finished polls. Text from the network is made safe for a terminal here.
package enum SummaryText {
    /// The first line of every summary: `NAME (TYPE): STATUS — N items, N new, N requests (N not modified), 1.2s`.
    package static func headline(_ report: PollReport) -> String {
        let status = report.status.rawValue.replacingOccurrences(of: "_", with: " ")
        var parts = ["\(report.items) item\(report.items == 1 ? "" : "s")", "\(report.new) new"]
        let requests = "\(report.requests) request\(report.requests == 1 ? "" : "s")"
        parts.append(report.notModified > 0 ? "\(requests) (\(report.notModified) not modified)" : requests)
        parts.append(seconds(report.duration))
        var line = "\(report.feed) (\(report.type)): \(status) — \(parts.joined(separator: ", "))\n"
        if let error = report.error {
            line += "  error: \(TerminalText.sanitized(error))\n"
        }
        if let gap = report.gap { line += "  \(TerminalText.sanitized(gap.text))\n" }
        for note in report.notes { line += "  note: \(TerminalText.sanitized(note))\n" }
        return line
    }

    /// The headline, the groups (under `groupHeader`) with their counts and what is new, then the latest items, each
    /// followed by what `more` says of it.
    package static func standard(
        _ report: PollReport, now: Date, latest: Int = 5, groupHeader: String = "group",
        more: (Item) -> String = { _ in "" }
    ) -> String {
        var output = headline(report)
        if !report.groups.isEmpty {
            output += table(
                header: [groupHeader, "items", "new"],
                rows: report.groups.map {
                    [TerminalText.sanitized($0.title), "\($0.count)", $0.new > 0 ? "+\($0.new)" : ""]
                },
                rightAligned: [1, 2])
        }
        if !report.latest.isEmpty {
            output += "  latest (UTC):\n"
            for item in report.latest.prefix(latest) {
                let mark = report.newIDs.contains(item.id) ? "*" : " "
                output +=
                    "  \(mark) \(UTCTime.short(item.date, now: now))  \(TerminalText.sanitized(item.title))\(more(item))\n"
            }
        }
        return output
    }

    /// Rows as a table indented by two spaces, columns separated by two spaces, measured in terminal cells
    /// (`TerminalText.width`: a wide character or an emoji takes two). Each line is made in one buffer: `monitor
    /// events` lists every stored item through it.
    package static func table(header: [String], rows: [[String]], rightAligned: Set<Int> = []) -> String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        let cellWidths = all.map { row in
            row.enumerated().map { column, cell in
                let cells = TerminalText.width(cell)
                widths[column] = max(widths[column], cells)
                return cells
            }
        }
        var output = ""
        var line = ""
        for (row, rowWidths) in zip(all, cellWidths) {
            line.removeAll(keepingCapacity: true)
            line += "  "
            for (column, cell) in row.enumerated() {
                if column > 0 { line += "  " }
                let pad = String(repeating: " ", count: widths[column] - rowWidths[column])
                if rightAligned.contains(column) {
                    line += pad + cell
                } else {
                    line += cell
                    // A last column aligned left is not padded: a line ends with its text, even a text whose last
                    // character would take the padding's first space into itself (a Unicode "prepend" mark).
                    if column < row.count - 1 { line += pad }
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            output += line
            output += "\n"
        }
        return output
    }

    /// `1.2s`, `350ms`.
    package static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        return milliseconds < 1000 ? "\(milliseconds)ms" : String(format: "%.1fs", Double(milliseconds) / 1000)
    }
}
