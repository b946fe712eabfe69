import Foundation
import MonitorCore
import MonitorJSON

/// The result of a repository search kept in the feed's source values, so that it holds across separate
/// `monitor run --once` invocations: the `owner/name`s found, when, and for which query and `top`.
struct SearchCache: Sendable {
    /// The repositories as a JSON array of `owner/name`.
    static let reposKey = "search.repos"
    /// When the search was made, ISO 8601.
    static let dateKey = "search.at"
    /// The query it answered.
    static let queryKey = "search.query"
    /// The `top` it was made with.
    static let topKey = "search.top"

    /// A search result.
    struct Entry: Sendable, Hashable {
        /// The repositories, by stars.
        var repos: [String]
        /// When the search was made.
        var date: Date
    }

    /// The values of the poll.
    let values: SourceValues

    /// The stored result of searching `query` for `top` repositories, nil when there is none or it was made for
    /// another query or `top`.
    func entry(query: String, top: Int) -> Entry? {
        guard values[Self.queryKey] == query, values[Self.topKey] == String(top),
            let text = values[Self.reposKey], let date = values[Self.dateKey].flatMap(ISO8601.date),
            let repos = Self.names(in: text)
        else { return nil }
        return Entry(repos: repos, date: date)
    }

    /// The list of texts `text` holds (as `store` writes it); nil when it holds anything else.
    private static func names(in text: String) -> [String]? {
        try? JSONReader.document(Array(text.utf8)) { (reader) throws(JSONError) in
            var names: [String] = []
            try reader.elements { (reader) throws(JSONError) in names.append(try reader.string()) }
            return names
        }
    }

    /// Stores `entry` as the result of searching `query` for `top` repositories.
    func store(_ entry: Entry, query: String, top: Int) {
        values[Self.reposKey] = JSONValue.array(entry.repos.map { .string($0) }).text
        values[Self.dateKey] = ISO8601.string(entry.date)
        values[Self.queryKey] = query
        values[Self.topKey] = String(top)
    }
}
