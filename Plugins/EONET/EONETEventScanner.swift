import Foundation
import MonitorCore
import MonitorItems
import MonitorJSON

/// Reads an event of the usual shape straight from the response's bytes into its item, without an `EONETEvent`
/// first: the members matched by their length and bytes, the texts made once from the bytes, the observations
/// reduced to the newest as they are read (only its coordinates read as numbers), the groups of the event before
/// reused while the categories' bytes are the same.
///
/// It takes only what it is sure of: JSON whose strings are ASCII without escapes, dates of the fixed shape, each
/// member of interest at most once. On anything else — an escape, raw UTF-8, another date shape, a duplicate
/// member, a fault — it gives up on the event (nil), and the caller reads that event again with
/// `EONETEvent(from:previous:)`, which makes the same item or refuses the document with the error and its path:
/// the scanner never refuses anything and never decides what an unusual event means. Its steps are `JSONReader`'s.
struct EONETEventScanner {
    /// The category whose response this is.
    private let requested: String
    /// The categories the feed polls.
    private let selected: Set<String>
    /// The category ids of the event being read (trimmed).
    private var categories: [JSONText] = []
    /// Those of the event before whose groups are `groups`.
    private var lastCategories: [JSONText] = []
    /// The groups of an event of `lastCategories`; nil before the first.
    private var groups: [String]?

    /// A scanner of the response of `requested` while the feed polls `selected`.
    init(requested: String, selected: Set<String>) {
        self.requested = requested
        self.selected = selected
    }

    /// What the scanner throws to give up on an event: it is not of the usual shape.
    private static let unusual = JSONError(.value("not an event of the usual shape"))

    // MARK: - The event

    /// The newest observation read so far, and the newest with a magnitude.
    private struct Track {
        /// The date of the newest.
        var date: Date?
        /// Its `type`, as written (nil when null or absent).
        var type: JSONText?
        /// The offset of its coordinates (nil when null or absent).
        var coordinates: Int?
        /// The date of the newest with a magnitude.
        var magnitudeDate: Date?
        /// Its magnitude.
        var magnitude = 0.0
        /// Its unit, as written (nil when null or absent).
        var unit: JSONText?
    }

    /// The members of an event, bits of `seen`.
    private enum Member: UInt16 {
        case id = 1, title = 2, description = 4, link = 8, closed = 16, categories = 32, sources = 64, geometry = 128
        case magnitudeValue = 256, magnitudeUnit = 512, date = 1024, type = 2048, coordinates = 4096
        case url = 8192
    }

    /// Reads the event that comes next in `reader`, which moves past it, adding its item to `items` (or its id to
    /// `undated`: it has no date); false, `reader` and the lists unchanged, when it is not of the usual shape (see
    /// the type). The item is made in place: an event costs no copy of it.
    mutating func event(_ reader: inout JSONReader, into items: inout [Item], undated: inout [String]) -> Bool {
        var scanning = reader
        do throws(JSONError) {
            try read(&scanning, into: &items, undated: &undated)
            reader = scanning
            return true
        } catch {
            return false
        }
    }

