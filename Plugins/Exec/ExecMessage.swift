import Foundation
import MonitorCore

/// One line of an exec program's standard output: a JSON object with exactly one of these keys (protocol 1).
///
/// `{"group":{"id":"m5","title":"Magnitude 5+"}}` · `{"progress":{"done":1,"total":4}}` ·
/// `{"item":{"id":"…","title":"…","date":"2025-09-21T18:00:00Z","groups":["m5"],"url":"…","details":{"mag":"5.2"}}}` ·
/// `{"failure":{"what":"…","message":"…","group":"m5"}}` · `{"unchanged":true}` · `{"cursor":"…"}`.
/// Text from the program is kept without control characters.
enum ExecMessage: Sendable, Hashable {
    /// A group known up front, shown even without items.
    case group(ItemGroup)
    /// Steps done out of the total, when known.
    case progress(done: Int, total: Int?)
    /// One item.
    case item(Item)
    /// A failed part: the poll becomes partial and the group, when named, keeps its stored items.
    case failure(SubRequestFailure)
    /// Nothing changed since the cursor: the stored items stay.
    case unchanged
    /// Opaque text handed back to the next run.
    case cursor(String)

    /// The message keys, in the order the README lists them.
    static let kinds = ["group", "progress", "item", "failure", "unchanged", "cursor"]
    /// The longest cursor, in UTF-8 bytes.
    static let maxCursor = 64 << 10

    /// What is wrong with a line, without its number (the reader adds it).
    struct Problem: Error, Sendable, Hashable {
        var message: String

        init(_ message: String) {
            self.message = message
        }
    }

    /// The message of one line (without its line break).
    init(line: [UInt8]) throws(Problem) {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                throw Problem("not a JSON object: \(Self.excerpt(line))")
            }
            object = parsed
        } catch let problem as Problem {
            throw problem
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey].map { " (\($0))" } ?? ""
            throw Problem("not JSON\(detail): \(Self.excerpt(line))")
        }
        let keys = object.keys.sorted()
        guard keys.count == 1, let kind = keys.first else {
            let found = keys.isEmpty ? "none" : keys.map { "\"\(TerminalText.sanitized($0))\"" }.joined(separator: ", ")
            throw Problem("a message has exactly one key (\(Self.expected)), found \(found)")
        }
        let value = object[kind]!
        switch kind {
        case "group":
            let fields = try Fields(value, of: "group")
            let id = try fields.identifier("id")
            self = .group(ItemGroup(id: id, title: try fields.text("title") ?? id))
            try fields.onlyKnown()
        case "progress":
            let fields = try Fields(value, of: "progress")
            guard let done = try fields.count("done") else { throw Problem("progress needs \"done\", a count") }
            self = .progress(done: done, total: try fields.count("total"))
            try fields.onlyKnown()
        case "item":
            self = .item(try Self.item(value))
        case "failure":
            let fields = try Fields(value, of: "failure")
            guard let what = try fields.text("what"), let message = try fields.text("message") else {
                throw Problem("failure needs \"what\" and \"message\", texts")
            }
            let group = try fields.text("group")
            self = .failure(SubRequestFailure(what: what, message: message, group: group))
            try fields.onlyKnown()
        case "unchanged":
            guard Fields.isBoolean(value), value as? Bool == true else {
                throw Problem("\"unchanged\" takes only true")
            }
            self = .unchanged
        case "cursor":
            guard let cursor = value as? String else { throw Problem("\"cursor\" must be a text") }
            let size = cursor.utf8.count
            guard size <= Self.maxCursor else {
                throw Problem("the cursor has \(size) bytes, more than \(Self.maxCursor) (64 KiB)")
            }
            self = .cursor(cursor)
        default:
            let name = TerminalText.sanitized(kind.prefix(40))
            let guess = Suggestion.closest(to: name, in: Self.kinds).map { "did you mean \"\($0)\"? " } ?? ""
            throw Problem("unknown message \"\(name)\" (\(guess)expected one of \(Self.kinds.joined(separator: ", ")))")
        }
    }

    private static var expected: String { "one of " + kinds.joined(separator: ", ") }

    private static func item(_ value: Any) throws(Problem) -> Item {
        let fields = try Fields(value, of: "item")
        let id = try fields.identifier("id")
        guard let title = try fields.text("title") else { throw Problem("item '\(id)' needs \"title\", a text") }
        guard let dateText = try fields.text("date") else {
            throw Problem("item '\(id)' needs \"date\", an ISO 8601 date like 2025-09-21T18:00:00Z")
        }
        guard let date = ISO8601.date(dateText) else {
            throw Problem("item '\(id)': \"date\" is not an ISO 8601 date like 2025-09-21T18:00:00Z: '\(dateText)'")
        }
        let groups = try fields.texts("groups") ?? []
        let url = try fields.text("url")
        let details = try fields.details("details")
        try fields.onlyKnown()
        return Item(id: id, title: title, date: date, groups: groups, url: url, details: details)
    }

    /// The start of a line for a message, without control characters.
    static func excerpt(_ line: [UInt8]) -> String {
        let text = TerminalText.sanitized(String(decoding: line.prefix(80), as: UTF8.self))
        return line.count > 80 ? "'\(text)…'" : "'\(text)'"
    }
}

