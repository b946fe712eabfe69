import MonitorOptions
import MonitorRules
import MonitorText

// MARK: - The rules of `where:`

extension ConfigValidator {
    /// The problem of the rule in `where:` among `entries`, if any, at the line and column of its token in the file.
    func ruleProblems(in entries: [ConfigEntry], options: FeedOptions, details: [String]?) -> [Diagnostic] {
        guard let text = options.string(FeedConfig.rule.name), let entry = entries.first(where: { $0.key == "where" })
        else { return [] }
        do {
            _ = try Rule(text, details: details)
            return []
        } catch {
            return [.error(error.message, at: location(of: error.offset, in: entry.value, text: text))]
        }
    }

    /// The details a notifier's rule may name: those of the sources of the feeds it is told about (`feeds`, else
    /// every feed); nil (any) when one of them does not declare its details.
    static func details(of feeds: [String]?, sources: [String: any FeedSource.Type]) -> [String]? {
        var names: [String] = []
        for (feed, source) in sources.sorted(by: { $0.key < $1.key }) where feeds?.contains(feed) ?? true {
            guard let details = source.detailNames else { return nil }
            for name in details where !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// Where the character at `offset` of a rule written as the scalar `value` stands in the file.
    ///
    /// Exact for a scalar on one line, plain or quoted (a quoted one's escapes, `\"` or `''`, counted as written),
    /// and for a literal block (`|`), line by line. A plain scalar folded over several lines, a folded block (`>`),
    /// and a rule changed by `${VAR}` point at the start of the value.
    func location(of offset: Int, in value: ConfigValue, text: String) -> SourceLocation {
        guard case .scalar(let raw, let style) = value.content, raw == text else { return value.location }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard value.location.line >= 1, value.location.line <= lines.count else { return value.location }
        let line = Array(lines[value.location.line - 1])
        let start = value.location.column - 1
        guard start >= 0, start < line.count else { return value.location }
        let characters = Array(text)
        switch style {
        case .plain:
            // The text up to the offending character is on the value's line, as written.
            let end = min(offset + 1, characters.count)
            guard start + end <= line.count, Array(line[start..<start + end]) == Array(characters[..<end]) else {
                return value.location
            }
            return SourceLocation(line: value.location.line, column: value.location.column + offset)
        case .quoted:
            let quote = line[start]
            var column = start + 1
            for index in 0..<offset {
                guard column < line.count, index < characters.count else { return value.location }
                if quote == "'" {
                    column += line[column] == "'" ? 2 : 1
                } else if line[column] == "\\", column + 1 < line.count {
                    switch line[column + 1] {
                    case "x": column += 4
                    case "u": column += 6
                    case "U": column += 10
                    default: column += 2
                    }
                } else {
                    column += 1
                }
            }
            guard column < line.count else { return value.location }
            return SourceLocation(line: value.location.line, column: column + 1)
        case .block:
            guard line[start] == "|" else { return value.location }
            let before = characters[..<min(offset, characters.count)]
            let lineIndex = before.count { $0 == "\n" }
            let column = before.count - (before.lastIndex(of: "\n").map { $0 + 1 } ?? 0)
            let textLines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let fileLine = value.location.line + 1 + lineIndex
            guard fileLine <= lines.count, lineIndex < textLines.count else { return value.location }
            // The block's indentation is that of its first line that is not empty.
            guard let first = lines[value.location.line...].first(where: { !$0.allSatisfy { $0 == " " } }) else {
                return value.location
            }
            let indentation = first.prefix { $0 == " " }.count
            let written = lines[fileLine - 1]
            guard written.dropFirst(indentation) == textLines[lineIndex] else { return value.location }
            return SourceLocation(line: fileLine, column: indentation + column + 1)
        }
    }
}
