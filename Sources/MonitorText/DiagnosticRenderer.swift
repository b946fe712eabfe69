/// Renders diagnostics the way compilers do: `PATH:LINE:COL: error: MESSAGE`, the source line, and a caret.
package struct DiagnosticRenderer: Sendable {
    /// The file name shown in front of every diagnostic.
    var path: String
    /// The text of the file, for the quoted source lines.
    var source: String
    /// Whether to colour `error:` and the caret with ANSI escapes.
    var colors: Bool
    /// Places of secret values (tokens): masked with `*` wherever a source line is quoted.
    package var secrets: [SourceSpan] = []

    /// A renderer for diagnostics of `source`, read from `path`.
    package init(path: String, source: String, colors: Bool = false) {
        self.path = path
        self.source = source
        self.colors = colors
    }

    /// Every diagnostic, sorted by position, each followed by its source line and caret, then a count.
    package func render(_ diagnostics: [Diagnostic]) -> String {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        var output = ""
        for diagnostic in sorted(diagnostics) {
            output += render(diagnostic, lines: lines)
        }
        let errors = diagnostics.count
        if errors > 0 {
            output += "\(errors) error\(errors == 1 ? "" : "s") in \(path)\n"
        }
        return output
    }

    /// The diagnostics in the order they are shown: by position, file-wide ones first.
    func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.enumerated().sorted { left, right in
            switch (left.element.location, right.element.location) {
            case let (l?, r?) where l != r: return l < r
            case (nil, _?): return true
            case (_?, nil): return false
            default: return left.offset < right.offset
            }
        }.map(\.element)
    }

    /// `line` with every secret on it replaced by `*`, character for character, so the caret still lines up.
    private func masked(_ line: String, number: Int) -> String {
        var characters = Array(line)
        for span in secrets where span.line == number {
            let start = max(0, span.column - 1)
            for index in start..<min(characters.count, start + span.length) where characters[index] != "\t" {
                characters[index] = "*"
            }
        }
        return String(characters)
    }

    private func render(_ diagnostic: Diagnostic, lines: [Substring]) -> String {
        let severity = "error:"
        let label = colors ? "\u{1B}[1;31m\(severity)\u{1B}[0m" : severity
        guard let location = diagnostic.location else {
            return "\(path): \(label) \(diagnostic.message)\n"
        }
        var output = "\(path):\(location.line):\(location.column): \(label) \(diagnostic.message)\n"
        guard location.line >= 1, location.line <= lines.count else { return output }
        var line = String(lines[location.line - 1])
        if line.hasSuffix("\r") { line.removeLast() }
        line = masked(line, number: location.line)
        // Control characters (an escape sequence in the file) become U+FFFD, one for one, so the line cannot
        // drive the terminal and the caret still lines up; tabs stay, and so does the caret under them.
        let shown = String(
            String.UnicodeScalarView(
                line.unicodeScalars.map { scalar in
                    scalar == "\t" || !TerminalText.isControl(scalar)
                        ? scalar : "\u{FFFD}"
                }))
        output += shown + "\n"
        let prefix = shown.prefix(max(0, location.column - 1)).map { $0 == "\t" ? "\t" : " " }.joined()
        let caret = colors ? "\u{1B}[1;32m^\u{1B}[0m" : "^"
        output += prefix + caret + "\n"
        return output
    }
}

/// A stretch of one line of a configuration file.
package struct SourceSpan: Sendable, Hashable {
    /// The line, from 1.
    var line: Int
    /// The first column, from 1.
    var column: Int
    /// How many characters.
    var length: Int

    package init(line: Int, column: Int, length: Int) {
        self.line = line
        self.column = column
        self.length = length
    }
}
