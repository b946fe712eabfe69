extension TerminalText {
    /// The cells `text` takes on a terminal: wide (East Asian) characters and emoji 2, combining marks and other
    /// zero-width characters 0, the rest 1; the style sequences a view adds (`ESC [ … m`) none. The one measure of
    /// text on a screen: cutting, padding and wrapping use it.
    package static func width(_ text: String) -> Int {
        // Printable ASCII (nearly always): a cell a byte.
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        }
        if ascii == true { return text.utf8.count }
        var style = false
        return text.reduce(0) { $0 + cells($1, inStyle: &style) }
    }

    /// The cells of `character` in running text: none within a style sequence (`ESC [ … m`, which `inStyle` follows).
    private static func cells(_ character: Character, inStyle style: inout Bool) -> Int {
        if character == "\u{1B}" || style {
            style = character != "m"
            return 0
        }
        return width(character)
    }

    /// The cells of one character (a grapheme: a letter and its combining marks take the letter's cells).
    package static func width(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first(where: { !isZeroWidth($0) }) else { return 0 }
        return isWide(first) ? 2 : 1
    }

    /// `text` cut to `width` cells, with `…` where it was cut (a wide character that does not fit whole is left out);
    /// styles it had are ended after the `…`.
    package static func cut(_ text: String, to width: Int) -> String {
        guard Self.width(text) > width else { return text }
        guard width > 0 else { return "" }
        var output = ""
        var used = 0
        var style = false
        for character in text {
            let cells = cells(character, inStyle: &style)
            if used + cells > width - 1 { break }
            output.append(character)
            used += cells
        }
        return output + "…" + (output.contains("\u{1B}") ? "\u{1B}[0m" : "")
    }

    /// `text` in lines of at most `width` cells, broken at spaces; a word longer than a line is broken where the line
    /// ends. Never empty: an empty text is one empty line.
    package static func wrapped(_ text: String, width: Int) -> [String] {
        let width = max(width, 1)
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let cells = Self.width(String(word))
            if used > 0, used + 1 + cells <= width {
                line += " " + word
                used += 1 + cells
                continue
            }
            if used > 0 {
                lines.append(line)
                line = ""
                used = 0
            }
            for character in word {
                let characterCells = Self.width(character)
                if used + characterCells > width, used > 0 {
                    lines.append(line)
                    line = ""
                    used = 0
                }
                line.append(character)
                used += characterCells
            }
        }
        lines.append(line)
        return lines
    }

    /// Combining marks (variation selectors among them) and format characters (zero-width joiner and space).
    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: true
        default: false
        }
    }

    /// East Asian wide and fullwidth characters, and emoji shown as pictures, as terminals draw them (the ranges of
    /// glibc's `wcwidth`).
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x1100 { return false }
        if scalar.properties.isEmojiPresentation { return true }
        return wideRanges.contains { $0.contains(scalar.value) }
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
