import Foundation
import MonitorCore

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
    var categories: [String]
    /// The URLs of its sources, in its order, HTML entities decoded.
    var sources: [String]
    /// How many observations it has.
    var observations = 0
    /// Its newest observation (the last listed of those of the newest date), with its position.
    var latest: EONETGeometry?
    /// Its newest observation with a magnitude.
    var latestMagnitude: EONETGeometry?

    /// An event.
    init(
        id: String, title: String, description: String? = nil, link: String? = nil, closed: Date? = nil,
        categories: [String] = [], sources: [String] = [], geometry: [EONETGeometry] = []
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.link = link
        self.closed = closed
        self.categories = categories
        self.sources = sources
        for observation in geometry { observe(observation) }
    }

    /// Takes `observation` into account, listed after those before; true when it is the newest so far (of
    /// equal dates, the last listed is the newest).
    @discardableResult
    mutating func observe(_ observation: EONETGeometry) -> Bool {
        observations += 1
        if observation.magnitudeValue != nil, latestMagnitude.map({ observation.date >= $0.date }) ?? true {
            latestMagnitude = observation
        }
        guard latest.map({ observation.date >= $0.date }) ?? true else { return false }
        latest = observation
        return true
    }
}

// MARK: - Reading

extension EONETEvent {
    /// Reads the event that must come next; an error names the member at fault. Each text is cleaned as it is
    /// read; the link is decoded only when the event has no source, as the item shows it only then.
    init(from reader: inout JSONReader) throws(JSONError) {
        try reader.enterObject()
        var id: String?
        var title: String?
        var description: String?
        var link: JSONText?
        var closed: Date?
        var categories: [String] = []
        var sources: [String] = []
        var track = EONETGeometry.Track()
        var index = 0
        while let key = try reader.nextKey(index) {
            index += 1
            if reader.key(key, is: "id") {
                id = try reader.member(.key("id")) { (reader: inout JSONReader) throws(JSONError) in
                    EONETText.trimmed(try reader.string())
                }
            } else if reader.key(key, is: "title") {
                title = try reader.member(.key("title")) { (reader: inout JSONReader) throws(JSONError) in
                    try reader.null() ? nil : try EONETText.cleaned(&reader)
                }
            } else if reader.key(key, is: "description") {
                description = try reader.member(.key("description")) { (reader: inout JSONReader) throws(JSONError) in
                    try reader.null() ? nil : try EONETText.cleaned(&reader)
                }
            } else if reader.key(key, is: "link") {
                link = try reader.member(.key("link")) { (reader: inout JSONReader) throws(JSONError) in
                    try reader.null() ? nil : try reader.stringText()
                }
            } else if reader.key(key, is: "closed") {
                closed = try reader.member(.key("closed")) { (reader: inout JSONReader) throws(JSONError) in
                    try reader.null() ? nil : try EONETText.date(&reader)
                }
            } else if reader.key(key, is: "categories") {
                categories = try reader.member(.key("categories")) { (reader: inout JSONReader) throws(JSONError) in
                    try Self.references(&reader, keeping: "id") { (reader: inout JSONReader) throws(JSONError) in
                        try reader.optionalString().map(EONETText.trimmed)
                    }
                }
            } else if reader.key(key, is: "sources") {
                sources = try reader.member(.key("sources")) { (reader: inout JSONReader) throws(JSONError) in
                    try Self.references(&reader, keeping: "url", as: EONETText.url)
                }
            } else if reader.key(key, is: "geometry") {
                track = try reader.member(.key("geometry")) { (reader: inout JSONReader) throws(JSONError) in
                    try EONETGeometry.track(&reader)
                }
            } else {
                try reader.skipMember(key)
            }
        }
        guard let id else { throw .missing("id") }
        self.init(id: id, title: title ?? "", description: description.flatMap { $0.isEmpty ? nil : $0 })
        self.closed = closed
        self.categories = categories
        self.sources = sources
        // Decoded when shown, or to check it (raw UTF-8, escapes) as every string is checked.
        if let link, sources.isEmpty || !link.ascii || link.escaped {
            let text = try reader.member(.key("link")) { (reader: inout JSONReader) throws(JSONError) in
                EONETText.trimmed(try reader.decoded(link))
            }
            if sources.isEmpty, !text.isEmpty { self.link = EONETText.decodingEntities(text) }
        }
        observations = track.count
        latest = track.newest?.geometry
        latestMagnitude = track.newestMagnitude
        // Only the newest observation's coordinates are read, for its position.
        if let newest = track.newest, let coordinates = newest.coordinates {
            var position = JSONReader(reader.bytes, at: coordinates, depth: 0)
            latest?.position = try? EONETGeometry.position(of: newest.geometry.type, &position)
        }
    }

    /// A list of `{"id","url"}` references (or null): of each, the string at `kept` as `read` reads it (nil:
    /// left out). The other member is checked and skipped.
    static func references(
        _ reader: inout JSONReader, keeping kept: StaticString,
        as read: (inout JSONReader) throws(JSONError) -> String?
    ) throws(JSONError) -> [String] {
        guard try !reader.null() else { return [] }
        try reader.enterArray()
        var values: [String] = []
        var index = 0
        while try reader.nextElement(index) {
            try reader.member(.index(index)) { (reader: inout JSONReader) throws(JSONError) in
                try reader.enterObject()
                var member = 0
                var value: String?
                while let key = try reader.nextKey(member) {
                    member += 1
                    if reader.key(key, is: kept) {
                        value = try reader.member(.key(kept.description), read)
                    } else if reader.key(key, is: "id") || reader.key(key, is: "url") {
                        // The other reference must be a string or null all the same.
                        let name = reader.key(key, is: "id") ? "id" : "url"
                        try reader.member(.key(name)) { (reader: inout JSONReader) throws(JSONError) in
                            if try !reader.null() { try reader.checkString() }
                        }
                    } else {
                        try reader.skipMember(key)
                    }
                }
                if let value { values.append(value) }
            }
            index += 1
        }
        return values
    }
}
