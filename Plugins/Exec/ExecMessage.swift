import Foundation
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorText

/// One line of an exec program's standard output: a JSON object with exactly one of these keys (protocol 1).
///
/// `{"group":{"id":"m5","title":"Magnitude 5+"}}` · `{"progress":{"done":1,"total":4}}` ·
/// `{"item":{"id":"…","title":"…","date":"2025-09-21T18:00:00Z","groups":["m5"],"url":"…","details":{"mag":"5.2"}}}` ·
/// `{"failure":{"what":"…","message":"…","group":"m5"}}` · `{"unchanged":true}` · `{"cursor":"…"}` ·
/// `{"gap":{"message":"…"}}`.
/// Text from the program is kept without control characters.
enum ExecMessage: Sendable, Hashable {
    /// A group known up front, shown even without items.
    case group(ItemGroup)
    /// Steps done out of the total, when known.
    case progress(done: Int, total: Int?)
    case item(Item)
    /// A failed part: the poll becomes partial and the group, when named, keeps its stored items.
    case failure(SubRequestFailure)
    /// Nothing changed since the cursor: the stored items stay.
    case unchanged
    /// Opaque text handed back to the next run.
    case cursor(String)
    /// Events may be missing, as the message says (not a failure).
    case gap(message: String)

    /// The message keys, in the order docs/exec-protocol.md lists them.
    static let kinds = ["group", "progress", "item", "failure", "unchanged", "cursor", "gap"]
    /// The longest cursor, in UTF-8 bytes.
    static let maxCursor = 64 << 10

    /// What is wrong with a line, without its number (the reader adds it).
    struct Problem: Error, Sendable, Hashable {
        var message: String

        init(_ message: String) {
            self.message = message
        }
    }

    /// The message of one line (without its line break), read with the core's JSON reader. A key the protocol
    /// does not have, or one met twice in an object, is an error: a program's mistake is found at once, never
    /// settled by keeping one of the two values.
    init(line: [UInt8]) throws(Problem) {
        var reader = JSONReader(line)
        do {
            self = try Self.read(&reader, line)
        } catch let problem as Problem {
            throw problem
        } catch let error as JSONError {
            switch error.problem {
            case .truncated: throw Problem("not JSON (the line ends inside a value): \(Self.excerpt(line))")
            case .syntax(let message, let offset):
                throw Problem("not JSON (\(message) at byte \(offset + 1)): \(Self.excerpt(line))")
            case .tooDeep:
                throw Problem(
                    "not JSON (lists and objects nested deeper than \(JSONReader.maximumDepth) levels): "
                        + Self.excerpt(line))
            case .value(let message): throw Problem(message)
            }
        } catch {
            throw Problem("\(error)")
        }
    }

    private static var expected: String { "one of " + kinds.joined(separator: ", ") }

    private static func read(_ reader: inout JSONReader, _ line: [UInt8]) throws -> ExecMessage {
        guard try reader.kind() == .object else {
            try reader.skip()
            try reader.end()
            throw Problem("not a JSON object: \(excerpt(line))")
        }
        try reader.enterObject()
        guard let key = try reader.nextKey(0) else {
            try reader.end()
            throw Problem("a message has exactly one key (\(expected)), found none")
        }
        let kind = try reader.decoded(key)
        let message: ExecMessage
        switch kind {
        case "group": message = try group(&reader)
        case "progress": message = try progress(&reader)
        case "item": message = .item(try item(&reader))
        case "failure": message = try failure(&reader)
        case "unchanged":
            guard try reader.kind() == .bool, try reader.bool() else { throw Problem("\"unchanged\" takes only true") }
            message = .unchanged
        case "cursor":
            guard try reader.kind() == .string else { throw Problem("\"cursor\" must be a text") }
            let cursor = try reader.string()
            let size = cursor.utf8.count
            guard size <= maxCursor else {
                throw Problem("the cursor has \(size) bytes, more than \(maxCursor) (64 KiB)")
            }
            // MONITOR_CURSOR would end at it, and the program would get another cursor than it sent.
            if let at = cursor.utf8.firstIndex(of: 0) {
                let position = cursor.utf8.distance(from: cursor.utf8.startIndex, to: at) + 1
                throw Problem(
                    "the cursor holds a NUL character (\\u0000) at byte \(position), which MONITOR_CURSOR cannot carry")
            }
            message = .cursor(cursor)
        case "gap": message = try gap(&reader)
        default:
            let name = shown(kind)
            let guess = Suggestion.closest(to: name, in: kinds).map { "did you mean \"\($0)\"? " } ?? ""
            throw Problem("unknown message \"\(name)\" (\(guess)expected one of \(kinds.joined(separator: ", ")))")
        }
        if let next = try reader.nextKey(1) {
            // More keys: all of them are named (after the line is checked to be JSON), or the one met twice.
            var names = [kind]
            var key = next
            while true {
                names.append(try reader.decoded(key))
                try reader.skip()
                guard let following = try reader.nextKey(names.count) else { break }
                key = following
            }
            try reader.end()
            names.sort()
            if let twice = zip(names, names.dropFirst()).first(where: { $0 == $1 })?.0 {
                throw Problem("duplicate key \"\(shown(twice))\" in the message")
            }
            let found = names.prefix(5).map { "\"\(shown($0))\"" } + (names.count > 5 ? ["…"] : [])
            throw Problem("a message has exactly one key (\(expected)), found \(found.joined(separator: ", "))")
        }
        try reader.end()
        return message
    }

