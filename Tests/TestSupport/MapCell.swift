/// Where `monitor map` must draw a point, computed from the projection's formula rather than by its code: on a map of
/// `box` (the world unless told) `columns`×`rows` cells of 2×4 dots, longitude west…east across and latitude
/// north…south down, each evenly, the east and south edges in the last dot.
package enum MapCell {
    package static func of(
        latitude: Double, longitude: Double, columns: Int, rows: Int,
        box: (west: Double, south: Double, east: Double, north: Double) = (-180, -90, 180, 90)
    ) -> (column: Int, row: Int) {
        let across = (longitude - box.west) / (box.east - box.west)
        let down = (box.north - latitude) / (box.north - box.south)
        let x = min(Int((across * Double(columns * 2)).rounded(.down)), columns * 2 - 1)
        let y = min(Int((down * Double(rows * 4)).rounded(.down)), rows * 4 - 1)
        return (x / 2, y / 4)
    }

    /// The cells of `lines` (the first `rows` of them) holding one of `symbols`, by symbol, in reading order.
    package static func marks(_ lines: [Substring], rows: Int, symbols: Set<Character>) -> [Character:
        [MapCellPosition]]
    {
        var marks: [Character: [MapCellPosition]] = [:]
        for (row, line) in lines.prefix(rows).enumerated() {
            for (column, character) in line.enumerated() where symbols.contains(character) {
                marks[character, default: []].append(MapCellPosition(column: column, row: row))
            }
        }
        return marks
    }
}

/// A cell of a map: its column and row from 0.
package struct MapCellPosition: Hashable, Sendable, CustomStringConvertible {
    package var column: Int
    package var row: Int

    package init(column: Int, row: Int) {
        self.column = column
        self.row = row
    }

    package var description: String { "(\(column), \(row))" }
}
