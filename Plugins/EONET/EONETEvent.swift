import Foundation
import MonitorCore

/// One natural event of `GET {api}/events`: `{"id","title","description","link","closed","categories",
/// "sources","geometry"}`, with `null`s, odd whitespace and HTML entities in URLs taken care of.
struct EONETEvent: Decodable, Sendable, Hashable {
    /// `EONET_15547`.
    var id: String
    /// The title, its whitespace collapsed.
    var title: String
    /// The description, its whitespace collapsed; nil when null or empty.
    var description: String?
    /// The event's page in the API.
    var link: String?
    /// When it was closed; nil while it is open.
    var closed: Date?
    /// The ids of its categories, in its order.
    var categories: [String]
    /// The URLs of its sources, in its order, HTML entities decoded.
    var sources: [String]
    /// Its observations, as the server lists them (oldest first).
    var geometry: [EONETGeometry]

    private enum CodingKeys: String, CodingKey {
        case id, title, description, link, closed, categories, sources, geometry
    }

    private struct Reference: Decodable {
        var id: String?
        var url: String?
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = EONETText.trimmed(try container.decode(String.self, forKey: .id))
        title = EONETText.collapsed(try container.decodeIfPresent(String.self, forKey: .title) ?? "")
        description = try container.decodeIfPresent(String.self, forKey: .description).map(EONETText.collapsed)
            .flatMap { $0.isEmpty ? nil : $0 }
        link = try container.decodeIfPresent(String.self, forKey: .link).map(EONETText.trimmed)
            .flatMap { $0.isEmpty ? nil : EONETText.decodingEntities($0) }
        closed = try container.contains(.closed) ? Self.optionalDate(in: container, forKey: .closed) : nil
        categories = (try container.decodeIfPresent([Reference].self, forKey: .categories) ?? [])
            .compactMap { $0.id.map(EONETText.trimmed) }
        sources = (try container.decodeIfPresent([Reference].self, forKey: .sources) ?? [])
            .compactMap { $0.url.map(EONETText.trimmed) }.filter { !$0.isEmpty }.map(EONETText.decodingEntities)
        geometry = try container.decodeIfPresent([EONETGeometry].self, forKey: .geometry) ?? []
    }

    /// The ISO-8601 date at `key` (with or without fractional seconds).
    static func date<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key) throws -> Date {
        let text = EONETText.trimmed(try container.decode(String.self, forKey: key))
        guard let date = ISO8601.date(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "not an ISO-8601 date: '\(text)'")
        }
        return date
    }

    /// The ISO-8601 date at `key`, nil when null.
    static func optionalDate<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key) throws
        -> Date?
    {
        try container.decodeNil(forKey: key) ? nil : date(in: container, forKey: key)
    }
}
