import MonitorText

/// A problem in a rule (`where:`), at the offset of the offending token inside the rule's text.
package struct RuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in one sentence without a trailing period.
    package var message: String
    /// The offset, in characters from 0, of the token it is about.
    package var offset: Int

    init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }

    package var description: String { "column \(offset + 1): \(message)" }
}

extension RuleError {
    /// The diagnostic of this error in the rule `text`, which starts at `start` and may span lines (a command-line
    /// argument).
    package func diagnostic(in text: String, startingAt start: SourceLocation) -> Diagnostic {
        let before = text.prefix(offset)
        guard let lastBreak = before.lastIndex(of: "\n") else { return diagnostic(startingAt: start) }
        let line = start.line + before.count { $0 == "\n" }
        let column = before.distance(from: lastBreak, to: before.endIndex)
        return .error(message, at: SourceLocation(line: line, column: column))
    }

    /// The diagnostic of this error in a rule that starts at `start` of a file, on one line.
    func diagnostic(startingAt start: SourceLocation) -> Diagnostic {
        .error(message, at: SourceLocation(line: start.line, column: start.column + offset))
    }
}