    /// `event(_:into:undated:)`, throwing `unusual` (or the reader's error) before it adds anything when the event is
    /// not of the usual shape.
    private mutating func read(
        _ reader: inout JSONReader, into items: inout [Item], undated: inout [String]
    ) throws(JSONError) {
        var seen: UInt16 = 0
        var id: JSONText?
        var title: JSONText?
        var description: JSONText?
        var link: JSONText?
        var closed: Date?
        var source: JSONText?
        var track = Track()
        categories.removeAll(keepingCapacity: true)
        try reader.enterObject()
        var members = 0
        while let key = try reader.nextKey(members, likely: Self.eventKeys[min(members, 7)]) {
            members += 1
            guard key.ascii, !key.escaped else { throw Self.unusual }
            switch key.count {
            case 2 where reader.key(key, is: "id"):
                try Self.see(.id, in: &seen)
                id = reader.trimmed(try Self.string(&reader))
            case 5 where reader.key(key, is: "title"):
                try Self.see(.title, in: &seen)
                title = try Self.optionalString(&reader)
            case 11 where reader.key(key, is: "description"):
                try Self.see(.description, in: &seen)
                description = try Self.optionalString(&reader)
            case 4 where reader.key(key, is: "link"):
                try Self.see(.link, in: &seen)
                link = try Self.optionalString(&reader)
            case 6 where reader.key(key, is: "closed"):
                try Self.see(.closed, in: &seen)
                if try !reader.null() { closed = try Self.date(&reader) }
            case 10 where reader.key(key, is: "categories"):
                try Self.see(.categories, in: &seen)
                try readCategories(&reader)
            case 7 where reader.key(key, is: "sources"):
                try Self.see(.sources, in: &seen)
                source = try Self.firstSource(&reader)
            case 8 where reader.key(key, is: "geometry"):
                try Self.see(.geometry, in: &seen)
                try Self.observations(&track, &reader)
            default:
                try reader.skip()
            }
        }
        guard let id else { throw Self.unusual }
        let identifier = reader.string(id)

        // Its newest activity: its newest observation, or its closing when that is later.
        var date = closed
        if let observed = track.date { date = closed.map { max(observed, $0) } ?? observed }
        guard let date else { return undated.append(identifier) }

        var magnitude: EONETGeometry?
        if track.magnitudeDate != nil {
            let unit = track.unit.map { reader.string($0).collapsingWhitespace() }
            magnitude = EONETGeometry(
                magnitudeValue: track.magnitude, magnitudeUnit: unit.flatMap { $0.isEmpty ? nil : $0 }, date: date,
                type: "")
        }
        var geometry: String?
        var position: EONETGeometry.Position?
        if track.date != nil {
            let type = track.type.map { reader.string(reader.trimmed($0)) } ?? ""
            geometry = type.isEmpty ? nil : type
            if let coordinates = track.coordinates {
                var coordinatesReader = JSONReader(reader.bytes, at: coordinates, depth: 0)
                position = try? EONETGeometry.position(of: type, &coordinatesReader)
            }
        }
        // The URL: the first source's, else the link, trimmed and its character references decoded.
        var url: String?
        if let source {
            url = try reader.referenceURL(source)
        } else if let link {
            url = try reader.referenceURL(link)
        }
        let text = try title.map { (title) throws(JSONError) in try reader.cleanedString(title) } ?? ""
        let about = try description.map { (text) throws(JSONError) in try reader.cleanedString(text) }
        items.append(
            EONETEvent.item(
                id: identifier, title: text, date: date, groups: groupsOfCategories(reader), url: url, closed: closed,
                magnitude: magnitude, position: position, geometry: geometry,
                description: about.flatMap { $0.isEmpty ? nil : $0 }))
    }

    /// Marks `member` as read; unusual when it was read before (the general reader takes the last: left to it).
    @inline(__always)
    private static func see(_ member: Member, in seen: inout UInt16) throws(JSONError) {
        guard seen & member.rawValue == 0 else { throw unusual }
        seen |= member.rawValue
    }

    /// The ids of the categories that come next (or null: none) into `categories`: each a reference whose `id` is
    /// kept, trimmed (a null id left out).
    private mutating func readCategories(_ reader: inout JSONReader) throws(JSONError) {
        if try reader.null() { return }
        try reader.enterArray()
        var element = 0
        while try reader.nextElement(element) {
            element += 1
            if let id = try Self.reference(&reader, second: "title").id { categories.append(id) }
        }
    }

    /// The URL of the first source that comes next (or null: none) whose URL is not null or blank, trimmed; nil when
    /// there is none.
    private static func firstSource(_ reader: inout JSONReader) throws(JSONError) -> JSONText? {
        if try reader.null() { return nil }
        var source: JSONText?
        try reader.enterArray()
        var element = 0
        while try reader.nextElement(element) {
            element += 1
            let url = try reference(&reader, second: "url").url
            if source == nil, let url, url.count > 0 { source = url }
        }
        return source
    }

    /// The `{"id","url",…}` reference to a category or a source that comes next: its `id` and `url`, each a string or
    /// null, trimmed; its other members skipped. `second`: the key that usually comes after the id.
    private static func reference(
        _ reader: inout JSONReader, second: StaticString
    ) throws(JSONError) -> (id: JSONText?, url: JSONText?) {
        try reader.enterObject()
        var seen: UInt16 = 0
        var id: JSONText?
        var url: JSONText?
        var members = 0
        while let key = try reader.nextKey(members, likely: members == 0 ? "id" : second) {
            members += 1
            guard key.ascii, !key.escaped else { throw unusual }
            if key.count == 2, reader.key(key, is: "id") {
                try see(.id, in: &seen)
                id = try optionalString(&reader).map { reader.trimmed($0) }
            } else if key.count == 3, reader.key(key, is: "url") {
                try see(.url, in: &seen)
                url = try optionalString(&reader).map { reader.trimmed($0) }
            } else {
                try reader.skip()
            }
        }
        return (id, url)
    }

