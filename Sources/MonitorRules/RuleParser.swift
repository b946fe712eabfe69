import Foundation
import MonitorJSON
import MonitorText

/// Reads a rule's tokens into a checked tree, by recursive descent: `or` binds loosest, then `and`, then `not`,
/// then comparisons. Fields, operators and values are checked as they are read, so every error points at its token.
struct RuleParser {
    let tokens: [RuleToken]
    /// The details items may have; nil for any.
    let details: [String]?
    var index = 0

    mutating func parse() throws(RuleError) -> RuleNode {
        let node = try disjunction()
        guard case .end = current.kind else {
            throw RuleError("expected 'and', 'or' or the end of the rule, found \(current.shown)", at: current.offset)
        }
        return node
    }

    private var current: RuleToken { tokens[index] }

    private mutating func advance() -> RuleToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private func isWord(_ word: String) -> Bool { current.kind == .word(word) }
    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private mutating func expect(_ symbol: String, _ what: String) throws(RuleError) {
        guard isSymbol(symbol) else { throw RuleError("expected \(what), found \(current.shown)", at: current.offset) }
        _ = advance()
    }

    // MARK: - and, or, not

    private mutating func disjunction() throws(RuleError) -> RuleNode {
        var parts = [try conjunction()]
        while isWord("or") {
            _ = advance()
            parts.append(try conjunction())
        }
        return parts.count == 1 ? parts[0] : .any(parts)
    }

    private mutating func conjunction() throws(RuleError) -> RuleNode {
        var parts = [try negation()]
        while isWord("and") {
            _ = advance()
            parts.append(try negation())
        }
        return parts.count == 1 ? parts[0] : .all(parts)
    }

    private mutating func negation() throws(RuleError) -> RuleNode {
        guard isWord("not") else { return try primary() }
        _ = advance()
        return .not(try negation())
    }

    private mutating func primary() throws(RuleError) -> RuleNode {
        let token = current
        switch token.kind {
        case .symbol("("):
            _ = advance()
            let inner = try disjunction()
            guard isSymbol(")") else {
                throw RuleError("expected 'and', 'or' or ')', found \(current.shown)", at: current.offset)
            }
            _ = advance()
            return inner
        case .word(let word) where !Self.keywords.contains(word):
            _ = advance()
            if isSymbol("("), word == "near" || word == "within" {
                return word == "near" ? try near() : try within()
            }
            return try comparison(of: field(word, at: token.offset), named: word, at: token.offset)
        default:
            throw RuleError(
                "expected a field, 'not', '(', near(…) or within(…), found \(token.shown)", at: token.offset)
        }
    }

    static let keywords: Set<String> = ["and", "or", "not", "in"]

    // MARK: - Fields

    private enum Field {
        case text(RuleTextField)
        case date
        case age
    }

    private func field(_ name: String, at offset: Int) throws(RuleError) -> Field {
        switch name {
        case "id": return .text(.id)
        case "title": return .text(.title)
        case "url": return .text(.url)
        case "group": return .text(.group)
        case "date": return .date
        case "age": return .age
        default:
            guard let details else { return .text(.detail(name)) }
            if details.contains(name) { return .text(.detail(name)) }
            let fields = Rule.itemFields + details
            let guess = Suggestion.closest(to: name, in: fields).map { "did you mean '\($0)'? " } ?? ""
            throw RuleError(
                "unknown field '\(name)' (\(guess)the fields are: \(fields.joined(separator: ", ")))", at: offset)
        }
    }

    // MARK: - Comparisons

    private mutating func comparison(of field: Field, named name: String, at offset: Int) throws(RuleError)
        -> RuleNode
    {
        let operatorToken = advance()
        let symbol: String
        switch operatorToken.kind {
        case .symbol(let text) where ["==", "!=", "<", "<=", ">", ">=", "~", "!~"].contains(text): symbol = text
        case .word("in"): return try membership(of: field, named: name, at: operatorToken.offset)
        default:
            throw RuleError(
                "expected an operator after '\(name)' (==, !=, <, <=, >, >=, ~, !~ or in), found \(operatorToken.shown)",
                at: operatorToken.offset)
        }
        let value = advance()
        if symbol == "~" || symbol == "!~" {
            guard case .text(let textField) = field else {
                throw RuleError("'\(symbol)' matches texts: '\(name)' is not a text", at: operatorToken.offset)
            }
            guard case .text(let pattern, let offsets) = value.kind else {
                throw RuleError(
                    "expected a regular expression in double quotes after '\(symbol)', found \(value.shown)",
                    at: value.offset)
            }
            let compiled: RulePattern
            do {
                compiled = try RulePattern(pattern)
            } catch {
                let at = error.offset < offsets.count ? offsets[error.offset] : value.offset
                throw RuleError("invalid regular expression: \(error.message)", at: at)
            }
            return .text(textField, .matches(compiled), negated: symbol == "!~")
        }
        let order = RuleOrder(rawValue: symbol)!
        switch (field, value.kind) {
        case (.text(let textField), .text(let text, _)):
            guard order == .equal || order == .notEqual else {
                throw RuleError(
                    "'\(symbol)' compares numbers, dates and durations: '\(name)' compared with a text takes "
                        + "==, !=, ~, !~ or in", at: operatorToken.offset)
            }
            return .text(textField, .equals([text]), negated: order == .notEqual)
        case (.text(.detail(let detail)), .number(let number)):
            return .number(detail, order, [number])
        case (.text, .number):
            throw RuleError(
                "cannot compare '\(name)', a text, with a number (a text is compared with a text in double quotes)",
                at: value.offset)
        case (.date, .text(let text, _)):
            return .date(order, try Self.date(text, at: value.offset))
        case (.age, .duration(let duration)):
            return .age(order, duration)
        case (_, .distance):
            throw RuleError("a distance is only used in near(LAT, LON, DISTANCE)", at: value.offset)
        case (.date, .number), (.date, .duration):
            throw RuleError(
                "cannot compare 'date' with \(value.shown): write a date in double quotes, like \"2026-01-31\"",
                at: value.offset)
        case (.age, .text), (.age, .number):
            throw RuleError(
                "cannot compare 'age' with \(value.shown): write a duration, like 2d or 90s", at: value.offset)
        case (.text, .duration):
            throw RuleError(
                "cannot compare '\(name)', a text, with a duration (only 'age' is a duration)", at: value.offset)
        default:
            throw RuleError(
                "expected a text, a number or a duration after '\(symbol)', found \(value.shown)", at: value.offset)
        }
    }