/// The fields of one message's object, read with their types checked and every key accounted for.
private final class Fields {
    let object: [String: Any]
    let kind: String
    var read: Set<String> = []

    static let booleanType = type(of: NSNumber(value: true))

    /// `value` as the object of a message of `kind`.
    init(_ value: Any, of kind: String) throws(ExecMessage.Problem) {
        guard let object = value as? [String: Any] else {
            throw ExecMessage.Problem("\"\(kind)\" must be an object")
        }
        self.object = object
        self.kind = kind
    }

    static func isBoolean(_ value: Any) -> Bool { type(of: value) == booleanType }

    private func value(_ key: String) -> Any? {
        read.insert(key)
        guard let value = object[key], !(value is NSNull) else { return nil }
        return value
    }

    /// A text, made safe for a terminal; nil when absent or null.
    func text(_ key: String) throws(ExecMessage.Problem) -> String? {
        guard let value = value(key) else { return nil }
        guard let text = value as? String else { throw ExecMessage.Problem("\(kind) \"\(key)\" must be a text") }
        return TerminalText.sanitized(text)
    }

    /// A text that must be there and not blank.
    func identifier(_ key: String) throws(ExecMessage.Problem) -> String {
        guard let text = try text(key), !text.trimmingWhitespace().isEmpty else {
            throw ExecMessage.Problem("\(kind) needs \"\(key)\", a text that is not empty")
        }
        return text
    }

    /// A whole number ≥ 0; nil when absent or null.
    func count(_ key: String) throws(ExecMessage.Problem) -> Int? {
        guard let value = value(key) else { return nil }
        guard !Self.isBoolean(value), let number = value as? Int, number >= 0 else {
            throw ExecMessage.Problem("\(kind) \"\(key)\" must be a whole number ≥ 0")
        }
        return number
    }

    /// A list of texts; nil when absent or null.
    func texts(_ key: String) throws(ExecMessage.Problem) -> [String]? {
        guard let value = value(key) else { return nil }
        guard let list = value as? [Any], let texts = list as? [String] else {
            throw ExecMessage.Problem("\(kind) \"\(key)\" must be a list of texts")
        }
        return texts.map { TerminalText.sanitized($0) }
    }

    /// An object of texts, numbers or booleans, as details in the order of their names.
    func details(_ key: String) throws(ExecMessage.Problem) -> [Detail] {
        guard let value = value(key) else { return [] }
        guard let object = value as? [String: Any] else {
            throw ExecMessage.Problem("\(kind) \"\(key)\" must be an object of texts")
        }
        var details: [Detail] = []
        for name in object.keys.sorted() {
            let text: String
            switch object[name]! {
            case let value where Self.isBoolean(value): text = (value as? Bool ?? false) ? "true" : "false"
            case let value as String: text = value
            case let value as Int: text = String(value)
            case let value as Double where value.isFinite: text = String(value)
            case is NSNull: continue
            default:
                throw ExecMessage.Problem(
                    "\(kind) detail \"\(TerminalText.sanitized(name))\" must be a text, a number or a boolean")
            }
            details.append(Detail(TerminalText.sanitized(name), TerminalText.sanitized(text)))
        }
        return details
    }

    /// Throws when the object has a key that was not read: a misspelt field is an error, not ignored.
    func onlyKnown() throws(ExecMessage.Problem) {
        guard let unknown = object.keys.sorted().first(where: { !read.contains($0) }) else { return }
        let name = TerminalText.sanitized(unknown.prefix(40))
        let guess = Suggestion.closest(to: name, in: read.sorted()).map { " (did you mean \"\($0)\"?)" } ?? ""
        throw ExecMessage.Problem("unknown key \"\(name)\" in \(kind)\(guess)")
    }
}
