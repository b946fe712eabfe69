import Foundation
import MonitorCore

/// Reads an event of the usual shape straight from the response's bytes into its item, without an `EONETEvent`
/// first: the members matched by their length and bytes, the texts made once from the bytes, the observations
/// reduced to the newest as they are read (only its coordinates read as numbers), the groups of the event before
/// reused while the categories' bytes are the same.
///
/// It takes only what it is sure of: JSON whose strings are ASCII without escapes, dates of the fixed shape, each
/// member of interest at most once. On anything else — an escape, raw UTF-8, another date shape, a duplicate
/// member, a fault — it gives up on the event (nil), and the caller reads that event again with
/// `EONETEvent(from:previous:)`, which makes the same item or refuses the document with the error and its path:
/// the scanner never refuses anything and never decides what an unusual event means.
///
/// It works on a pointer to the document, so it lives only inside the caller's `withUnsafeBufferPointer`.
struct EONETEventScanner {
    /// What one event comes to.
    enum Event {
        /// The event's item.
        case item(Item)
        /// An event without a date (no item): its id.
        case undated(String)
    }

    /// Where a string is in the document, quotes excluded.
    struct Span: Equatable {
        var start: Int
        var end: Int
        var count: Int { end - start }
    }

    /// The document, for what is read by `JSONReader`: members of no interest, and unusual coordinates.
    private let document: [UInt8]
    /// Its bytes.
    private let buffer: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    private(set) var index = 0
    /// The category whose response this is.
    private let requested: String
    /// The categories the feed polls.
    private let selected: Set<String>
    /// The category ids of the event being read (spans of trimmed ids).
    private var categories: [Span] = []
    /// Those of the event before whose groups are `groups`.
    private var lastCategories: [Span] = []
    /// The groups of an event of `lastCategories`; nil before the first.
    private var groups: [String]?

    /// A scanner of `document`, whose bytes are `buffer`, for the response of `requested` while the feed polls
    /// `selected`.
    init(document: [UInt8], buffer: UnsafeBufferPointer<UInt8>, requested: String, selected: Set<String>) {
        self.document = document
        self.buffer = buffer
        self.requested = requested
        self.selected = selected
    }

    // MARK: - The event

    /// The newest observation read so far, and the newest with a magnitude.
    private struct Track {
        /// The date of the newest.
        var date: Date?
        /// Its `type`, as written (nil when null or absent).
        var type: Span?
        /// The offset of its coordinates (nil when null or absent).
        var coordinates: Int?
        /// The date of the newest with a magnitude.
        var magnitudeDate: Date?
        /// Its magnitude.
        var magnitude = 0.0
        /// Its unit, as written (nil when null or absent).
        var unit: Span?
    }

    /// The members of an event, bits of `seen`.
    private enum Member: UInt16 {
        case id = 1, title = 2, description = 4, link = 8, closed = 16, categories = 32, sources = 64, geometry = 128
        case magnitudeValue = 256, magnitudeUnit = 512, date = 1024, type = 2048, coordinates = 4096
        case url = 8192
    }