    /// `FIELD in [V, …]`: texts for a text field, numbers for a detail.
    private mutating func membership(of field: Field, named name: String, at offset: Int) throws(RuleError)
        -> RuleNode
    {
        guard case .text(let textField) = field else {
            throw RuleError("'in' lists texts or numbers: '\(name)' is compared with <, <=, >, >=", at: offset)
        }
        try expect("[", "'[' after 'in'")
        var texts: [String] = []
        var numbers: [Double] = []
        while true {
            let value = advance()
            switch value.kind {
            case .text(let text, _) where numbers.isEmpty: texts.append(text)
            case .number(let number) where texts.isEmpty:
                guard case .detail = textField else {
                    throw RuleError(
                        "cannot compare '\(name)', a text, with a number (a text is compared with a text in double "
                            + "quotes)", at: value.offset)
                }
                numbers.append(number)
            case .text, .number:
                throw RuleError("a list holds texts or numbers, not both", at: value.offset)
            default:
                throw RuleError("expected a text or a number in the list, found \(value.shown)", at: value.offset)
            }
            if isSymbol("]") {
                _ = advance()
                break
            }
            try expect(",", "',' or ']'")
        }
        if case .detail(let detail) = textField, !numbers.isEmpty { return .number(detail, .equal, numbers) }
        return .text(textField, .equals(texts), negated: false)
    }

    /// A date in a rule: `2026-01-31` (midnight UTC) or a full RFC 3339 time.
    private static func date(_ text: String, at offset: Int) throws(RuleError) -> Date {
        let full = text.count == 10 ? text + "T00:00:00Z" : text
        guard case .success(let date) = ISO8601.parse(full) else {
            throw RuleError(
                "'\(TerminalText.sanitized(text))' is not a date (write 2026-01-31 or 2026-01-31T12:00:00Z)",
                at: offset)
        }
        return date
    }

    // MARK: - near and within

    private mutating func near() throws(RuleError) -> RuleNode {
        let usage = "near(LATITUDE, LONGITUDE, DISTANCE)"
        _ = advance()
        let latitude = try coordinate(usage, range: -90...90, what: "a latitude")
        try expect(",", "',' in \(usage)")
        let longitude = try coordinate(usage, range: -180...180, what: "a longitude")
        try expect(",", "',' in \(usage)")
        let distance = advance()
        guard case .distance(let kilometres) = distance.kind, kilometres >= 0 else {
            let hint = if case .number = distance.kind { " (add a unit: km or mi)" } else { "" }
            throw RuleError(
                "expected a distance like 500km or 30mi in \(usage), found \(distance.shown)\(hint)",
                at: distance.offset)
        }
        try expect(")", "')' after the distance")
        return .near(latitude: latitude, longitude: longitude, kilometres: kilometres)
    }

    private mutating func within() throws(RuleError) -> RuleNode {
        let usage = "within(SOUTH, WEST, NORTH, EAST)"
        _ = advance()
        let southToken = current
        let south = try coordinate(usage, range: -90...90, what: "a latitude")
        try expect(",", "',' in \(usage)")
        let west = try coordinate(usage, range: -180...180, what: "a longitude")
        try expect(",", "',' in \(usage)")
        let north = try coordinate(usage, range: -90...90, what: "a latitude")
        try expect(",", "',' in \(usage)")
        let east = try coordinate(usage, range: -180...180, what: "a longitude")
        try expect(")", "')' after the east longitude")
        guard south <= north else {
            throw RuleError(
                "in \(usage) the south (\(Self.shown(south))) is north of the north (\(Self.shown(north)))",
                at: southToken.offset)
        }
        return .within(south: south, west: west, north: north, east: east)
    }

    private mutating func coordinate(_ usage: String, range: ClosedRange<Double>, what: String) throws(RuleError)
        -> Double
    {
        let token = advance()
        guard case .number(let value) = token.kind else {
            throw RuleError("expected \(what) in degrees in \(usage), found \(token.shown)", at: token.offset)
        }
        guard range.contains(value) else {
            throw RuleError(
                "\(what) is from \(Int(range.lowerBound)) to \(Int(range.upperBound)) degrees, not \(Self.shown(value))",
                at: token.offset)
        }
        return value
    }

    /// A number as a message shows it: `95`, `-12.5`.
    static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
