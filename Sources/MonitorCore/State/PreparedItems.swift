import MonitorItems
import MonitorJSON

/// The stored form of a poll's items (``StoredItem/storable(_:)`` and ``StoredItem``: control characters removed,
/// groups and details packed, the fingerprint), made as each batch of items arrives, while the poll's other
/// requests are still waiting on the network, so that the commit at the poll's end only writes.
///
/// It is a cache, nothing more: a commit takes an item's prepared form only when the item it stores is the one
/// prepared (the same bytes in every field, compared), and makes the form itself otherwise
/// (an item carried from the state, an item a later batch replaced). What a commit writes is the same with or
/// without it.
package struct PreparedItems: Sendable {
    /// One item as it was prepared, with its stored form. The item's stored form is not kept: it is nearly always the
    /// item itself, and is made again in the commit for the few items that had control characters to remove.
    struct Entry: Sendable {
        /// The item as the poll's tally keeps it (its id spelled as the state stores it). Its texts and lists are the
        /// tally's own (copies share their storage): kept for a reference each, and compared with the committed item
        /// at the cost of comparing those references (``identical(_:_:)``).
        var item: Item
        /// Its packed groups and details and its fingerprint.
        var packed: StoredItem
        /// Whether the item as stored differs from the item (a text had control characters).
        var sanitized: Bool
    }

    private var entries: [String: Entry] = [:]

    init() {}

    /// How many items are prepared.
    var count: Int { entries.count }

    /// Prepares the stored form of `items`; an item met again replaces the earlier one with the same id, as it
    /// does in the poll's tally.
    mutating func add(_ items: [Item]) {
        entries.reserveCapacity(entries.count + items.count)
        for item in items {
            let (id, entry) = Self.entry(item)
            entries[id] = entry
        }
    }

    /// The fewest items a slice of ``add(_:parts:)`` prepares: below twice as many, a batch is prepared at once.
    static let minimumSlice = 256

    /// Prepares `items` as ``add(_:)`` does, a large batch in up to `parts` slices at once (one per core, so that the
    /// poll's last and largest answer is ready for the commit sooner); the result is the same, in the same order.
    mutating func add(_ items: [Item], parts: Int) async {
        let slices = min(parts, items.count / Self.minimumSlice)
        guard slices > 1 else { return add(items) }
        let size = (items.count + slices - 1) / slices
        let made = await withTaskGroup(of: (Int, [(id: String, entry: Entry)]).self) { group in
            for slice in 0..<slices {
                let range = slice * size..<min(items.count, (slice + 1) * size)
                group.addTask { (slice, items[range].map(Self.entry)) }
            }
            var made = [[(id: String, entry: Entry)]](repeating: [], count: slices)
            for await (slice, entries) in group { made[slice] = entries }
            return made
        }
        entries.reserveCapacity(entries.count + items.count)
        for slice in made {
            for (id, entry) in slice { entries[id] = entry }
        }
    }

    /// `item` prepared, with its id as the tally keeps it (`PollTally`: sanitized only when it has to be).
    private static func entry(_ item: Item) -> (id: String, entry: Entry) {
        let stored = StoredItem.storable(item)
        var kept = item
        if kept.id != stored.id { kept.id = stored.id }
        return (kept.id, Entry(item: kept, packed: StoredItem(stored), sanitized: stored != kept))
    }

    /// Whether `one` and `other` are the same item byte for byte (not `==`, which takes two spellings of one text in
    /// Unicode for the same): each text is compared by its bytes, at once when both share their storage (the
    /// committed item is nearly always the prepared one's copy).
    static func identical(_ one: Item, _ other: Item) -> Bool {
        guard one.date.timeIntervalSince1970.bitPattern == other.date.timeIntervalSince1970.bitPattern,
            one.groups.count == other.groups.count, one.details.count == other.details.count,
            sameBytes(one.id, other.id), sameBytes(one.title, other.title)
        else { return false }
        switch (one.url, other.url) {
        case (nil, nil): break
        case (let url?, let otherURL?): guard sameBytes(url, otherURL) else { return false }
        default: return false
        }
        for (group, otherGroup) in zip(one.groups, other.groups) where !sameBytes(group, otherGroup) { return false }
        for (detail, otherDetail) in zip(one.details, other.details) {
            guard sameBytes(detail.name, otherDetail.name), sameBytes(detail.value, otherDetail.value) else {
                return false
            }
        }
        // The numbers by their bits, as they are packed (`-0.0` is written apart from `0.0`).
        switch (one.location, other.location) {
        case (nil, nil): break
        case (let at?, let otherAt?):
            guard at.latitude.bitPattern == otherAt.latitude.bitPattern,
                at.longitude.bitPattern == otherAt.longitude.bitPattern
            else { return false }
        default: return false
        }
        switch (one.magnitude, other.magnitude) {
        case (nil, nil): return true
        case (let magnitude?, let otherMagnitude?):
            guard magnitude.value.bitPattern == otherMagnitude.value.bitPattern else { return false }
            switch (magnitude.unit, otherMagnitude.unit) {
            case (nil, nil): return true
            case (let unit?, let otherUnit?): return sameBytes(unit, otherUnit)
            default: return false
            }
        default: return false
        }
    }

    /// Whether `one` and `other` have the same UTF-8 bytes.
    private static func sameBytes(_ one: String, _ other: String) -> Bool {
        let same = one.utf8.withContiguousStorageIfAvailable { bytes in
            other.utf8.withContiguousStorageIfAvailable { otherBytes in
                guard bytes.count == otherBytes.count else { return false }
                guard bytes.count > 0, bytes.baseAddress != otherBytes.baseAddress else { return true }
                return memoryEqual(bytes.baseAddress!, otherBytes.baseAddress!, bytes.count)
            }
        }
        return (same ?? nil) ?? one.utf8.elementsEqual(other.utf8)
    }

    /// `item` as it is stored, with its packed form: the prepared one when `item` is the item prepared, else made
    /// now.
    package func stored(_ item: Item) -> (item: Item, packed: StoredItem) {
        if let entry = entries[item.id], Self.identical(entry.item, item) {
            return (entry.sanitized ? StoredItem.storable(item) : item, entry.packed)
        }
        let stored = StoredItem.storable(item)
        return (stored, StoredItem(stored))
    }
}
