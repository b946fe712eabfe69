import MonitorText

/// One token of a rule, with the offset (in characters) where it starts.
struct RuleToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// A field name, a function name or one of the words `and`, `or`, `not`, `in`.
        case word(String)
        /// A text in double quotes, unescaped; `offsets` holds the offset in the rule of each of its characters.
        case text(String, offsets: [Int])
        case number(Double)
        case duration(Duration)
        /// A distance in kilometres (written in `km` or `mi`).
        case distance(Double)
        /// `==`, `!=`, `<`, `<=`, `>`, `>=`, `~`, `!~`, `(`, `)`, `[`, `]` or `,`.
        case symbol(String)
        case end
    }

    var kind: Kind
    var offset: Int

    /// The token as a message names it: `'title'`, `a text`, `the end of the rule`.
    var shown: String {
        switch kind {
        case .word(let word): "'\(word)'"
        case .text: "a text"
        case .number: "a number"
        case .duration: "a duration"
        case .distance: "a distance"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end of the rule"
        }
    }
}

/// Splits a rule into tokens; an unknown character, an unclosed text or a number with an unknown unit is an error.
enum RuleLexer {
    /// The longest rule accepted, in characters.
    static let maximumLength = 4096

    static func tokens(_ rule: String) throws(RuleError) -> [RuleToken] {
        let characters = Array(rule)
        guard characters.count <= maximumLength else {
            throw RuleError("the rule is too long (\(characters.count) characters, at most \(maximumLength))", at: 0)
        }
        var tokens: [RuleToken] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let start = index
            if character == " " || character == "\t" || character == "\n" || character == "\r" {
                index += 1
            } else if character.isASCII, character.isLetter || character == "_" {
                while index < characters.count, characters[index].isASCII,
                    characters[index].isLetter || characters[index].isNumber || characters[index] == "_"
                {
                    index += 1
                }
                tokens.append(RuleToken(kind: .word(String(characters[start..<index])), offset: start))
            } else if character == "\"" {
                tokens.append(try text(characters, at: &index))
            } else if character.isASCII && character.isNumber
                || (character == "-" || character == "+") && index + 1 < characters.count
                    && characters[index + 1].isASCII && characters[index + 1].isNumber
            {
                tokens.append(try number(characters, at: &index))
            } else if let symbol = ["==", "!=", "<=", ">=", "!~"].first(where: { characters[index...].starts(with: $0) }
            ) {
                tokens.append(RuleToken(kind: .symbol(symbol), offset: start))
                index += 2
            } else if "<>~()[],".contains(character) {
                tokens.append(RuleToken(kind: .symbol(String(character)), offset: start))
                index += 1
            } else if character == "=" {
                throw RuleError("'=' is not an operator: write '==' to compare", at: start)
            } else if character == "'" {
                throw RuleError("texts are written in double quotes (\"…\"), not single quotes", at: start)
            } else {
                let shown = TerminalText.sanitized(String(character))
                throw RuleError("unexpected character '\(shown)'", at: start)
            }
        }
        tokens.append(RuleToken(kind: .end, offset: characters.count))
        return tokens
    }

    /// A text in double quotes starting at `index`; `\"` stands for `"` and `\\` for `\`.
    private static func text(_ characters: [Character], at index: inout Int) throws(RuleError) -> RuleToken {
        let start = index
        index += 1
        var value = ""
        var offsets: [Int] = []
        while index < characters.count {
            let character = characters[index]
            if character == "\"" {
                index += 1
                return RuleToken(kind: .text(value, offsets: offsets), offset: start)
            }
            if character == "\\" {
                guard index + 1 < characters.count, characters[index + 1] == "\"" || characters[index + 1] == "\\"
                else {
                    throw RuleError(
                        "a backslash in a text must be followed by '\"' or '\\' (write '\\\\' for one backslash)",
                        at: index)
                }
                offsets.append(index)
                value.append(characters[index + 1])
                index += 2
                continue
            }
            offsets.append(index)
            value.append(character)
            index += 1
        }
        throw RuleError("this text is not closed by '\"'", at: start)
    }

    /// A number, a duration (`90s`, `1h30m`) or a distance (`500km`, `2.5mi`) starting at `index`.
    private static func number(_ characters: [Character], at index: inout Int) throws(RuleError) -> RuleToken {
        let start = index
        var end = index + 1
        func isDigit(_ at: Int) -> Bool { at < characters.count && characters[at].isASCII && characters[at].isNumber }
        while isDigit(end) { end += 1 }
        if end < characters.count, characters[end] == ".", isDigit(end + 1) {
            end += 1
            while isDigit(end) { end += 1 }
        }
        let digits = String(characters[start..<end])
        // Letters and digits after the number make its unit (a duration may hold several: `1h30m`).
        var unitEnd = end
        while unitEnd < characters.count, characters[unitEnd].isASCII,
            characters[unitEnd].isLetter || characters[unitEnd].isNumber
        {
            unitEnd += 1
        }
        index = unitEnd
        guard let value = Double(digits) else { throw RuleError("'\(digits)' is not a number", at: start) }
        let unit = String(characters[end..<unitEnd])
        switch unit {
        case "": return RuleToken(kind: .number(value), offset: start)
        case "km": return RuleToken(kind: .distance(value), offset: start)
        case "mi": return RuleToken(kind: .distance(value * 1.609344), offset: start)
        default:
            let written = digits + unit
            if !digits.hasPrefix("-"), !digits.hasPrefix("+"), !digits.contains("."),
                let duration = DurationFormat.parse(written)
            {
                return RuleToken(kind: .duration(duration), offset: start)
            }
            throw RuleError(
                "'\(TerminalText.sanitized(written))' is neither a number, a duration (like 90s, 15m, 2d) "
                    + "nor a distance (like 500km, 30mi)", at: start)
        }
    }
}
