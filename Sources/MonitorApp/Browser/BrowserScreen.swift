import Foundation
import MonitorCore
import MonitorText

/// The full-screen view of `monitor run`, as a pure function from its state to the rows of the screen.
package enum BrowserScreen {
    /// The keys, as `?` shows them.
    package static let keys = [
        "↑/↓ or k/j   select",
        "PgUp/PgDn    a page up or down; Home/End or g/G: the first or the last",
        "Enter or →   open a feed's groups, a group's items, an item's details",
        "Esc or ←     back (Esc first clears a filter)",
        "d            days window: 1, 7, 30, 90, 360, all",
        "/            filter the list as you type; Enter keeps it, Esc clears it",
        "r            poll the selected feed now",
        "o            print the selected item's link (it is never opened)",
        "m            the map of the selected feed or group; m or Esc goes back",
        "z            zoom the map to the group's items (or all); z again: the world",
        "?            these keys",
        "q            quit",
        "Ctrl-Z       suspend (the shell's fg comes back)",
    ]

    /// How the screen is styled: not at all (plain text), in two tones (`NO_COLOR`: the selected row in reverse video,
    /// a failed feed's state in bold) or in colour too (the feeds' states, and the map's groups as `monitor map` colours
    /// them).
    package enum Look: Sendable {
        case plain, twoTone, colour
    }

    /// Exactly `height` rows of at most `width` cells: a title row, the open list, the latest log line (or, while the
    /// state cannot be reached, that) and a row of keys (or the filter being typed), styled as `look` says. Times are
    /// in UTC (`UTCTime`). Everything a server sent is sanitized; long text is cut with `…`.
    package static func render(
        _ state: BrowserState, width: Int, height: Int, look: Look = .plain
    ) -> [String] {
        let bodyHeight = max(height, 4) - 3
        var body: [String]
        if state.help {
            body = ["Keys", ""] + keys.map { "  " + $0 }
        } else if let map = state.map {
            body = mapRows(state, map, width: width, height: bodyHeight, colour: look == .colour)
        } else {
            switch state.level {
            case .feeds: body = feedRows(state, width: width, look: look)
            case .groups(let feed): body = groupRows(state, feed: feed, height: listRows(state.level, height: height))
            case .items(let feed, _):
                body = itemRows(state, feed: feed, height: listRows(state.level, height: height))
            case .item: body = detailRows(state, width: width)
            }
        }
        body = Array(body.prefix(bodyHeight))
        body += Array(repeating: "", count: bodyHeight - body.count)
        var rows = [title(state, width: width)] + body
        // While the state cannot be reached, that is the line to read.
        rows.append(state.live.stateLine ?? state.log.last.map { TerminalText.sanitized($0) } ?? "")
        rows.append(footer(state))
        return rows.map { row in
            // The selected row, marked `>`, in reverse video.
            let cut = TerminalText.cut(row, to: width)
            return look != .plain && cut.hasPrefix(">") ? "\u{1B}[7m" + cut + "\u{1B}[27m" : cut
        }
    }

    /// The rows of the open list a screen `height` rows high shows: the screen less its title, log and key rows, and
    /// the heading of a feed's groups or the heading and selected item's footer of a group's items.
    package static func listRows(_ level: BrowserState.Level, height: Int) -> Int {
        let body = max(height, 4) - 3
        switch level {
        case .feeds, .item: return body
        case .groups: return max(body - 2, 0)
        case .items: return max(body - 5, 0)
        }
    }

    private static func title(_ state: BrowserState, width: Int) -> String {
        var path = "monitor"
        switch (state.map.map { ($0.feed, $0.group) }, state.level) {
        case ((let feed, nil)?, _), (nil, .groups(let feed)):
            path += " › \(TerminalText.sanitized(feed))"
        case ((let feed, let group?)?, _), (nil, .items(let feed, let group)), (nil, .item(let feed, let group, _)):
            let title = state.stored?.catalog.first { $0.id == group }?.title ?? group
            path += " › \(TerminalText.sanitized(feed)) › \(TerminalText.sanitized(title))"
        case (nil, .feeds):
            break
        }
        if state.map != nil { path += " › map" }
        let right = "\(state.windowLabel)  \(UTCTime.clock(state.now)) UTC"
        // The path keeps every cell but one space before the window and the clock.
        let room = width - right.count - 1
        let left = TerminalText.cut(path, to: max(room, 1))
        return left + String(repeating: " ", count: max(width - TerminalText.width(left) - right.count, 1)) + right
    }

    private static func footer(_ state: BrowserState) -> String {
        if state.filtering { return "/" + state.filter + "  (Enter keeps the filter, Esc clears it)" }
        if let map = state.map {
            let filter = state.filter.isEmpty ? "" : "filter: \(state.filter)  "
            return filter + "m or Esc back  z \(map.zoomed ? "world" : "zoom")  d days  q quit"
        }
        if case .item = state.level { return "Esc back  o print the link  d days  m map  ? keys  q quit" }
        var hint = "↑↓ select  Enter open  Esc back  d days  / filter  r poll  m map  ? keys  q quit"
        if !state.filter.isEmpty { hint = "filter: \(state.filter)  (Esc clears)  " + hint }
        return hint
    }

    private static func feedRows(_ state: BrowserState, width: Int, look: Look) -> [String] {
        let feeds = state.feeds
        guard !feeds.isEmpty else { return [state.filter.isEmpty ? "  no feeds" : "  no feed matches"] }
        let selected = state.selectedFeed
        let nameWidth = feeds.map { TerminalText.width($0.name) }.max() ?? 0
        let stateWidth = LiveView.stateWidth(feeds, nameWidth: nameWidth, width: width)
        var rows = feeds.map { feed in
            marked(
                LiveView.line(feed, nameWidth: nameWidth, stateWidth: stateWidth, look: look),
                selected: feed.name == selected)
        }
        if let selected, let panel = state.live.panel(of: selected, now: state.now, width: width) {
            rows.append("")
            rows += panel.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        return rows
    }

    private static func groupRows(_ state: BrowserState, feed: String, height: Int) -> [String] {
        guard let stored = state.stored, stored.feed == feed else { return ["  reading the stored items…"] }
        let rows = state.groups
        let inWindow = stored.items(within: state.days, now: state.now).count
        let heading =
            "\(inWindow) item\(inWindow == 1 ? "" : "s") in \(rows.count) group\(rows.count == 1 ? "" : "s"), \(state.windowLabel)"
        guard !rows.isEmpty else { return [heading, "", state.filter.isEmpty ? "  no groups" : "  no group matches"] }
        let titles = rows.map { TerminalText.cut(TerminalText.sanitized($0.title), to: 40) }
        let titleWidth = titles.map { TerminalText.width($0) }.max() ?? 0
        let countWidth = rows.map { String($0.count).count }.max() ?? 1
        // The breakdown in columns: each value in its column, its counts right-aligned, whatever their widths.
        let values = Set(rows.flatMap { $0.breakdown.map(\.value) }).sorted()
        let valueWidths = values.map { value in
            rows.compactMap { row in row.breakdown.first { $0.value == value }.map { String($0.count).count } }.max()
                ?? 0
        }
        let lines = zip(rows, titles).enumerated().map { index, pair in
            let (row, title) = pair
            var text = title.padding(to: titleWidth) + "  " + right(String(row.count), countWidth)
            for (value, valueWidth) in zip(values, valueWidths) {
                let shown = TerminalText.sanitized(value)
                let count = row.breakdown.first { $0.value == value }.map { String($0.count) }
                text +=
                    "  "
                    + (count.map { shown + " " + right($0, valueWidth) }
                        ?? String(repeating: " ", count: TerminalText.width(shown) + 1 + valueWidth))
            }
            while text.hasSuffix(" ") { text.removeLast() }
            return marked("  " + text, selected: index == state.groupRow)
        }
        return [heading, ""] + visible(lines, selected: state.groupRow, height: height)
    }

    private static func itemRows(_ state: BrowserState, feed: String, height: Int) -> [String] {
        guard let stored = state.stored, stored.feed == feed else { return ["  reading the stored items…"] }
        let items = state.items
        let heading = "\(items.count) item\(items.count == 1 ? "" : "s"), newest first, \(state.windowLabel)"
        guard !items.isEmpty else { return [heading, "", state.filter.isEmpty ? "  no items" : "  no item matches"] }
        let lines = items.enumerated().map { index, item in
            marked(
                "  \(UTCTime.minute(item.date))  \(TerminalText.sanitized(item.title))",
                selected: index == state.itemRow)
        }
        let selected = items[min(state.itemRow, items.count - 1)]
        let details = selected.details.map { "\(TerminalText.sanitized($0.name)): \(TerminalText.sanitized($0.value))" }
        let footer = [
            "", details.isEmpty ? "" : "  " + details.joined(separator: "  "),
            "  " + (selected.url.map { TerminalText.sanitized($0) } ?? "no link"),
        ]
        return [heading, ""] + visible(lines, selected: state.itemRow, height: height)
            + Array(repeating: "", count: max(0, height - lines.count)) + footer
    }

    /// An item's details: its title wrapped, then its date in local time, its groups, each detail (its position among
    /// them when it has one) and its link, each value wrapped under the others.
    private static func detailRows(_ state: BrowserState, width: Int) -> [String] {
        guard let item = state.openItem else { return ["  reading the stored items…"] }
        let catalog = state.stored?.catalog ?? []
        let groups = item.groups.map { id in catalog.first { $0.id == id }?.title ?? id }
        var fields: [(name: String, value: String)] = [
            ("date", UTCTime.minute(item.date) + " UTC"),
            (groups.count == 1 ? "group" : "groups", groups.joined(separator: ", ")),
        ]
        fields += item.details.map { ($0.name, $0.value) }
        fields.append(("link", item.url ?? "none"))
        let names = fields.map { TerminalText.cut(TerminalText.sanitized($0.name), to: 20) }
        let nameWidth = names.map { TerminalText.width($0) }.max() ?? 0
        var rows = TerminalText.wrapped(TerminalText.sanitized(item.title), width: width - 2).map { "  " + $0 }
        rows.append("")
        for (name, field) in zip(names, fields) {
            let lines = TerminalText.wrapped(TerminalText.sanitized(field.value), width: width - nameWidth - 4)
            rows += lines.enumerated().map { index, line in
                "  " + (index == 0 ? name : "").padding(to: nameWidth) + "  " + line
            }
        }
        return rows
    }

    /// `text` after spaces up to `width` columns.
    private static func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// The map of the feed's items within the window, above its legend; the selected group first in the legend
    /// (marked, and its symbol on top where groups share a cell). A filter in force maps what its list shows; with no
    /// position to draw, a sentence says so above the legend.
    private static func mapRows(
        _ state: BrowserState, _ map: BrowserState.MapView, width: Int, height: Int, colour: Bool
    ) -> [String] {
        guard let stored = state.stored, stored.feed == map.feed else { return ["  reading the stored items…"] }
        var rows = stored.groups(within: state.days, now: state.now).filter { $0.count > 0 || $0.id == map.group }
        var items = stored.items(within: state.days, now: state.now)
        if !state.filter.isEmpty, case .groups = state.level {
            let kept = Set(state.groups.map(\.id))
            rows.removeAll { !kept.contains($0.id) }
        } else if !state.filter.isEmpty, case .items = state.level {
            items = state.items
            rows.removeAll { $0.id != map.group }
        }
        var ids = rows.map(\.id)
        if let index = ids.firstIndex(where: { $0 == map.group }) { ids.insert(ids.remove(at: index), at: 0) }
        let groups = WorldMap.legend(ids, of: stored, now: state.now)
        // The positions of the items of `ids`.
        func points(_ ids: Set<String>) -> [(longitude: Double, latitude: Double)] {
            items.filter { $0.groups.contains(where: ids.contains) }.compactMap(\.position).map {
                (longitude: $0.longitude, latitude: $0.latitude)
            }
        }
        var worldMap = WorldMap(columns: width, rows: 1, colour: colour)
        func legend(_ lines: ArraySlice<String>) -> [String] {
            lines.enumerated().map { index, line in marked("  " + line, selected: index == 0 && map.group != nil) }
        }
        guard !points(Set(groups.map(\.id))).isEmpty else {
            return ["  nothing to map: no item has a position (lat and lon)", ""]
                + legend(worldMap.lines(items: items, groups: groups).dropFirst())
        }
        var note: [String] = []
        if map.zoomed {
            // The box around the items of the selected group, else of the legend's groups.
            if let box = MapBox.around(points(map.group.map { [$0] } ?? Set(groups.map(\.id)))) {
                worldMap.box = box
                note = [
                    "  zoomed to \(degrees(box.south, "N", "S"))–\(degrees(box.north, "N", "S")), "
                        + "\(degrees(box.west, "E", "W"))–\(degrees(box.east, "E", "W")); z: the world"
                ]
            } else {
                note = ["  nothing to zoom to; z: the world"]
            }
        }
        worldMap.rows = min(max(height - groups.count - note.count, 1), WorldMap.maxRows)
        let lines = worldMap.lines(items: items, groups: groups)
        return lines.prefix(worldMap.rows) + legend(lines.dropFirst(worldMap.rows)) + note
    }

    /// A latitude or longitude in whole degrees with its hemisphere: `positive` north or east, `negative` south or west.
    private static func degrees(_ value: Double, _ positive: String, _ negative: String) -> String {
        let whole = Int(value.rounded())
        return whole == 0 ? "0°" : "\(abs(whole))°\(whole > 0 ? positive : negative)"
    }

    /// The rows of a list that fit in `height`, scrolled so that the selected one shows.
    private static func visible(_ lines: [String], selected: Int, height: Int) -> [String] {
        guard height > 0 else { return [] }
        let start = max(0, min(selected - height + 1, lines.count - height))
        return Array(lines.dropFirst(max(start, 0)).prefix(height))
    }

    private static func marked(_ line: String, selected: Bool) -> String {
        selected ? ">" + line.dropFirst() : line
    }
}