    private static func group(_ reader: inout JSONReader) throws -> ExecMessage {
        let fields = try Fields.strings(&reader, "group", ["id", "title"])
        let identifier = try Fields.identifier(fields[0], "group", "id")
        return .group(ItemGroup(id: identifier, title: fields[1] ?? identifier))
    }

    private static func progress(_ reader: inout JSONReader) throws -> ExecMessage {
        var done: Int?
        var total: Int?
        try Fields.read(&reader, "progress", ["done", "total"]) { reader, field in
            switch field {
            case 0: done = try Fields.count(&reader, "progress", "done")
            default: total = try Fields.count(&reader, "progress", "total")
            }
        }
        guard let done else { throw Problem("progress needs \"done\", a count") }
        return .progress(done: done, total: total)
    }

    private static func failure(_ reader: inout JSONReader) throws -> ExecMessage {
        let fields = try Fields.strings(&reader, "failure", ["what", "message", "group"])
        guard let what = fields[0], let message = fields[1] else {
            throw Problem("failure needs \"what\" and \"message\", texts")
        }
        return .failure(SubRequestFailure(what: what, message: message, group: fields[2]))
    }

    private static func gap(_ reader: inout JSONReader) throws -> ExecMessage {
        guard let message = try Fields.strings(&reader, "gap", ["message"])[0], !message.trimmingWhitespace().isEmpty
        else {
            throw Problem("gap needs \"message\", a text that is not empty")
        }
        return .gap(message: message)
    }

    private static func item(_ reader: inout JSONReader) throws -> Item {
        var id: String?
        var title: String?
        var dateText: String?
        var groups: [String]?
        var url: String?
        var details: [Detail]?
        try Fields.read(&reader, "item", ["id", "title", "date", "groups", "url", "details"]) { reader, field in
            switch field {
            case 0: id = try Fields.text(&reader, "item", "id")
            case 1: title = try Fields.text(&reader, "item", "title")
            case 2: dateText = try Fields.text(&reader, "item", "date")
            case 3: groups = try Fields.texts(&reader, "item", "groups")
            case 4: url = try Fields.text(&reader, "item", "url")
            default: details = try Fields.details(&reader, "item", "details")
            }
        }
        let identifier = try Fields.identifier(id, "item", "id")
        guard let title else { throw Problem("item '\(identifier)' needs \"title\", a text") }
        guard let dateText else {
            throw Problem("item '\(identifier)' needs \"date\", an ISO 8601 date like 2025-09-21T18:00:00Z")
        }
        let date: Date
        switch ISO8601.parse(dateText) {
        case .success(let parsed):
            date = parsed
        case .failure(.shape):
            throw Problem(
                "item '\(identifier)': \"date\" is not an ISO 8601 date like 2025-09-21T18:00:00Z: '\(dateText)'")
        case .failure(.impossible(let reason)):
            throw Problem("item '\(identifier)': \"date\" is not a date of the calendar (\(reason)): '\(dateText)'")
        }
        return Item(id: identifier, title: title, date: date, groups: groups ?? [], url: url, details: details ?? [])
    }

    /// A key or name as a message shows it: without control characters, at most 40 characters.
    static func shown(_ name: String) -> String {
        TerminalText.sanitized(String(name.prefix(40)))
    }

    /// The start of a line for a message, without control characters.
    static func excerpt(_ line: [UInt8]) -> String {
        let text = TerminalText.sanitized(String(decoding: line.prefix(80), as: UTF8.self))
        return line.count > 80 ? "'\(text)…'" : "'\(text)'"
    }
}

/// The members of a message's object, read with their types checked and every key accounted for.
private enum Fields {
    typealias Problem = ExecMessage.Problem

