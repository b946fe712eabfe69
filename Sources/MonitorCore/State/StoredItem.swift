import Foundation
import MonitorItems
import MonitorText

/// An item in the form the state stores it: its groups and details packed into one text each (read back without
/// a JSON decoder), and a fingerprint of everything but its id, so that a commit writes only the items that
/// changed.
///
/// A packed list is each element followed by U+001F (so `[]` is the empty text and `[""]` is one U+001F); inside
/// an element U+001A is written as U+001A U+0002 and U+001F as U+001A U+0001. Details are packed as name, value,
/// name, value…, followed by the item's location and magnitude as pairs whose names start with U+0001 (which no
/// stored detail's name has): `lat`, `lon`, `magnitude_value`, `magnitude_unit`, each number as Swift writes it.
package struct StoredItem {
    /// The item stored, packed only when it is written: a refresh writes few of the items it compares.
    private let item: Item
    /// A 64-bit FNV-1a hash of the title, date, packed groups, URL and packed details, then the location and magnitude.
    package let fingerprint: Int64

    /// The stored form of `item`.
    package init(_ item: Item) {
        self.item = item
        // The bytes of the packed texts are hashed as they would be packed, without packing them.
        var hash = FNV1a()
        hash.add(item.title)
        hash.add(item.date.timeIntervalSince1970.bitPattern)
        for group in item.groups { Self.add(group, to: &hash) }
        hash.add(UInt8(0xFF))
        if let url = item.url {
            hash.add(UInt8(1))
            hash.add(url)
        } else {
            hash.add(UInt8(0))
        }
        for detail in item.details {
            Self.add(detail.name, to: &hash)
            Self.add(detail.value, to: &hash)
        }
        if let location = item.location {
            hash.add(UInt8(1))
            hash.add(location.latitude.bitPattern)
            hash.add(location.longitude.bitPattern)
        }
        if let magnitude = item.magnitude {
            hash.add(UInt8(2))
            hash.add(magnitude.value.bitPattern)
            if let unit = magnitude.unit { hash.add(unit) }
        }
        hash.add(UInt8(0xFF))
        fingerprint = Int64(bitPattern: hash.value)
    }

    /// The item's groups, packed.
    package var groups: String { Self.pack(item.groups) }

    /// The item's details, then its location and magnitude as the pairs named by ``Number``, each number as Swift
    /// writes it, packed as name, value, name, value… (``pack(_:)`` of that list, without making it).
    package var details: String {
        var bytes: [UInt8] = []
        // A number's name and value take at most 42 bytes (Swift writes a Double in at most 24).
        bytes.reserveCapacity(
            item.details.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 }
                + (item.location == nil ? 0 : 64) + (item.magnitude.map { 64 + ($0.unit?.utf8.count ?? 0) } ?? 0))
        for detail in item.details {
            Self.append(detail.name, to: &bytes)
            Self.append(detail.value, to: &bytes)
        }
        if let location = item.location {
            Self.append(Number.latitude, to: &bytes)
            Self.append(location.latitude.description, to: &bytes)
            Self.append(Number.longitude, to: &bytes)
            Self.append(location.longitude.description, to: &bytes)
        }
        if let magnitude = item.magnitude {
            Self.append(Number.magnitudeValue, to: &bytes)
            Self.append(magnitude.value.description, to: &bytes)
            if let unit = magnitude.unit {
                Self.append(Number.magnitudeUnit, to: &bytes)
                Self.append(unit, to: &bytes)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `item` as it is stored: its id, title, link, groups and details without control characters, which SQLite's
    /// text would cut at a NUL and a terminal would obey.
    static func storable(_ item: Item) -> Item {
        var item = item
        // `sanitized` returns a text of printable ASCII (nearly all) as it is; a list of them is kept as it is too,
        // its storage shared: no copy of a list.
        item.id = TerminalText.sanitized(item.id)
        item.title = TerminalText.sanitized(item.title)
        item.url = item.url.map { TerminalText.sanitized($0) }
        if !item.groups.allSatisfy(TerminalText.isPrintableASCII) {
            item.groups = item.groups.map { TerminalText.sanitized($0) }
        }
        let printable = { (detail: Detail) in
            TerminalText.isPrintableASCII(detail.name) && TerminalText.isPrintableASCII(detail.value)
        }
        if !item.details.allSatisfy(printable) {
            item.details = item.details.map {
                Detail(TerminalText.sanitized($0.name), TerminalText.sanitized($0.value))
            }
        }
        return item
    }

    /// `group` as it is stored: without control characters.
    static func storable(_ group: ItemGroup) -> ItemGroup {
        ItemGroup(id: TerminalText.sanitized(group.id), title: TerminalText.sanitized(group.title))
    }

    /// What makes the `stored` catalog (each group's title and position, by id) the poll's `groups`, stored, writing
    /// only what differs: the groups to write (new, retitled or moved) with their positions, then the ids of the
    /// stored groups to delete.
    package static func catalogChanges(
        stored: [String: (title: String, position: Int)], to groups: [ItemGroup]
    ) -> (written: [(group: ItemGroup, position: Int)], deleted: [String]) {
        var stored = stored
        var written: [(group: ItemGroup, position: Int)] = []
        var kept = Set<String>()
        for (position, group) in groups.map(storable).enumerated() {
            kept.insert(group.id)
            if let current = stored[group.id], current.title == group.title, current.position == position { continue }
            stored[group.id] = (group.title, position)
            written.append((group, position))
        }
        return (written, stored.keys.filter { !kept.contains($0) })
    }

    private static let separator: UInt8 = 0x1F
    private static let escape: UInt8 = 0x1A

    /// `elements` packed into one text.
    static func pack(_ elements: [String]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.reduce(0) { $0 + $1.utf8.count + 1 })
        for element in elements { append(element, to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `element` and its separator to `bytes`: at once when it has neither a separator nor an escape (nearly
    /// always), else byte by byte with those escaped.
    private static func append(_ element: String, to bytes: inout [UInt8]) {
        let plain: Bool? = element.utf8.withContiguousStorageIfAvailable { buffer in
            guard !buffer.contains(where: { $0 == separator || $0 == escape }) else { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        if plain != true { eachPackedByte(of: element) { bytes.append($0) } }
        bytes.append(separator)
    }

    /// Adds the bytes ``append(_:to:)`` packs `element` into to `hash`.
    private static func add(_ element: String, to hash: inout FNV1a) {
        eachPackedByte(of: element) { hash.add($0) }
        hash.add(separator)
    }

    /// Hands the bytes of `element` packed (its separators and escapes escaped), its own separator not included, to
    /// `emit`: the one escaping rule of packing and of the fingerprint.
    private static func eachPackedByte(of element: String, _ emit: (UInt8) -> Void) {
        // Over the bytes in place, not through `String.UTF8View`'s iterator.
        var element = element
        element.withUTF8 { bytes in
            for byte in bytes {
                switch byte {
                case separator:
                    emit(escape)
                    emit(0x01)
                case escape:
                    emit(escape)
                    emit(0x02)
                default: emit(byte)
                }
            }
        }
    }

    /// The elements of a packed text; a last element without its separator (a damaged text) is kept.
    static func unpack(_ packed: String) -> [String] {
        var elements: [String] = []
        eachElement(of: packed) { elements.append(element($0, escaped: $1)) }
        return elements
    }

    /// Hands each element of a packed text to `body` as its bytes (escapes left in) and whether it has escapes.
    private static func eachElement(of packed: String, _ body: (UnsafeBufferPointer<UInt8>, _ escaped: Bool) -> Void) {
        var packed = packed
        packed.withUTF8 { buffer in
            var start = 0
            var escaped = false
            for index in 0..<buffer.count {
                switch buffer[index] {
                case separator:
                    body(UnsafeBufferPointer(rebasing: buffer[start..<index]), escaped)
                    start = index + 1
                    escaped = false
                case escape:
                    escaped = true
                default:
                    break
                }
            }
            if start < buffer.count { body(UnsafeBufferPointer(rebasing: buffer[start...]), escaped) }
        }
    }

    /// Unpacks the groups of items read one after another: items in the same groups (most of a feed's, read in
    /// date order) share one list of them instead of a list each.
    package struct GroupReader {
        private var last: (packed: String, groups: [String])?

        /// None read yet.
        package init() {}

        /// The groups packed in `packed`.
        package mutating func unpack(_ packed: String) -> [String] {
            if let last, last.packed == packed { return last.groups }
            let groups = StoredItem.unpack(packed)
            last = (packed, groups)
            return groups
        }
    }

    /// The item of these columns, its details, location and magnitude unpacked from `details`. An item stored
    /// without numbers (or with numbers out of bounds) reads without them.
    package static func item(
        id: String, title: String, date: Date, groups: [String], url: String?, details packed: String
    ) -> Item {
        var details: [Detail] = []
        // As many as there are, counted first: the items of a feed are all held at once.
        var count = 0
        var isName = true
        eachElement(of: packed) { bytes, _ in
            if isName, bytes.first != 0x01 { count += 1 }
            isName.toggle()
        }
        details.reserveCapacity(count)
        var latitude: Double?
        var longitude: Double?
        var value: Double?
        var unit: String?
        // Names and values alternate; a number's name is compared in place, never made a text. A name without its
        // value (a damaged text) is dropped, and so is a number of a later version.
        var name: String?
        var number: String?
        isName = true
        eachElement(of: packed) { bytes, escaped in
            defer { isName.toggle() }
            if isName {
                if bytes.first == 0x01 {
                    name = nil
                    number =
                        Number.all.first { name in
                            name.utf8.count == bytes.count
                                && name.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } == true
                        } ?? ""
                } else {
                    name = element(bytes, escaped: escaped)
                    number = nil
                }
                return
            }
            let text = element(bytes, escaped: escaped)
            switch number {
            case nil: if let name { details.append(Detail(name, text)) }
            case Number.latitude: latitude = Double(text)
            case Number.longitude: longitude = Double(text)
            case Number.magnitudeValue: value = Double(text)
            case Number.magnitudeUnit: unit = text
            default: break
            }
        }
        var location: Item.Position?
        if let latitude, let longitude { location = Item.Position(latitude: latitude, longitude: longitude) }
        return Item(
            id: id, title: title, date: date, groups: groups, url: url, details: details, location: location,
            magnitude: value.flatMap { Item.Magnitude(value: $0, unit: unit) })
    }

    /// The names an item's numbers are packed under: U+0001, then their name in the JSON outputs.
    private enum Number {
        static let latitude = "\u{1}lat"
        static let longitude = "\u{1}lon"
        static let magnitudeValue = "\u{1}magnitude_value"
        static let magnitudeUnit = "\u{1}magnitude_unit"
        static let all = [latitude, longitude, magnitudeValue, magnitudeUnit]
    }

    private static func element(_ bytes: UnsafeBufferPointer<UInt8>, escaped: Bool) -> String {
        guard escaped else { return String(decoding: bytes, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == escape, index + 1 < bytes.count {
                output.append(bytes[index + 1] == 0x01 ? separator : escape)
                index += 2
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// The 64-bit FNV-1a hash: stable across processes, unlike `Hasher`.
struct FNV1a {
    /// The hash so far.
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Adds `text`'s UTF-8 bytes and a terminator.
    mutating func add(_ text: String) {
        // The bytes in place when the text has them contiguous (a native string always does), else one by one.
        let added: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes { add(byte) }
        }
        if added == nil {
            for byte in text.utf8 { add(byte) }
        }
        add(UInt8(0xFF))
    }

    /// Adds the eight bytes of `number`.
    mutating func add(_ number: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: number >> shift)) }
    }

    /// Adds one byte.
    mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
}
