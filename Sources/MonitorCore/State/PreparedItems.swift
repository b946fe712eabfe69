/// The stored form of a poll's items (``StateStore/storable(_:)`` and ``StoredItem``: control characters removed,
/// groups and details packed, the fingerprint), made as each batch of items arrives, while the poll's other
/// requests are still waiting on the network, so that the commit at the poll's end only writes.
///
/// It is a cache, nothing more: a commit takes an item's prepared form only when the item it stores is the very
/// one prepared (equal in every field), and makes the form itself otherwise (an item carried from the state, an
/// item a later batch replaced). What a commit writes is the same with or without it.
public struct PreparedItems: Sendable {
    /// One item as it was prepared, with its stored form. The item as stored is not kept: it is nearly always the
    /// item itself, and is made again in the commit for the few that had control characters to remove.
    struct Entry: Sendable {
        /// The item as the poll's tally keeps it (its id spelled as the state stores it).
        var item: Item
        /// Its packed groups and details and its fingerprint.
        var packed: StoredItem
        /// Whether the item as stored differs from `item` (a text had control characters).
        var sanitized: Bool
    }

    private var entries: [String: Entry] = [:]

    /// None prepared.
    public init() {}

    /// How many items are prepared.
    public var count: Int { entries.count }

    /// Prepares the stored form of `items`; an item met again replaces the earlier one with the same id, as it
    /// does in the poll's tally.
    public mutating func add(_ items: [Item]) {
        entries.reserveCapacity(entries.count + items.count)
        for item in items {
            let entry = Self.entry(item)
            entries[entry.item.id] = entry
        }
    }

    /// The fewest items a slice of ``add(_:parts:)`` prepares: below twice as many, a batch is prepared at once.
    static let minimumSlice = 256

    /// Prepares `items` as ``add(_:)`` does, a large batch in up to `parts` slices at once (one per core, so that the
    /// poll's last and largest answer is ready for the commit sooner); the result is the same, in the same order.
    public mutating func add(_ items: [Item], parts: Int) async {
        let slices = min(parts, items.count / Self.minimumSlice)
        guard slices > 1 else { return add(items) }
        let size = (items.count + slices - 1) / slices
        let made = await withTaskGroup(of: (Int, [Entry]).self) { group in
            for slice in 0..<slices {
                let range = slice * size..<min(items.count, (slice + 1) * size)
                group.addTask { (slice, items[range].map(Self.entry)) }
            }
            var made = [[Entry]](repeating: [], count: slices)
            for await (slice, entries) in group { made[slice] = entries }
            return made
        }
        entries.reserveCapacity(entries.count + items.count)
        for slice in made {
            for entry in slice { entries[entry.item.id] = entry }
        }
    }

    /// `item` prepared.
    private static func entry(_ item: Item) -> Entry {
        let stored = StateStore.storable(item)
        var kept = item
        // The id as the tally keeps it (`PollTally`): sanitized only when it has to be.
        if kept.id != stored.id { kept.id = stored.id }
        return Entry(item: kept, packed: StoredItem(stored), sanitized: stored != kept)
    }

    /// `item` as it is stored, with its packed form: the prepared one when `item` is the item prepared, else made
    /// now.
    package func stored(_ item: Item) -> (item: Item, packed: StoredItem) {
        if let entry = entries[item.id], entry.item == item {
            return (entry.sanitized ? StateStore.storable(item) : item, entry.packed)
        }
        let stored = StateStore.storable(item)
        return (stored, StoredItem(stored))
    }
}
