import Foundation
import MonitorText

/// A regular expression of a rule (`title ~ "…"`), matched in time linear in the text: a Thompson NFA run as a
/// Pike VM (every thread advances one character at a time; no backtracking, so no pattern takes exponential time).
///
/// The subset: literal characters, `.` (any character but a line break), classes `[abc]`, `[^a-z]`, `\d \w \s`
/// and their negations `\D \W \S`, `\` before any other punctuation for itself, `\n`, `\t`, anchors `^` and `$`
/// (start and end of the text), groups `( )` and `(?: )`, `|`, the greedy quantifiers `* + ? {m} {m,} {m,n}`, and
/// `(?i)` at the start for a match that ignores case. No backreferences, lookaround or lazy quantifiers. The pattern
/// and the text are read composed (NFC), so that canonically equivalent texts match alike, as they are equal for `==`.
struct RulePattern: Sendable, Hashable {
    /// The longest pattern accepted, in characters.
    static let maximumLength = 1000
    /// The most steps a compiled pattern may have (a counted repetition repeats its part; a class counts one step per
    /// member, as each is tried in turn).
    static let maximumSteps = 10_000
    /// The most steps one match may take, all threads together: past it the match gives up, too costly. A pattern of a
    /// few dozen steps never comes near it on a text a rule reads (``RuleTextField/maximumLength``).
    static let maximumWork = 2_000_000
    /// The largest count in `{m,n}`.
    static let maximumCount = 1000

    /// The compiled program.
    private let steps: [Step]
    /// What taking each step costs: the members of a class, else 1.
    private let costs: [Int]
    private let ignoresCase: Bool

    /// The pattern `text`; an error's offset is in characters within `text`.
    init(_ text: String) throws(RuleError) {
        let text = text.precomposedStringWithCanonicalMapping
        var scalars = Array(text.unicodeScalars)
        guard text.count <= Self.maximumLength else {
            throw RuleError(
                "the regular expression is too long (\(text.count) characters, at most \(Self.maximumLength))", at: 0)
        }
        var ignoresCase = false
        var skipped = 0
        if scalars.starts(with: Array("(?i)".unicodeScalars)) {
            ignoresCase = true
            scalars.removeFirst(4)
            skipped = 4
        }
        var parser = PatternParser(scalars: scalars, ignoresCase: ignoresCase)
        let node: PatternNode
        do {
            node = try parser.parse()
        } catch {
            // The parser counts in scalars; the error points at the character.
            let scalarOffset = error.offset + skipped
            let before = String(String.UnicodeScalarView(Array(text.unicodeScalars).prefix(scalarOffset)))
            throw RuleError(error.message, at: before.count)
        }
        var compiler = PatternCompiler()
        compiler.emit(node)
        compiler.steps.append(.match)
        let costs = compiler.steps.map(\.cost)
        guard costs.reduce(0, +) <= Self.maximumSteps else {
            throw RuleError(
                "the regular expression is too large: more than \(Self.maximumSteps) steps once its repetitions are "
                    + "written out and each member of a class is counted", at: 0)
        }
        self.steps = compiler.steps
        self.costs = costs
        self.ignoresCase = ignoresCase
    }

