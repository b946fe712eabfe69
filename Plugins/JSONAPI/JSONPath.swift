import MonitorJSON
import MonitorText

/// A path into a JSON document, the one small language of `type: json`: members by name (`data.children`), a list's
/// element by index (`[0]`, from 0; `[-1]`, the last), every element of a list (`[*]`), and a member whose name has
/// other characters, quoted (`["first name"]`). `data.children[*].data` is each child's `data`.
struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    enum Step: Sendable, Hashable {
        case member(String)
        case index(Int)
        case every
    }

    let steps: [Step]
    let description: String

    /// The longest path read.
    static let maximumLength = 500

    /// The path `text`; throws a message saying where it stops being one.
    init(_ text: String) throws(JSONPathError) {
        description = text
        guard text.count <= Self.maximumLength else {
            throw JSONPathError("a path has at most \(Self.maximumLength) characters")
        }
        var steps: [Step] = []
        var rest = Substring(text)
        func name() -> Substring {
            let name = rest.prefix(while: Self.isNameCharacter)
            rest = rest.dropFirst(name.count)
            return name
        }
        while !rest.isEmpty {
            let at = text.count - rest.count
            if rest.first == "[" {
                rest = rest.dropFirst()
                if rest.hasPrefix("*]") {
                    steps.append(.every)
                    rest = rest.dropFirst(2)
                } else if rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") {
                    let member = rest[rest.index(after: rest.startIndex)..<close]
                    rest = rest[rest.index(after: close)...]
                    guard rest.first == "]" else { throw JSONPathError("a quoted name ends with '\"]' (at \(at + 1))") }
                    steps.append(.member(String(member)))
                    rest = rest.dropFirst()
                } else {
                    let digits = rest.prefix { $0.isNumber || $0 == "-" }
                    rest = rest.dropFirst(digits.count)
                    guard let index = Int(digits), digits.count <= 9, rest.first == "]" else {
                        throw JSONPathError("'[' takes an index, '*' or a quoted name, then ']' (at \(at + 1))")
                    }
                    steps.append(.index(index))
                    rest = rest.dropFirst()
                }
            } else {
                if !steps.isEmpty {
                    guard rest.first == "." else { throw JSONPathError("expected '.' or '[' (at \(at + 1))") }
                    rest = rest.dropFirst()
                }
                let member = name()
                guard !member.isEmpty else {
                    throw JSONPathError(
                        "expected a member's name (letters, digits, _-$@:) at \(text.count - rest.count + 1); quote others: [\"a b\"]"
                    )
                }
                steps.append(.member(String(member)))
            }
        }
        guard !steps.isEmpty else { throw JSONPathError("a path names at least one member or index") }
        self.steps = steps
    }

    /// Whether the path may find more than one value.
    var isMany: Bool { steps.contains(.every) }

    /// What is wrong with `text` as a path; nil when it is one (an option's check).
    @Sendable static func problem(_ text: String) -> String? {
        do {
            _ = try JSONPath(text)
            return nil
        } catch {
            return error.message
        }
    }

    /// What is wrong with `text` as a path that finds one value; nil when it is one.
    @Sendable static func singleProblem(_ text: String) -> String? {
        (try? JSONPath(text))?.isMany == true ? "'[*]' finds many values; this path finds one" : problem(text)
    }

    /// The values the path finds in `root`, in document order. When it finds none, throws which step matched nothing
    /// and what the document had there (the first such place; a `[*]` over an empty list finds none without error).
    func values(in root: JSONValue) throws(JSONPathError) -> [JSONValue] {
        var current: [(value: JSONValue, place: String)] = [(root, "")]
        var miss: JSONPathError?
        for step in steps {
            var next: [(value: JSONValue, place: String)] = []
            for (value, place) in current {
                let shown = place.isEmpty ? "the document" : place
                switch (step, value) {
                case (.member(let name), .object(let members)):
                    let key = Self.written(.member(name), after: place)
                    if let found = members.first(where: { $0.key == name }) {
                        next.append((found.value, key))
                    } else {
                        let names = members.prefix(8).map { "'\(Self.shown($0.key))'" }.joined(separator: ", ")
                        let more = members.count > 8 ? " and \(members.count - 8) more" : ""
                        let had = members.isEmpty ? "it is an empty object" : "it has \(names)\(more)"
                        miss = miss ?? JSONPathError("'\(key)' matched nothing: \(had)")
                    }
                case (.index(let index), .array(let values)):
                    let position = index < 0 ? values.count + index : index
                    if values.indices.contains(position) {
                        next.append((values[position], Self.written(.index(index), after: place)))
                    } else {
                        miss =
                            miss
                            ?? JSONPathError(
                                "'\(Self.written(step, after: place))' matched nothing: \(shown) is \(Self.describe(value))"
                            )
                    }
                case (.every, .array(let values)):
                    for (index, element) in values.enumerated() {
                        next.append((element, Self.written(.index(index), after: place)))
                    }
                default:
                    let needs = if case .member = step { "an object" } else { "a list" }
                    miss =
                        miss
                        ?? JSONPathError(
                            "'\(Self.written(step, after: place))' needs \(needs): \(shown) is \(Self.describe(value))")
                }
            }
            current = next
        }
        if current.isEmpty, let miss { throw miss }
        return current.map(\.value)
    }

    /// `place` followed by `step`, as a path is written.
    private static func written(_ step: Step, after place: String) -> String {
        switch step {
        case .member(let name) where name.allSatisfy(isNameCharacter):
            place.isEmpty ? name : "\(place).\(name)"
        case .member(let name): "\(place)[\"\(name)\"]"
        case .index(let index): "\(place)[\(index)]"
        case .every: "\(place)[*]"
        }
    }

    /// A short account of a value: `a list of 3`, `an object`, `the text "…"`, `the number 5`, `null`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .integer, .number: "the number \(value.text)"
        case .string(let text): "the text \"\(shown(text))\""
        case .array(let values): values.isEmpty ? "an empty list" : "a list of \(values.count)"
        case .object(let members): members.isEmpty ? "an empty object" : "an object"
        }
    }

    /// Whether `character` may be part of a member's name written without quotes: letters, digits and `_-$@:`.
    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || "_-$@:".contains(character)
    }

    /// `text` cut to 40 characters, for a message.
    private static func shown(_ text: String) -> String {
        TerminalText.capped(text, to: 40)
    }
}

/// Why a path is not one, or found nothing.
struct JSONPathError: Error, Sendable, Hashable, CustomStringConvertible {
    var message: String
    var description: String { message }
    init(_ message: String) { self.message = message }
}
