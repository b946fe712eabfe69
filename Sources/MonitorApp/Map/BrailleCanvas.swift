/// A grid of character cells, each 2 dots wide and 4 high, written as Braille patterns (U+2800 plus a bit per dot).
struct BrailleCanvas: Sendable {
    let columns: Int
    let rows: Int
    /// The dot bits of each cell, row by row.
    private var cells: [UInt8]

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: 0, count: columns * rows)
    }

    /// The canvas's size in dots.
    var width: Int { columns * 2 }
    var height: Int { rows * 4 }

    /// The bit of the dot at column `x` (0 or 1) and row `y` (0…3) of a cell: dots 1, 2, 3, 7 down the left, 4, 5, 6,
    /// 8 down the right, as Unicode numbers them.
    private static let bits: [[UInt8]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]

    /// Sets the dot at `x`, `y`; a dot off the canvas is ignored.
    mutating func set(x: Int, y: Int) {
        guard (0..<width).contains(x), (0..<height).contains(y) else { return }
        cells[(y / 4) * columns + x / 2] |= Self.bits[x % 2][y % 4]
    }

    /// Sets the dots of the line from one dot to the other (both included), by Bresenham's algorithm.
    mutating func line(from start: (x: Int, y: Int), to end: (x: Int, y: Int)) {
        let dx = abs(end.x - start.x)
        let dy = -abs(end.y - start.y)
        let stepX = start.x < end.x ? 1 : -1
        let stepY = start.y < end.y ? 1 : -1
        var error = dx + dy
        var (x, y) = start
        while true {
            set(x: x, y: y)
            if x == end.x && y == end.y { return }
            let twice = 2 * error
            if twice >= dy {
                error += dy
                x += stepX
            }
            if twice <= dx {
                error += dx
                y += stepY
            }
        }
    }

    /// The character of the cell at `column`, `row`: its Braille pattern, a space when no dot is set.
    func character(column: Int, row: Int) -> Character {
        let bits = cells[row * columns + column]
        guard bits != 0 else { return " " }
        return Character(Unicode.Scalar(0x2800 + UInt32(bits))!)
    }
}