    /// The event whose object starts at `start` (whitespace before it allowed), `depth` lists and objects deep,
    /// and the offset after its object; nil when it is not of the usual shape (see the type).
    mutating func event(at start: Int, depth: Int) -> (event: Event, end: Int)? {
        index = start
        guard open(UInt8(ascii: "{")) else { return nil }
        var seen: UInt16 = 0
        var id: Span?
        var title: Span?
        var description: Span?
        var link: Span?
        var closed: Date?
        var source: Span?
        var track = Track()
        categories.removeAll(keepingCapacity: true)
        var members = 0
        while true {
            guard let step = nextKey(members == 0, likely: Self.eventKeys[min(members, 7)]) else { return nil }
            guard let key = step else { break }
            members += 1
            switch key.count {
            case 2 where isKey(key, "id"):
                guard see(.id, in: &seen), let text = string() else { return nil }
                id = trimmed(text)
            case 5 where isKey(key, "title"):
                guard see(.title, in: &seen), let text = optionalString() else { return nil }
                title = text
            case 11 where isKey(key, "description"):
                guard see(.description, in: &seen), let text = optionalString() else { return nil }
                description = text
            case 4 where isKey(key, "link"):
                guard see(.link, in: &seen), let text = optionalString() else { return nil }
                link = text
            case 6 where isKey(key, "closed"):
                guard see(.closed, in: &seen) else { return nil }
                if !null() {
                    guard let date = date() else { return nil }
                    closed = date
                }
            case 10 where isKey(key, "categories"):
                guard see(.categories, in: &seen), readCategories(depth: depth + 1) else { return nil }
            case 7 where isKey(key, "sources"):
                guard see(.sources, in: &seen), let found = firstSource(depth: depth + 1) else { return nil }
                source = found
            case 8 where isKey(key, "geometry"):
                guard see(.geometry, in: &seen), observations(&track, depth: depth + 1) else { return nil }
            default:
                guard skip(depth: depth + 1) else { return nil }
            }
        }
        guard let id else { return nil }
        let end = index
        let identifier = text(id)

        // Its newest activity: its newest observation, or its closing when that is later.
        var date = closed
        if let observed = track.date { date = closed.map { max(observed, $0) } ?? observed }
        guard let date else { return (.undated(identifier), end) }

        var magnitude: String?
        if track.magnitudeDate != nil {
            let unit = track.unit.map { EONETText.collapsed(text($0)) }
            magnitude =
                EONETGeometry(
                    magnitudeValue: track.magnitude, magnitudeUnit: unit.flatMap { $0.isEmpty ? nil : $0 }, date: date,
                    type: ""
                ).magnitude
        }
        var geometry: String?
        var position: EONETGeometry.Position?
        if track.date != nil {
            let type = track.type.map { text(trimmed($0)) } ?? ""
            geometry = type.isEmpty ? nil : type
            if let coordinates = track.coordinates { position = self.position(of: type, at: coordinates) }
        }
        // The URL: the first source's, else the link, trimmed and its character references decoded.
        var url = source.map { EONETText.decodingEntities(ascii: bytes(of: $0)) }
        if url == nil, let link {
            let trimmedLink = trimmed(link)
            if trimmedLink.count > 0 { url = EONETText.decodingEntities(ascii: bytes(of: trimmedLink)) }
        }
        let item = EONETEvent.item(
            id: identifier, title: title.map(cleaned) ?? "", date: date, groups: groupsOfCategories(), url: url,
            closed: closed, magnitude: magnitude, position: position, geometry: geometry,
            description: description.map(cleaned).flatMap { $0.isEmpty ? nil : $0 })
        return (.item(item), end)
    }

    /// Marks `member` as read; false when it was read before (the general reader takes the last: left to it).
    @inline(__always)
    private func see(_ member: Member, in seen: inout UInt16) -> Bool {
        guard seen & member.rawValue == 0 else { return false }
        seen |= member.rawValue
        return true
    }

    /// The ids of the categories that come next (or null: none) into `categories`: each element an object, its
    /// `id` trimmed (a null id left out), its `url` a string or null, its other members skipped.
    private mutating func readCategories(depth: Int) -> Bool {
        if null() { return true }
        guard open(UInt8(ascii: "[")) else { return false }
        var first = true
        while true {
            guard let more = nextElement(first) else { return false }
            guard more else { return true }
            first = false
            guard open(UInt8(ascii: "{")) else { return false }
            var seen: UInt16 = 0
            var id: Span?
            var firstMember = true
            while true {
                guard let step = nextKey(firstMember, likely: firstMember ? "id" : "title") else { return false }
                guard let key = step else { break }
                firstMember = false
                if key.count == 2, isKey(key, "id") {
                    guard see(.id, in: &seen), let text = optionalString() else { return false }
                    id = text.map(trimmed)
                } else if key.count == 3, isKey(key, "url") {
                    guard see(.url, in: &seen), optionalString() != nil else { return false }
                } else {
                    guard skip(depth: depth + 2) else { return false }
                }
            }
            if let id { categories.append(id) }
        }
    }

    /// The URL of the first source that comes next (or null: none) whose URL is not null or blank, trimmed: `.some(nil)`
    /// when there is none; nil when the list is not of the usual shape. Each element is an object whose `id` and
    /// `url` are strings or null, its other members skipped.
    private mutating func firstSource(depth: Int) -> Span?? {
        if null() { return .some(nil) }
        guard open(UInt8(ascii: "[")) else { return nil }
        var source: Span?
        var first = true
        while true {
            guard let more = nextElement(first) else { return nil }
            guard more else { return .some(source) }
            first = false
            guard open(UInt8(ascii: "{")) else { return nil }
            var seen: UInt16 = 0
            var url: Span?
            var firstMember = true
            while true {
                guard let step = nextKey(firstMember, likely: firstMember ? "id" : "url") else { return nil }
                guard let key = step else { break }
                firstMember = false
                if key.count == 2, isKey(key, "id") {
                    guard see(.id, in: &seen), optionalString() != nil else { return nil }
                } else if key.count == 3, isKey(key, "url") {
                    guard see(.url, in: &seen), let text = optionalString() else { return nil }
                    url = text.map(trimmed)
                } else {
                    guard skip(depth: depth + 2) else { return nil }
                }
            }
            if source == nil, let url, url.count > 0 { source = url }
        }
    }

