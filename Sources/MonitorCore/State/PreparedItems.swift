/// The stored form of a poll's items (``StoredItem/storable(_:)`` and ``StoredItem``: control characters removed,
/// groups and details packed, the fingerprint), made as each batch of items arrives, while the poll's other
/// requests are still waiting on the network, so that the commit at the poll's end only writes.
///
/// It is a cache, nothing more: a commit takes an item's prepared form only when the item it stores is the one
/// prepared (the same bytes in every field, checked by a seeded hash of them), and makes the form itself otherwise
/// (an item carried from the state, an item a later batch replaced). What a commit writes is the same with or
/// without it.
package struct PreparedItems: Sendable {
    /// One item as it was prepared, with its stored form. Neither the item nor its stored form is kept, only a hash
    /// of the item (the poll's tally keeps the item): the stored form is nearly always the item itself, and is made
    /// again in the commit for the few items that had control characters to remove.
    struct Entry: Sendable {
        /// The hash of the item as the poll's tally keeps it (``hash(_:)``, its id spelled as the state stores it).
        var hash: Int
        /// Its packed groups and details and its fingerprint.
        var packed: StoredItem
        /// Whether the item as stored differs from the item (a text had control characters).
        var sanitized: Bool
    }

    private var entries: [String: Entry] = [:]

    package init() {}

    /// How many items are prepared.
    package var count: Int { entries.count }

    /// Prepares the stored form of `items`; an item met again replaces the earlier one with the same id, as it
    /// does in the poll's tally.
    package mutating func add(_ items: [Item]) {
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
    package mutating func add(_ items: [Item], parts: Int) async {
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
        return (kept.id, Entry(hash: hash(kept), packed: StoredItem(stored), sanitized: stored != kept))
    }

    /// A hash of every field of `item`, byte for byte (not `hashValue`, which would take two spellings of one text
    /// in Unicode for the same), seeded for each process: 64 bits, so that a stale entry passes for another item
    /// with a chance of 2⁻⁶⁴, which no one can aim at.
    static func hash(_ item: Item) -> Int {
        var hasher = Hasher()
        func add(_ text: String) {
            var text = text
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            // A byte UTF-8 never has ends each text.
            hasher.combine(UInt8(0xFF))
        }
        add(item.id)
        add(item.title)
        hasher.combine(item.date.timeIntervalSince1970.bitPattern)
        hasher.combine(item.groups.count)
        item.groups.forEach(add)
        hasher.combine(item.url != nil)
        item.url.map(add)
        hasher.combine(item.details.count)
        for detail in item.details {
            add(detail.name)
            add(detail.value)
        }
        return hasher.finalize()
    }

    /// `item` as it is stored, with its packed form: the prepared one when `item` is the item prepared, else made
    /// now.
    package func stored(_ item: Item) -> (item: Item, packed: StoredItem) {
        if let entry = entries[item.id], entry.hash == Self.hash(item) {
            return (entry.sanitized ? StoredItem.storable(item) : item, entry.packed)
        }
        let stored = StoredItem.storable(item)
        return (stored, StoredItem(stored))
    }
}