    /// Whether the pattern matches anywhere in `text`; nil when telling would take more than ``maximumWork`` steps, or
    /// the task is cancelled.
    func matches(_ text: String) -> Bool? {
        var current = ThreadList(capacity: steps.count)
        var next = ThreadList(capacity: steps.count)
        let scalars = (TerminalText.isPrintableASCII(text) ? text : text.precomposedStringWithCanonicalMapping)
            .unicodeScalars
        var index = scalars.startIndex
        var atStart = true
        var work = 0
        var read = 0
        while true {
            // A poll being cancelled (the run stopping) ends its rules too: asked every 1,024 characters.
            if read & 1023 == 0, Task.isCancelled { return nil }
            read += 1
            let atEnd = index == scalars.endIndex
            // A match may start at every position: a new thread joins those already running.
            if add(0, to: &current, atStart: atStart, atEnd: atEnd) { return true }
            if atEnd { return false }
            var scalar = scalars[index]
            if ignoresCase { scalar = Self.folded(scalar) }
            next.clear()
            for pc in current.members {
                work += costs[pc]
                if work > Self.maximumWork { return nil }
                let advances: Bool
                switch steps[pc] {
                case .scalar(let expected): advances = scalar == expected
                case .any: advances = scalar != "\n"
                case .set(let set): advances = set.contains(scalar)
                default: advances = false
                }
                if advances,
                    add(pc + 1, to: &next, atStart: false, atEnd: scalars.index(after: index) == scalars.endIndex)
                {
                    return true
                }
            }
            swap(&current, &next)
            index = scalars.index(after: index)
            atStart = false
        }
    }

    /// Adds the thread at `pc` and those its jumps lead to; true when one of them reaches the match.
    private func add(_ pc: Int, to list: inout ThreadList, atStart: Bool, atEnd: Bool) -> Bool {
        var stack = [pc]
        while let pc = stack.popLast() {
            guard list.insert(pc) else { continue }
            switch steps[pc] {
            case .match: return true
            case .jump(let target): stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .start: if atStart { stack.append(pc + 1) }
            case .end: if atEnd { stack.append(pc + 1) }
            case .scalar, .any, .set: break
            }
        }
        return false
    }

    /// `scalar` in lower case, when that is one scalar.
    static func folded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
        }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first! : scalar
    }

    /// One step of the compiled program.
    enum Step: Sendable, Hashable {
        case scalar(Unicode.Scalar)
        case any
        case set(ScalarSet)
        case split(Int, Int)
        case jump(Int)
        case start
        case end
        case match

        var cost: Int {
            if case .set(let set) = self { max(1, set.members.count) } else { 1 }
        }
    }
}

/// The threads of one position: each step at most once, in the order added.
private struct ThreadList {
    private(set) var members: [Int] = []
    private var present: [Bool]

    init(capacity: Int) {
        present = [Bool](repeating: false, count: capacity)
        members.reserveCapacity(capacity)
    }

    /// Adds `pc`; false when it was there.
    mutating func insert(_ pc: Int) -> Bool {
        if present[pc] { return false }
        present[pc] = true
        members.append(pc)
        return true
    }

    mutating func clear() {
        for pc in members { present[pc] = false }
        members.removeAll(keepingCapacity: true)
    }
}

/// The characters of a class: `[a-z\d]`, `\w`, negated or not.
struct ScalarSet: Sendable, Hashable {
    enum Member: Sendable, Hashable {
        case range(Unicode.Scalar, Unicode.Scalar)
        case digit(negated: Bool)
        case word(negated: Bool)
        case space(negated: Bool)
    }

    var members: [Member]
    var negated: Bool

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let found = members.contains { member in
            switch member {
            case .range(let low, let high): low <= scalar && scalar <= high
            case .digit(let negated): Self.isDigit(scalar) != negated
            case .word(let negated): (Self.isDigit(scalar) || Self.isLetter(scalar) || scalar == "_") != negated
            case .space(let negated): [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"].contains(scalar) != negated
            }
        }
        return found != negated
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}

/// A parsed pattern.
private indirect enum PatternNode {
    case scalar(Unicode.Scalar)
    case any
    case set(ScalarSet)
    case start
    case end
    case sequence([PatternNode])
    case alternatives([PatternNode])
    case repeated(PatternNode, minimum: Int, maximum: Int?)
}

/// Reads a pattern, by recursive descent; an error's offset counts scalars.
private struct PatternParser {
    let scalars: [Unicode.Scalar]
    let ignoresCase: Bool
    var index = 0
    var depth = 0