    /// Reads the observations that come next (or null: none) into `track`: each an object with a `date` of the
    /// fixed shape, a `magnitudeValue` number or null, a `magnitudeUnit` and a `type` string or null, and
    /// `coordinates` of numbers in lists at most `EONETGeometry.maximumDepth` deep, or null; other members skipped.
    /// Of equal dates, the last listed is the newest.
    private static func observations(_ track: inout Track, _ reader: inout JSONReader) throws(JSONError) {
        if try reader.null() { return }
        try reader.enterArray()
        var element = 0
        while try reader.nextElement(element) {
            element += 1
            try reader.enterObject()
            var seen: UInt16 = 0
            var magnitude: Double?
            var unit: JSONText?
            var date: Date?
            var type: JSONText?
            var coordinates: Int?
            var members = 0
            while let key = try reader.nextKey(members, likely: observationKeys[min(members, 4)]) {
                members += 1
                guard key.ascii, !key.escaped else { throw unusual }
                switch key.count {
                case 14 where reader.key(key, is: "magnitudeValue"):
                    try see(.magnitudeValue, in: &seen)
                    if try !reader.null() { magnitude = try reader.number() }
                case 13 where reader.key(key, is: "magnitudeUnit"):
                    try see(.magnitudeUnit, in: &seen)
                    unit = try optionalString(&reader)
                case 4 where reader.key(key, is: "date"):
                    try see(.date, in: &seen)
                    date = try Self.date(&reader)
                case 4 where reader.key(key, is: "type"):
                    try see(.type, in: &seen)
                    type = try optionalString(&reader)
                case 11 where reader.key(key, is: "coordinates"):
                    try see(.coordinates, in: &seen)
                    if try !reader.null() {
                        coordinates = reader.offset
                        guard reader.skipNumbers(lists: EONETGeometry.maximumDepth) else { throw unusual }
                    }
                default:
                    try reader.skip()
                }
            }
            guard let date else { throw unusual }
            if let magnitude, track.magnitudeDate.map({ date >= $0 }) ?? true {
                track.magnitudeDate = date
                track.magnitude = magnitude
                track.unit = unit
            }
            if track.date.map({ date >= $0 }) ?? true {
                track.date = date
                track.type = type
                track.coordinates = coordinates
            }
        }
    }

    /// The groups of an event of `categories`: those of the event before when its categories are the same bytes.
    private mutating func groupsOfCategories(_ reader: JSONReader) -> [String] {
        if let groups, categories.count == lastCategories.count {
            var same = true
            for (one, other) in zip(categories, lastCategories) where !reader.same(one, other) {
                same = false
                break
            }
            if same { return groups }
        }
        let made = EONETEvent.groups(of: categories.map { reader.string($0) }, requested: requested, selected: selected)
        groups = made
        swap(&categories, &lastCategories)
        return made
    }

    // MARK: - Values

    /// The members of an event in the order EONET writes them: the key expected after as many members.
    private static let eventKeys: [StaticString] = [
        "id", "title", "description", "link", "closed", "categories", "sources", "geometry",
    ]
    /// The members of an observation in the order EONET writes them.
    private static let observationKeys: [StaticString] = [
        "magnitudeValue", "magnitudeUnit", "date", "type", "coordinates",
    ]

    /// The string that must come next, when it is ASCII without escapes.
    @inline(__always)
    private static func string(_ reader: inout JSONReader) throws(JSONError) -> JSONText {
        let text = try reader.stringText()
        guard text.ascii, !text.escaped else { throw unusual }
        return text
    }

    /// The string that must come next (ASCII without escapes), or nil for a null.
    @inline(__always)
    private static func optionalString(_ reader: inout JSONReader) throws(JSONError) -> JSONText? {
        try reader.null() ? nil : try string(&reader)
    }

    /// The date that must come next, a string of the fixed shape (`2025-09-21T18:00:00Z`).
    @inline(__always)
    private static func date(_ reader: inout JSONReader) throws(JSONError) -> Date {
        guard let date = reader.withBytes(of: try string(&reader), ISO8601.fixedDate) else { throw unusual }
        return date
    }
}
