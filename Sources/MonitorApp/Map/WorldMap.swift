import Foundation
import MonitorCore
import MonitorItems
import MonitorText

/// A feed's items on a world map drawn in Braille cells, with a legend: each group's symbol, title, how many of its
/// items are on the map and how many have no position.
struct WorldMap: Sendable {
    /// A group of the legend, in the order the legend lists them.
    struct Group: Sendable, Hashable {
        var id: String
        var title: String
        /// The index of its symbol and colour (`legend(_:of:now:)` gives it); nil: its place in the legend.
        var symbol: Int?
    }

    /// The legend of `ids`, in that order, with their titles in `feed`: each group keeps the symbol and colour of its
    /// place among the feed's groups that have items, whatever the days window, the filter or the legend's order, so
    /// that a group looks the same in every map of the feed. The one place a group's symbol is chosen.
    static func legend(_ ids: [String], of feed: StoredFeed, now: Date) -> [Group] {
        let all = feed.groups(within: nil, now: now)
        let places = all.filter { $0.count > 0 }.map(\.id)
        return ids.map { id in
            let title = all.first { $0.id == id }?.title ?? id
            return Group(id: id, title: title, symbol: places.firstIndex(of: id) ?? places.count)
        }
    }

    /// The map's size in character cells, the legend excluded; drawn within 1…`maxColumns` by 1…`maxRows`.
    var columns: Int
    var rows: Int
    /// The largest map drawn (a terminal or a flag may ask for more): 1,000 by 500 cells, 2 million dots.
    static let maxColumns = 1000
    static let maxRows = 500
    /// The part of the Earth shown.
    var box = MapBox.world
    /// Whether the symbols are coloured (a terminal with colour, `NO_COLOR` unset).
    var colour = false

    /// The symbols of the groups in legend order, then again from the first: plain ASCII, so that groups are told
    /// apart without colour and every symbol is one cell wide.
    static let symbols: [Character] = ["*", "+", "o", "x", "#", "@", "%", "&", "=", "$", "^", "~", "!", "?"]
    /// The SGR colours of the symbols, in the same order.
    static let colours = [31, 32, 33, 34, 35, 36, 91, 92, 93, 94, 95, 96]

    /// The symbol of the legend's group at `index`, coloured when the map is.
    func symbol(_ index: Int) -> String {
        let symbol = String(Self.symbols[index % Self.symbols.count])
        guard colour else { return symbol }
        // Bold and colour end without ending the row's other styles (a selection's reverse video).
        return "\u{1B}[1;\(Self.colours[index % Self.colours.count])m\(symbol)\u{1B}[22;39m"
    }

    /// The map of `items` (each drawn with the symbol of its first group in `groups`; an item of none of them is
    /// left out) and the legend of `groups`, as lines without trailing spaces.
    func lines(items: [Item], groups: [Group]) -> [String] {
        let columns = min(max(columns, 1), Self.maxColumns)
        let rows = min(max(rows, 1), Self.maxRows)
        var canvas = BrailleCanvas(columns: columns, rows: rows)
        drawOutlines(on: &canvas)
        let legendIndex = Dictionary(groups.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        var marks: [Int: Int] = [:]
        var placed = Array(repeating: 0, count: groups.count)
        var unplaced = Array(repeating: 0, count: groups.count)
        for item in items {
            var indices: [Int] = []
            item.eachGroupOnce { if let index = legendIndex[$0] { indices.append(index) } }
            guard let first = indices.min() else { continue }
            guard let position = item.position,
                let dot = box.dot(
                    longitude: position.longitude, latitude: position.latitude, width: canvas.width,
                    height: canvas.height)
            else {
                for index in indices { unplaced[index] += 1 }
                continue
            }
            for index in indices { placed[index] += 1 }
            // A cell shows the symbol of the first group, in legend order, among the items that fall in it.
            let cell = (dot.y / 4) * columns + dot.x / 2
            marks[cell] = min(marks[cell] ?? first, first)
        }
        var lines: [String] = []
        for row in 0..<rows {
            var line = ""
            for column in 0..<columns {
                if let mark = marks[row * columns + column] {
                    line += symbol(groups[mark].symbol ?? mark)
                } else {
                    line.append(canvas.character(column: column, row: row))
                }
            }
            while line.last == " " { line.removeLast() }
            lines.append(line)
        }
        for (index, group) in groups.enumerated() {
            let title = TerminalText.sanitized(group.title)
            lines.append(
                "\(symbol(group.symbol ?? index)) \(title): \(placed[index]) on the map, \(unplaced[index]) without a position"
            )
        }
        return lines
    }

    /// Draws the land outlines, segment by segment, leaving out the segments wholly beyond one edge of the box.
    private func drawOutlines(on canvas: inout BrailleCanvas) {
        for line in WorldOutlines.lines {
            for (from, to) in zip(line, line.dropFirst()) {
                if max(from.longitude, to.longitude) < box.west || min(from.longitude, to.longitude) > box.east
                    || max(from.latitude, to.latitude) < box.south || min(from.latitude, to.latitude) > box.north
                {
                    continue
                }
                canvas.line(
                    from: box.unclampedDot(
                        longitude: from.longitude, latitude: from.latitude, width: canvas.width, height: canvas.height),
                    to: box.unclampedDot(
                        longitude: to.longitude, latitude: to.latitude, width: canvas.width, height: canvas.height))
            }
        }
    }
}
