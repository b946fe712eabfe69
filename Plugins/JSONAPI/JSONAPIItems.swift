import Foundation
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorOptions
import MonitorText

/// A document's items as the feed's paths find them.
struct JSONAPIItems {
    /// The longest title and detail kept, in characters.
    static let maximumText = 300

    let items: JSONPath
    let id: JSONPath
    let title: JSONPath
    let date: JSONPath?
    let link: JSONPath?
    let group: JSONPath?
    /// The details' names and paths, by name.
    let details: [(name: String, path: JSONPath)]
    /// The group of items without one: the feed's name.
    let feed: String
    /// The date of items without one that can be read.
    let now: Date

    /// The paths of `options` (checked by `validate`: a path that is not one throws).
    init(options: FeedOptions, feed: String, now: Date) throws(JSONPathError) {
        items = try JSONPath(options[JSONAPISource.items] ?? "")
        id = try JSONPath(options[JSONAPISource.id])
        title = try JSONPath(options[JSONAPISource.title])
        date = try options[JSONAPISource.date].map { (text) throws(JSONPathError) in try JSONPath(text) }
        link = try options[JSONAPISource.link].map { (text) throws(JSONPathError) in try JSONPath(text) }
        group = try options[JSONAPISource.group].map { (text) throws(JSONPathError) in try JSONPath(text) }
        var details: [(name: String, path: JSONPath)] = []
        for (name, path) in (options[JSONAPISource.details] ?? [:]).sorted(by: { $0.key < $1.key }) {
            details.append((name, try JSONPath(path)))
        }
        self.details = details
        self.feed = feed
        self.now = now
    }

    /// Reports the items of `document`, a failed part for each that has no id, and a note for dates that cannot be
    /// read. Throws when `items` finds nothing.
    func report(_ document: JSONValue, to found: Findings) throws(JSONPathError) {
        var reported: [Item] = []
        var undated: [String] = []
        for (index, value) in try items.values(in: document).enumerated() {
            do throws(JSONPathError) {
                reported.append(try item(of: value, undated: &undated))
            } catch {
                found.failed("item \(index + 1)", "'id: \(id)': \(error.message)")
            }
        }
        found.items(reported)
        if let first = undated.first {
            let what = undated.count == 1 ? "1 item has" : "\(undated.count) items have"
            found.note(
                "\(what) no date that can be read at '\(date?.description ?? "")' (first: \(first)): dated by the poll")
        }
        found.completed()
    }

    /// The item of `value`; throws when its id is not found.
    func item(of value: JSONValue, undated: inout [String]) throws(JSONPathError) -> Item {
        guard let first = try id.values(in: value).first, let id = Self.text(first), !id.isEmpty else {
            throw JSONPathError("it is not a text or a number")
        }
        let title = (try? self.title.values(in: value)).flatMap { $0.first.flatMap(Self.text) } ?? ""
        var date: Date?
        if let path = self.date {
            let written = (try? path.values(in: value))?.first
            date = written.flatMap(Self.date)
            if date == nil { undated.append(written.map(JSONPath.describe) ?? "nothing") }
        }
        let url = link.flatMap { try? $0.values(in: value).first }.flatMap(Self.text).flatMap(Item.webLink)
        var groups: [String] = []
        for found in (group.flatMap { try? $0.values(in: value) } ?? []) {
            if let name = Self.text(found).map(Self.cut), !name.isEmpty, !groups.contains(name), groups.count < 20 {
                groups.append(name)
            }
        }
        let details = self.details.compactMap { detail -> Detail? in
            guard let found = (try? detail.path.values(in: value))?.first else { return nil }
            guard let text = Self.text(found) ?? (found == .null ? nil : found.text) else { return nil }
            return Detail(detail.name, Self.cut(text))
        }
        return Item(
            id: String(id.prefix(512)), title: title.isEmpty ? Self.cut(id) : Self.cut(title), date: date ?? now,
            groups: groups.isEmpty ? [feed] : groups, url: url, details: details)
    }

    /// A string as it is, a number or a boolean as written; nil for a list, an object or null.
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .integer, .number, .bool: value.text
        case .null, .array, .object: nil
        }
    }

    /// `text` on one line, at most ``maximumText`` characters.
    static func cut(_ text: String) -> String {
        TerminalText.capped(text.collapsingWhitespace(), to: maximumText)
    }

    /// An ISO 8601 date, or Unix seconds (milliseconds past 10¹¹, that is past 1973 in milliseconds) as a number or
    /// a text of digits.
    static func date(_ value: JSONValue) -> Date? {
        let seconds: Double?
        switch value {
        case .string(let text):
            if let date = ISO8601.date(text.trimmingAllWhitespace()) { return date }
            seconds = Double(text.trimmingAllWhitespace())
        case .integer(let number): seconds = Double(number)
        case .number(let number): seconds = number
        default: seconds = nil
        }
        guard let seconds, seconds.isFinite, seconds > 0, seconds < 1e15 else { return nil }
        return Date(timeIntervalSince1970: seconds >= 1e11 ? seconds / 1000 : seconds)
    }
}