    /// Reads the observations that come next (or null: none) into `track`: each an object with a `date` of the
    /// fixed shape, a `magnitudeValue` number or null, a `magnitudeUnit` and a `type` string or null, and
    /// `coordinates` of numbers in lists at most `EONETGeometry.maximumDepth` deep, or null; other members skipped.
    /// Of equal dates, the last listed is the newest.
    private mutating func observations(_ track: inout Track, depth: Int) -> Bool {
        if null() { return true }
        guard open(UInt8(ascii: "[")) else { return false }
        var first = true
        while true {
            guard let more = nextElement(first) else { return false }
            guard more else { return true }
            first = false
            guard open(UInt8(ascii: "{")) else { return false }
            var seen: UInt16 = 0
            var magnitude: Double?
            var unit: Span?
            var date: Date?
            var type: Span?
            var coordinates: Int?
            var members = 0
            while true {
                guard let step = nextKey(members == 0, likely: Self.observationKeys[min(members, 4)]) else {
                    return false
                }
                guard let key = step else { break }
                members += 1
                switch key.count {
                case 14 where isKey(key, "magnitudeValue"):
                    guard see(.magnitudeValue, in: &seen) else { return false }
                    if !null() {
                        guard let value = number() else { return false }
                        magnitude = value
                    }
                case 13 where isKey(key, "magnitudeUnit"):
                    guard see(.magnitudeUnit, in: &seen), let text = optionalString() else { return false }
                    unit = text
                case 4 where isKey(key, "date"):
                    guard see(.date, in: &seen), let value = self.date() else { return false }
                    date = value
                case 4 where isKey(key, "type"):
                    guard see(.type, in: &seen), let text = optionalString() else { return false }
                    type = text
                case 11 where isKey(key, "coordinates"):
                    guard see(.coordinates, in: &seen) else { return false }
                    if !null() {
                        coordinates = index
                        guard skipCoordinates() else { return false }
                    }
                default:
                    guard skip(depth: depth + 2) else { return false }
                }
            }
            guard let date else { return false }
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

    /// The position of an observation of `type` whose coordinates are at `offset`: a Point's `[lon, lat]` read here,
    /// any other shape (or a Point of more numbers) by `EONETGeometry.position(of:_:)`.
    private mutating func position(of type: String, at offset: Int) -> EONETGeometry.Position? {
        if type == "Point" {
            index = offset
            if open(UInt8(ascii: "[")), let longitude = number(), comma(), let latitude = number() {
                skipWhitespace()
                if index < buffer.count, buffer[index] == UInt8(ascii: "]") {
                    return EONETGeometry.Position(latitude: latitude, longitude: longitude)
                }
            }
        }
        var reader = JSONReader(document, at: offset, depth: 0)
        return try? EONETGeometry.position(of: type, &reader)
    }

    /// The groups of an event of `categories`: those of the event before when its categories are the same bytes.
    private mutating func groupsOfCategories() -> [String] {
        if let groups, categories.count == lastCategories.count {
            var same = true
            for (one, other) in zip(categories, lastCategories) where !equal(one, other) {
                same = false
                break
            }
            if same { return groups }
        }
        let made = EONETEvent.groups(of: categories.map(text), requested: requested, selected: selected)
        groups = made
        swap(&categories, &lastCategories)
        return made
    }

    // MARK: - Values

    /// Skips whitespace (`JSONReader`'s step, inlined here).
    @inline(__always)
    private mutating func skipWhitespace() {
        index = JSONReader.whitespaceEnd(buffer, from: index)
    }

    /// Reads `byte` (`{` or `[`) after whitespace; false when something else comes.
    @inline(__always)
    private mutating func open(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < buffer.count, buffer[index] == byte else { return false }
        index += 1
        return true
    }

    /// Reads a `,` after whitespace; false when something else comes.
    @inline(__always)
    private mutating func comma() -> Bool {
        open(UInt8(ascii: ","))
    }

    /// The members of an event in the order EONET writes them: the key expected after as many members.
    private static let eventKeys: [StaticString] = [
        "id", "title", "description", "link", "closed", "categories", "sources", "geometry",
    ]
    /// The members of an observation in the order EONET writes them.
    private static let observationKeys: [StaticString] = [
        "magnitudeValue", "magnitudeUnit", "date", "type", "coordinates",
    ]

    /// The key of the object's next member, its `:` read: `.some(nil)` at the object's end (its `}` read), nil when
    /// the object is not well formed or the key is not plain ASCII. `first`: no member was read before. When the
    /// key is `likely` (the member that usually comes next), it is compared in place instead of scanned.
    @inline(__always)
    private mutating func nextKey(_ first: Bool, likely: StaticString) -> Span?? {
        skipWhitespace()
        guard index < buffer.count else { return nil }
        if buffer[index] == UInt8(ascii: "}") {
            index += 1
            return .some(nil)
        }
        if !first {
            guard buffer[index] == UInt8(ascii: ",") else { return nil }
            index += 1
            skipWhitespace()
        }
        let length = likely.utf8CodeUnitCount
        let key: Span
        // `"likely"` exactly: a key of those bytes, nothing to check.
        if index + length + 2 <= buffer.count, buffer[index] == UInt8(ascii: "\""),
            buffer[index + length + 1] == UInt8(ascii: "\""),
            Self.same(buffer.baseAddress! + index + 1, likely.utf8Start, length)
        {
            key = Span(start: index + 1, end: index + 1 + length)
            index += length + 2
        } else {
            guard let scanned = string() else { return nil }
            key = scanned
        }
        skipWhitespace()
        guard index < buffer.count, buffer[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        return .some(key)
    }

    /// Whether the list has another element (its `,` read), false at its end (its `]` read); nil when the list is
    /// not well formed. `first`: no element was read before.
    @inline(__always)
    private mutating func nextElement(_ first: Bool) -> Bool? {
        skipWhitespace()
        guard index < buffer.count else { return nil }
        if buffer[index] == UInt8(ascii: "]") {
            index += 1
            return false
        }
        if !first {
            guard buffer[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
        return true
    }

    /// Whether `key` is `name`.
    @inline(__always)
    private func isKey(_ key: Span, _ name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        let start = buffer.baseAddress! + key.start
        for offset in 0..<key.count where start[offset] != name.utf8Start[offset] { return false }
        return true
    }

    /// Reads `null` if it comes next (after whitespace); true when it did.
    @inline(__always)
    private mutating func null() -> Bool {
        skipWhitespace()
        guard index + 4 <= buffer.count, buffer[index] == UInt8(ascii: "n"), buffer[index + 1] == UInt8(ascii: "u"),
            buffer[index + 2] == UInt8(ascii: "l"), buffer[index + 3] == UInt8(ascii: "l")
        else { return false }
        index += 4
        return true
    }

    /// The string that must come next (after whitespace), when it is ASCII without escapes.
    @inline(__always)
    private mutating func string() -> Span? {
        skipWhitespace()
        guard index < buffer.count, buffer[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var offset = start
        let count = buffer.count
        var high: UInt64 = 0
        while true {
            // Eight bytes at a time up to the first that is a quote, a backslash or a control character.
            while JSONReader.littleEndian, offset + 8 <= count {
                let word = UnsafeRawPointer(buffer.baseAddress! + offset).loadUnaligned(as: UInt64.self)
                let stops = JSONReader.stringStops(word)
                if stops != 0 {
                    let plain = stops.trailingZeroBitCount / 8
                    if plain > 0 { high |= word & (UInt64.max >> UInt64(64 - 8 * plain)) }
                    offset += plain
                    break
                }
                high |= word
                offset += 8
            }
            guard offset < count else { return nil }
            let byte = buffer[offset]
            if byte == UInt8(ascii: "\"") { break }
            guard byte != UInt8(ascii: "\\"), byte >= 0x20 else { return nil }
            high |= UInt64(byte)
            offset += 1
        }
        guard high & 0x8080_8080_8080_8080 == 0 else { return nil }
        index = offset + 1
        return Span(start: start, end: offset)
    }

    /// The string that must come next, or null: `.some(nil)` for a null; nil when it is neither, or a string that is
    /// not ASCII without escapes.
    @inline(__always)
    private mutating func optionalString() -> Span?? {
        if null() { return .some(nil) }
        guard let text = string() else { return nil }
        return .some(text)
    }

    /// The date that must come next, a string of the fixed shape (`2025-09-21T18:00:00Z`).
    @inline(__always)
    private mutating func date() -> Date? {
        guard let text = string() else { return nil }
        return ISO8601.fixedDate(bytes(of: text))
    }

    /// The number that must come next (after whitespace), finite.
    @inline(__always)
    private mutating func number() -> Double? {
        skipWhitespace()
        guard index < buffer.count else { return nil }
        let byte = buffer[index]
        guard byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10 else { return nil }
        let end = JSONReader.numberEnd(buffer, from: index)
        guard end >= 0 else { return nil }
        let value = JSONReader.double(buffer, from: index, to: end)
        guard value.isFinite else { return nil }
        index = end
        return value
    }

    /// Skips the number, or the lists of numbers at most `EONETGeometry.maximumDepth` deep, that comes next; false
    /// when it is anything else or not well formed.
    private mutating func skipCoordinates() -> Bool {
        var open = 0
        value: while true {
            skipWhitespace()
            guard index < buffer.count else { return false }
            let byte = buffer[index]
            if byte == UInt8(ascii: "[") {
                guard open < EONETGeometry.maximumDepth else { return false }
                open += 1
                index += 1
                skipWhitespace()
                guard index < buffer.count else { return false }
                guard buffer[index] == UInt8(ascii: "]") else { continue value }
                index += 1
                open -= 1
            } else if byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10 {
                let end = JSONReader.numberEnd(buffer, from: index)
                guard end >= 0 else { return false }
                index = end
            } else {
                return false
            }
            // After a value: close the lists that end here, then go on with the next element.
            while open > 0 {
                skipWhitespace()
                guard index < buffer.count else { return false }
                if buffer[index] == UInt8(ascii: ",") {
                    index += 1
                    continue value
                }
                guard buffer[index] == UInt8(ascii: "]") else { return false }
                index += 1
                open -= 1
            }
            return true
        }
    }

    /// Skips the value that comes next, of no interest, as `JSONReader.skip()` does at `depth` (which checks a string's
    /// escapes, not its UTF-8); false when it finds a fault.
    private mutating func skip(depth: Int) -> Bool {
        skipWhitespace()
        // A plain string (a category's title) here; any other value by the reader.
        if index < buffer.count, buffer[index] == UInt8(ascii: "\""), string() != nil { return true }
        var reader = JSONReader(document, at: index, depth: depth)
        do throws(JSONError) {
            try reader.skip()
        } catch {
            return false
        }
        index = reader.offset
        return true
    }

    // MARK: - Texts

    /// The bytes of `span`.
    @inline(__always)
    private func bytes(of span: Span) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[span.start..<span.end])
    }

    /// `span` without the whitespace at either end.
    @inline(__always)
    private func trimmed(_ span: Span) -> Span {
        var span = span
        while span.start < span.end, Self.isSpace(buffer[span.start]) { span.start += 1 }
        while span.end > span.start, Self.isSpace(buffer[span.end - 1]) { span.end -= 1 }
        return span
    }

    /// The text of `span` (ASCII).
    @inline(__always)
    private func text(_ span: Span) -> String {
        String(decoding: bytes(of: span), as: UTF8.self)
    }

    /// A title or description: its character references decoded, its whitespace collapsed, as
    /// `EONETText.cleaned(_:)`; made straight from the bytes when there is nothing to clean.
    private func cleaned(_ span: Span) -> String {
        let text = text(span)
        return EONETText.isClean(bytes(of: span)) ? text : EONETText.cleaned(text)
    }

    /// Whether the bytes of `one` and `other` are the same.
    @inline(__always)
    private func equal(_ one: Span, _ other: Span) -> Bool {
        guard one.count == other.count else { return false }
        let base = buffer.baseAddress!
        return Self.same(base + one.start, base + other.start, one.count)
    }

    // MARK: - Bytes
    //
    // The byte-level steps (whitespace, string stops, the number grammar) are `JSONReader`'s, inlined here.

    /// Whether the `count` bytes at `one` and `other` are the same, eight at a time (no call into libc for a key).
    @inline(__always)
    private static func same(_ one: UnsafePointer<UInt8>, _ other: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        guard count >= 8 else {
            for offset in 0..<count where one[offset] != other[offset] { return false }
            return true
        }
        func word(_ pointer: UnsafePointer<UInt8>, _ offset: Int) -> UInt64 {
            UnsafeRawPointer(pointer + offset).loadUnaligned(as: UInt64.self)
        }
        var offset = 0
        while offset + 8 <= count {
            guard word(one, offset) == word(other, offset) else { return false }
            offset += 8
        }
        return offset == count || word(one, count - 8) == word(other, count - 8)
    }

    /// Whitespace as `EONETText.trimmed(_:)` takes it in ASCII text.
    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
