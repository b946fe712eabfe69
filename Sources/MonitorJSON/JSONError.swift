/// Why a JSON document was refused, and where: the path of the value (`events[3].geometry[0].date`) once the
/// readers of the enclosing values added it with `at(_:)`.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Step: Sendable, Hashable {
        /// An object's member.
        case key(String)
        /// A list's element.
        case index(Int)
    }

    /// What is wrong.
    package enum Problem: Sendable, Hashable {
        /// The body ends inside a value (after `count` bytes).
        case truncated(Int)
        /// Not JSON at byte `offset` (from 0).
        case syntax(String, Int)
        /// Lists and objects nested deeper than `JSONReader.maximumDepth`.
        case tooDeep
        /// Valid JSON, but not what was expected here.
        case value(String)
    }

    /// The path of the value, outermost first.
    var path: [Step]
    /// What is wrong.
    package var problem: Problem

    /// An error about the value at `path`.
    package init(_ problem: Problem, path: [Step] = []) {
        self.problem = problem
        self.path = path
    }

    @usableFromInline
    static func truncated(_ count: Int) -> JSONError { JSONError(.truncated(count)) }

    @usableFromInline
    static func syntax(_ message: String, _ offset: Int) -> JSONError { JSONError(.syntax(message, offset)) }

    @usableFromInline
    static var tooDeep: JSONError { JSONError(.tooDeep) }

    /// A value that is not what was expected: `message` says what.
    package static func value(_ message: String) -> JSONError { JSONError(.value(message)) }

    /// `expected a string`, or `null where a value is needed` when `found` is a null.
    public static func mismatch(_ expected: String, _ found: JSONReader.Kind) -> JSONError {
        .value(found == .null ? "null where a value is needed" : "expected \(expected)")
    }

    /// `missing 'id'`.
    package static func missing(_ key: String) -> JSONError { .value("missing '\(key)'") }

    /// The error with `step` put before its path.
    public func at(_ step: Step) -> JSONError {
        var error = self
        error.path.insert(step, at: 0)
        return error
    }

    /// Whether the body itself is not JSON (rather than JSON of an unexpected shape).
    package var isSyntax: Bool {
        switch problem {
        case .truncated, .syntax, .tooDeep: return true
        case .value: return false
        }
    }

    /// `events[3].geometry[0].date`.
    var pathText: String {
        var text = ""
        for step in path {
            switch step {
            case .index(let index): text += "[\(index)]"
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            }
        }
        return text
    }

    /// `not valid JSON: the body ends early, after 1024 bytes`, `at events[0].id: expected a string`.
    public var description: String {
        let what: String
        switch problem {
        case .truncated(0): return "not valid JSON: the body is empty"
        case .truncated(let count): what = "not valid JSON: the body ends inside a value, after \(count) bytes"
        case .syntax(let message, let offset): what = "not valid JSON: \(message) at byte \(offset + 1)"
        case .tooDeep: what = "lists and objects nested deeper than \(JSONReader.maximumDepth) levels"
        case .value(let message): what = message
        }
        let path = pathText
        return path.isEmpty ? what : "at \(path): \(what)"
    }
}
