import Foundation
import MonitorJSON

/// One natural event of `GET {api}/events`: `{"id","title","description","link","closed","categories",
/// "sources","geometry"}`, read from the response's bytes, with `null`s, odd whitespace and HTML character
/// references taken care of. Of its observations only what the item shows is kept: the newest one, and the
/// newest one with a magnitude.
struct EONETEvent: Sendable, Hashable {
    /// `EONET_15547`.
    var id: String
    /// The title, its HTML character references decoded and its whitespace collapsed.
    var title: String
    /// The description, cleaned like the title; nil when null or empty.
    var description: String?
    /// The event's page in the API.
    var link: String?
    /// When it was closed; nil while it is open.
    var closed: Date?
    /// The ids of its categories, in its order.
    var categories: [String] = []
    /// The URL of its first source (the first that is not null or empty), HTML entities decoded: the item's URL.
    var source: String?
    /// How many observations it has.
    var observations = 0
    /// Its newest observation (the last listed of those of the newest date), with its position.
    var latest: EONETGeometry?
    /// Its newest observation with a magnitude.
    var latestMagnitude: EONETGeometry?
}

// MARK: - Reading

extension EONETEvent {
    /// Reads the event that must come next; an error names the member at fault. Each text is cleaned as it is
    /// read; of the sources only the first URL is made (the others are checked), and the link is decoded only
    /// when the event has no source, as the item shows it only then; of the observations only the texts of those
    /// the item shows are made. When its categories are those of `previous` (nearly every event of a response), it
    /// shares that list instead of making its own. (A function, not an init: a throwing init copied the event out of
    /// its frame.)
    static func read(_ reader: inout JSONReader, previous: [String] = []) throws(JSONError) -> EONETEvent {
        var id: String?
        var title: String?
        var description: String?
        var linkText: JSONText?
        var closed: Date?
        var categories: [String] = []
        var source: String?
        var track = EONETGeometry.Track()
        try reader.members(likely: Self.keys) { (key, reader) throws(JSONError) in
            if reader.key(key, is: "id") {
                id = reader.trimmedString(try reader.checkedStringText())
            } else if reader.key(key, is: "title") {
                title = try reader.null() ? nil : try reader.cleanedString()
            } else if reader.key(key, is: "description") {
                description = try reader.null() ? nil : try reader.cleanedString()
            } else if reader.key(key, is: "link") {
                linkText = try reader.null() ? nil : try reader.stringText()
            } else if reader.key(key, is: "closed") {
                closed = try reader.null() ? nil : try EONETText.date(&reader)
            } else if reader.key(key, is: "categories") {
                categories = try Self.categories(&reader, previous: previous)
            } else if reader.key(key, is: "sources") {
                source = try Self.firstSource(&reader)
            } else if reader.key(key, is: "geometry") {
                track = try EONETGeometry.track(&reader)
            }
        }
        guard let id else { throw .missing("id") }
        // Made when shown, or checked (raw UTF-8, escapes) as every string is checked.
        var link: String?
        if let text = linkText, source == nil || !text.ascii || text.escaped {
            let url = try reader.member(.key("link")) { (reader: inout JSONReader) throws(JSONError) in
                try reader.referenceURL(text)
            }
            if source == nil { link = url }
        }
        var latest = track.newest?.geometry(reader)
        // Its texts made once when the newest observation is also the newest with a magnitude.
        let latestMagnitude = track.newestMagnitude == track.newest ? latest : track.newestMagnitude?.geometry(reader)
        // Only the newest observation's coordinates are read, for its position.
        if let coordinates = track.newest?.coordinates, let type = latest?.type {
            var position = JSONReader(reader.bytes, at: coordinates, depth: 0)
            latest?.position = try? EONETGeometry.position(of: type, &position)
        }
        return EONETEvent(
            id: id, title: title ?? "", description: description.flatMap { $0.isEmpty ? nil : $0 }, link: link,
            closed: closed, categories: categories, source: source, observations: track.count, latest: latest,
            latestMagnitude: latestMagnitude)
    }

    /// The members of an event in the order EONET writes them, and those of a category and of a source.
    private static let keys: [StaticString] = [
        "id", "title", "description", "link", "closed", "categories", "sources", "geometry",
    ]
    private static let categoryKeys: [StaticString] = ["id", "title"]
    private static let sourceKeys: [StaticString] = ["id", "url"]

    /// The ids of a list of categories (each an id trimmed; a null id left out); `previous` itself when they are
    /// the same, so that events of the same categories share one list (the ids compared where they are written).
    static func categories(_ reader: inout JSONReader, previous: [String]) throws(JSONError) -> [String] {
        guard try !reader.null() else { return repeatedPrefix(of: previous, 0) }
        // The ids read, once they differ from `previous`; before that, how many of `previous` they repeat.
        var values: [String]?
        var repeated = 0
        try reader.elements { (reader) throws(JSONError) in
            // The element's last `id` member, when it has one that is not null.
            guard case .some(.some(let id)) = try reference(&reader, ids: true, urls: false, likely: categoryKeys).id
            else { return }
            if values == nil, repeated < previous.count, reader.trimmedString(id, is: previous[repeated]) {
                repeated += 1
                return
            }
            if values == nil { values = Array(previous[..<repeated]) }
            values?.append(reader.trimmedString(id))
        }
        return values ?? repeatedPrefix(of: previous, repeated)
    }

    /// `previous` when `count` is all of it, else its first `count`.
    private static func repeatedPrefix(of previous: [String], _ count: Int) -> [String] {
        count == previous.count ? previous : Array(previous[..<count])
    }

    /// The URL of the first source in a list of sources whose URL is not null or empty, as
    /// `JSONReader.referenceURL()` makes it; the URLs after it are checked, not made.
    static func firstSource(_ reader: inout JSONReader) throws(JSONError) -> String? {
        guard try !reader.null() else { return nil }
        var source: String?
        try reader.elements { (reader) throws(JSONError) in
            let making = source == nil
            // The element's last `url` member.
            if case .some(let url) = try reference(&reader, ids: false, urls: making, likely: sourceKeys).url, making {
                source = url
            }
        }
        return source
    }

    /// Reads one `{"id","url"}` reference: its last `id` (checked, to be trimmed; `.some(nil)` when null) when `ids`,
    /// its last `url` as `JSONReader.referenceURL()` makes it when `urls`; what is not wanted is checked, not made.
    /// Members other than `id` and `url` are checked and skipped. `likely`: its keys in the order usually written.
    private static func reference(
        _ reader: inout JSONReader, ids: Bool, urls: Bool, likely: [StaticString]
    ) throws(JSONError) -> (id: JSONText??, url: String??) {
        var id: JSONText??
        var url: String??
        try reader.members(likely: likely) { (key, reader) throws(JSONError) in
            if reader.key(key, is: "id") {
                if ids {
                    id = .some(try reader.optionalStringText())
                } else {
                    _ = try reader.optionalStringText()
                }
            } else if reader.key(key, is: "url") {
                if urls {
                    url = .some(try reader.referenceURL())
                } else {
                    _ = try reader.optionalStringText()
                }
            }
        }
        return (id, url)
    }
}