    mutating func parse() throws(RuleError) -> PatternNode {
        let node = try alternatives()
        if index < scalars.count {
            throw RuleError("unmatched ')' in the regular expression", at: index)
        }
        return node
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func alternatives() throws(RuleError) -> PatternNode {
        var branches = [try sequence()]
        while peek == "|" {
            index += 1
            branches.append(try sequence())
        }
        return branches.count == 1 ? branches[0] : .alternatives(branches)
    }

    private mutating func sequence() throws(RuleError) -> PatternNode {
        var parts: [PatternNode] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            parts.append(try repeated())
        }
        return .sequence(parts)
    }

    private mutating func repeated() throws(RuleError) -> PatternNode {
        let node = try atom()
        guard let bounds = try quantifier() else { return node }
        if case .start = node { throw RuleError("'^' cannot be repeated", at: bounds.at) }
        if case .end = node { throw RuleError("'$' cannot be repeated", at: bounds.at) }
        // A `{` that does not start `{m,n}` is a literal.
        let next = index
        if try quantifier() != nil {
            throw RuleError(
                "a quantifier cannot follow another (lazy and possessive quantifiers are not supported)", at: next)
        }
        return .repeated(node, minimum: bounds.minimum, maximum: bounds.maximum)
    }

    private mutating func quantifier() throws(RuleError) -> (minimum: Int, maximum: Int?, at: Int)? {
        let start = index
        switch peek {
        case let sign? where "*+?".unicodeScalars.contains(sign):
            index += 1
            return (sign == "+" ? 1 : 0, sign == "?" ? 1 : nil, start)
        case "{":
            index += 1
            guard let minimum = count() else {
                index = start
                return nil
            }
            var maximum: Int? = minimum
            if peek == "," {
                index += 1
                maximum = peek == "}" ? nil : count()
                if maximum == nil && peek != "}" {
                    index = start
                    return nil
                }
            }
            guard peek == "}" else {
                index = start
                return nil
            }
            index += 1
            if let maximum, maximum < minimum {
                throw RuleError("in {\(minimum),\(maximum)} the maximum is smaller than the minimum", at: start)
            }
            if max(minimum, maximum ?? 0) > RulePattern.maximumCount {
                throw RuleError("a count in {m,n} is at most \(RulePattern.maximumCount)", at: start)
            }
            return (minimum, maximum, start)
        default:
            return nil
        }
    }

    private mutating func count() -> Int? {
        var digits = ""
        while let scalar = peek, ("0"..."9").contains(scalar), digits.count < 6 {
            digits.unicodeScalars.append(scalar)
            index += 1
        }
        return Int(digits)
    }

    private mutating func atom() throws(RuleError) -> PatternNode {
        let start = index
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case ".": return .any
        case "^": return .start
        case "$": return .end
        case "*", "+", "?":
            throw RuleError("'\(scalar)' has nothing to repeat", at: start)
        case "(":
            if scalars[index...].starts(with: Array("?:".unicodeScalars)) {
                index += 2
            } else if peek == "?" {
                throw RuleError(
                    "only (?:…) groups and (?i) at the start are supported (no lookaround, named groups or flags)",
                    at: start)
            }
            depth += 1
            guard depth <= 100 else { throw RuleError("groups are nested too deeply (at most 100)", at: start) }
            let inner = try alternatives()
            guard peek == ")" else { throw RuleError("'(' is not closed by ')'", at: start) }
            index += 1
            depth -= 1
            return inner
        case "[":
            return .set(try set(start: start))
        case "\\":
            guard let escaped = peek else {
                throw RuleError("the regular expression ends with a lone '\\'", at: start)
            }
            index += 1
            if let member = Self.classEscape(escaped) { return .set(ScalarSet(members: [member], negated: false)) }
            if let value = Self.literalEscape(escaped) { return literal(value) }
            throw RuleError("'\\\(escaped)' is not supported (no backreferences or word boundaries)", at: start)
        default:
            return literal(scalar)
        }
    }

    private func literal(_ scalar: Unicode.Scalar) -> PatternNode {
        .scalar(ignoresCase ? RulePattern.folded(scalar) : scalar)
    }

