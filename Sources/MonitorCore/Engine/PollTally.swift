/// The running state of a poll, folded over its updates with `reductions` (the classic apps' `scan`): items
/// de-duplicated by id, counts per group, what is new, progress and failures.
public struct PollTally: Sendable {
    /// The items so far by id (for `keepNewest` sources, the stored ones included).
    public private(set) var items: [String: Item] = [:]
    /// Items per group so far.
    public private(set) var counts: [String: Int] = [:]
    /// New items per group so far.
    public private(set) var newCounts: [String: Int] = [:]
    /// Ids of the items not seen before this poll.
    public private(set) var newIDs: Set<String> = []
    /// Requests done.
    public private(set) var done = 0
    /// Requests expected, when known.
    public private(set) var total: Int?
    /// Sub-requests that failed.
    public private(set) var failures: [SubRequestFailure] = []
    /// Groups whose items are all in (for `replace` sources: their live count replaces the stored one).
    public private(set) var completedGroups: Set<String> = []
    private let known: Set<String>

    /// A tally knowing the ids stored before the poll, starting with `seed` items (not new).
    public init(known: Set<String>, seed: [Item] = []) {
        self.known = known
        for item in seed { add(item) }
    }

    /// The tally after one update.
    public mutating func apply(_ update: SourceUpdate) {
        switch update {
        case .groups:
            break
        case .progress(let done, let total):
            self.done = done
            self.total = total
        case .items(let batch):
            for item in batch { add(item) }
        case .failure(let failure):
            failures.append(failure)
        case .completed(let groups):
            completedGroups.formUnion(groups)
        }
    }

    private mutating func add(_ item: Item) {
        if let old = items[item.id] {
            let wasNew = newIDs.contains(item.id)
            for group in Set(old.groups) {
                counts[group, default: 0] -= 1
                if wasNew { newCounts[group, default: 0] -= 1 }
            }
        } else if !known.contains(item.id) {
            newIDs.insert(item.id)
        }
        items[item.id] = item
        let isNew = newIDs.contains(item.id)
        for group in Set(item.groups) {
            counts[group, default: 0] += 1
            if isNew { newCounts[group, default: 0] += 1 }
        }
    }
}

/// What the display shows of a feed while it is polled: the catalog joined with the running counts.
public struct FeedView: Sendable {
    /// The feed's name.
    public var feed: String
    /// Every group with its count so far (0 included), in catalog order, then groups met only in items.
    public var groups: [PollReport.GroupCount]
    /// Distinct items so far.
    public var items: Int
    /// New items so far.
    public var new: Int
    /// Requests done.
    public var done: Int
    /// Requests expected, when known.
    public var total: Int?

    /// Joins a catalog with a tally; for groups not yet completed by a `replace` poll, `stored` counts stand in.
    /// Each group's phase is `failed` when a failure names it, `done` when it is completed (or when `stored` is
    /// nil: a source that does not replace its items, or a view of stored items), else `pending`.
    public init(feed: String, catalog: [ItemGroup], tally: PollTally, stored: [String: Int]?) {
        self.feed = feed
        var seen: Set<String> = []
        var groups: [PollReport.GroupCount] = []
        let count = { (id: String) -> Int in
            if let stored, !tally.completedGroups.contains(id) { return stored[id] ?? 0 }
            return tally.counts[id] ?? 0
        }
        let failed = Set(tally.failures.compactMap(\.group))
        let phase = { (id: String) -> PollReport.GroupCount.GroupPhase in
            if failed.contains(id) { return .failed }
            if stored == nil || tally.completedGroups.contains(id) { return .done }
            return .pending
        }
        for group in catalog where seen.insert(group.id).inserted {
            var count = PollReport.GroupCount(
                id: group.id, title: group.title, count: count(group.id), new: tally.newCounts[group.id] ?? 0)
            count.phase = phase(group.id)
            groups.append(count)
        }
        for id in tally.counts.keys.sorted() where seen.insert(id).inserted && tally.counts[id, default: 0] > 0 {
            var count = PollReport.GroupCount(id: id, title: id, count: count(id), new: tally.newCounts[id] ?? 0)
            count.phase = phase(id)
            groups.append(count)
        }
        self.groups = groups
        items = tally.items.count
        new = tally.newIDs.count
        done = tally.done
        total = tally.total
    }
}