    /// Reads the object of `kind` (a message, or a field of one), handing the position in `names` of each member's
    /// key to `member`, which reads its value. A key not among `names`, or met twice, is an error.
    static func read(
        _ reader: inout JSONReader, _ kind: String, _ names: [StaticString],
        _ member: (inout JSONReader, Int) throws -> Void
    ) throws {
        guard try reader.kind() == .object else { throw Problem("\"\(kind)\" must be an object") }
        try reader.enterObject()
        var seen: UInt64 = 0
        var index = 0
        while let key = try reader.nextKey(index) {
            index += 1
            guard let field = names.firstIndex(where: { reader.key(key, is: $0) }) else {
                let name = ExecMessage.shown(try reader.decoded(key))
                let known = names.map(\.description)
                let guess = Suggestion.closest(to: name, in: known).map { " (did you mean \"\($0)\"?)" } ?? ""
                throw Problem("unknown key \"\(name)\" in \(kind)\(guess)")
            }
            guard seen & (1 << field) == 0 else { throw Problem("duplicate key \"\(names[field])\" in \(kind)") }
            seen |= 1 << field
            try member(&reader, field)
        }
    }

    /// The texts (or nulls) of the object of `kind` whose keys are among `names`, in the order of `names`.
    static func strings(_ reader: inout JSONReader, _ kind: String, _ names: [StaticString]) throws -> [String?] {
        var texts = [String?](repeating: nil, count: names.count)
        try read(&reader, kind, names) { reader, field in texts[field] = try text(&reader, kind, "\(names[field])") }
        return texts
    }

    /// A text, made safe for a terminal; nil for null.
    static func text(_ reader: inout JSONReader, _ kind: String, _ key: String) throws -> String? {
        if try reader.null() { return nil }
        guard try reader.kind() == .string else { throw Problem("\(kind) \"\(key)\" must be a text") }
        return TerminalText.sanitized(try reader.string())
    }

    /// `text`, which must be there and not blank.
    static func identifier(_ text: String?, _ kind: String, _ key: String) throws -> String {
        guard let text, !text.trimmingWhitespace().isEmpty else {
            throw Problem("\(kind) needs \"\(key)\", a text that is not empty")
        }
        return text
    }

    /// A whole number ≥ 0; nil for null.
    static func count(_ reader: inout JSONReader, _ kind: String, _ key: String) throws -> Int? {
        if try reader.null() { return nil }
        if try reader.kind() == .number, let number = try reader.integer(), number >= 0,
            let count = Int(exactly: number)
        {
            return count
        }
        throw Problem("\(kind) \"\(key)\" must be a whole number ≥ 0")
    }

    /// A list of texts, each made safe for a terminal; nil for null.
    static func texts(_ reader: inout JSONReader, _ kind: String, _ key: String) throws -> [String]? {
        if try reader.null() { return nil }
        let problem = Problem("\(kind) \"\(key)\" must be a list of texts")
        guard try reader.kind() == .array else { throw problem }
        try reader.enterArray()
        var texts: [String] = []
        while try reader.nextElement(texts.count) {
            guard try reader.kind() == .string else { throw problem }
            texts.append(TerminalText.sanitized(try reader.string()))
        }
        return texts
    }

    /// An object of texts, numbers or booleans, as details in the order of their names (a null is left out); a
    /// name met twice, as it is shown (without control characters), is an error.
    static func details(_ reader: inout JSONReader, _ kind: String, _ key: String) throws -> [Detail] {
        if try reader.null() { return [] }
        guard try reader.kind() == .object else { throw Problem("\(kind) \"\(key)\" must be an object of texts") }
        try reader.enterObject()
        var details: [(name: String, value: String?)] = []
        var index = 0
        while let name = try reader.nextKey(index) {
            index += 1
            let name = try reader.decoded(name)
            let value: String?
            switch try reader.kind() {
            case .string:
                value = try reader.string()
            case .bool:
                value = try reader.bool() ? "true" : "false"
            case .number:
                let start = reader.offset
                if let whole = try reader.integer() {
                    value = String(whole)
                } else {
                    reader.offset = start
                    value = String(try reader.number())
                }
            case .null:
                _ = try reader.null()
                value = nil
            default:
                throw Problem("\(kind) detail \"\(ExecMessage.shown(name))\" must be a text, a number or a boolean")
            }
            details.append((TerminalText.sanitized(name), value))
        }
        // Sorted, a name met twice is next to itself.
        details.sort { $0.name < $1.name }
        if let twice = zip(details, details.dropFirst()).first(where: { $0.name == $1.name })?.0 {
            throw Problem("duplicate key \"\(ExecMessage.shown(twice.name))\" in \(kind) \"\(key)\"")
        }
        return details.compactMap { name, value in
            value.map { Detail(name, TerminalText.sanitized($0)) }
        }
    }
}