    private static func classEscape(_ scalar: Unicode.Scalar) -> ScalarSet.Member? {
        switch scalar {
        case "d": .digit(negated: false)
        case "D": .digit(negated: true)
        case "w": .word(negated: false)
        case "W": .word(negated: true)
        case "s": .space(negated: false)
        case "S": .space(negated: true)
        default: nil
        }
    }

    /// The character an escape stands for (`\n`, `\t`, `\.`); nil for a letter, a digit or a scalar beyond ASCII.
    private static func literalEscape(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar {
        case "n": "\n"
        case "t": "\t"
        case "r": "\r"
        case _
        where !scalar.isASCII || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            || ("0"..."9").contains(scalar):
            nil
        default: scalar
        }
    }

    private mutating func set(start: Int) throws(RuleError) -> ScalarSet {
        var set = ScalarSet(members: [], negated: false)
        if peek == "^" {
            set.negated = true
            index += 1
        }
        var first = true
        while let scalar = peek, scalar != "]" || first {
            first = false
            let at = index
            index += 1
            var low = scalar
            if scalar == "\\" {
                guard let escaped = peek else { break }
                index += 1
                if let member = Self.classEscape(escaped) {
                    set.members.append(member)
                    continue
                }
                low = Self.literalEscape(escaped) ?? escaped
            }
            if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                var high = scalars[index]
                index += 1
                if high == "\\", let escaped = peek {
                    index += 1
                    high = escaped
                }
                guard low <= high else { throw RuleError("the range in this class runs backwards", at: at) }
                append(low, high, to: &set)
            } else {
                append(low, low, to: &set)
            }
        }
        guard peek == "]" else { throw RuleError("'[' is not closed by ']'", at: start) }
        index += 1
        return set
    }

    /// Adds a range; ignoring case, a range of letters also adds the other case.
    private func append(_ low: Unicode.Scalar, _ high: Unicode.Scalar, to set: inout ScalarSet) {
        set.members.append(.range(low, high))
        guard ignoresCase else { return }
        let foldedLow = RulePattern.folded(low)
        let foldedHigh = RulePattern.folded(high)
        if foldedLow != low || foldedHigh != high, foldedLow <= foldedHigh {
            set.members.append(.range(foldedLow, foldedHigh))
        }
    }
}

/// Writes a parsed pattern out as steps.
private struct PatternCompiler {
    var steps: [RulePattern.Step] = []

    mutating func emit(_ node: PatternNode) {
        // Far past the limit there is no need to go on: the caller reports the size.
        guard steps.count <= RulePattern.maximumSteps else { return }
        switch node {
        case .scalar(let scalar): steps.append(.scalar(scalar))
        case .any: steps.append(.any)
        case .set(let set): steps.append(.set(set))
        case .start: steps.append(.start)
        case .end: steps.append(.end)
        case .sequence(let parts): for part in parts { emit(part) }
        case .alternatives(let branches):
            var jumps: [Int] = []
            for (number, branch) in branches.enumerated() {
                if number < branches.count - 1 {
                    let split = steps.count
                    steps.append(.split(split + 1, 0))
                    emit(branch)
                    jumps.append(steps.count)
                    steps.append(.jump(0))
                    steps[split] = .split(split + 1, steps.count)
                } else {
                    emit(branch)
                }
            }
            for jump in jumps { steps[jump] = .jump(steps.count) }
        case .repeated(let inner, let minimum, let maximum):
            for _ in 0..<minimum { emit(inner) }
            if let maximum {
                // Each optional copy may be skipped to the end.
                var splits: [Int] = []
                for _ in minimum..<maximum {
                    splits.append(steps.count)
                    steps.append(.split(steps.count + 1, 0))
                    emit(inner)
                }
                for split in splits { steps[split] = .split(split + 1, steps.count) }
            } else {
                let split = steps.count
                steps.append(.split(split + 1, 0))
                emit(inner)
                steps.append(.jump(split))
                steps[split] = .split(split + 1, steps.count)
            }
        }
    }
}
