import MonitorItems
import MonitorText

/// The running state of one poll, folded over the source's updates step by step (the classic apps'
/// `scan`): the group catalog, the items de-duplicated by id, the counts of each group (new ones and the
/// source's breakdown included), progress and failures. What the live view shows and what the poll stores
/// come from this one fold: nothing is counted again afterwards.
///
/// Retention applies as updates arrive: a `keepNewest` tally starts with the stored items and keeps only the
/// newest; a `replace` tally starts empty, and the stored items of a group come back when its request is
/// answered 304 (`unchanged`) or fails. Until a `replace` poll settles a group, the stored counts stand in
/// for it on the display.
struct PollTally: Sendable {
    struct Totals: Sendable, Hashable {
        var count = 0
        var new = 0
        /// Items by their value of the source's breakdown detail (items without it are left out).
        var breakdown: [String: Int] = [:]
    }

    /// The groups known up front, in order: the stored catalog until the source announces its own.
    private(set) var catalog: [ItemGroup]
    private(set) var items: [String: Item] = [:]
    private(set) var totals: [String: Totals] = [:]
    /// Ids of the items not stored before this poll.
    private(set) var newIDs: Set<String> = []
    /// The largest count of requests a progress report keeps (done is also kept within the total).
    static let progressLimit = 1_000_000_000
    /// Requests done.
    private(set) var done = 0
    /// Requests expected, when known.
    private(set) var total: Int?
    /// The failed parts the poll's error names, the first ``maximumFailures``: a source may report one per item of a
    /// huge answer.
    private(set) var failures: [SubRequestFailure] = []
    /// The most failed parts kept.
    static let maximumFailures = 100
    /// The groups whose request failed, each of them.
    private(set) var failedGroups: Set<String> = []
    /// Groups whose items are all in: completed, or answered 304.
    private(set) var settled: Set<String> = []
    /// Whether the feed's request was answered 304 (every group is then settled).
    private(set) var feedUnchanged = false
    /// Whether any sub-request succeeded (items, a completed group, a 304): a poll with failures and no
    /// success has failed.
    private(set) var succeeded = false
    /// Whether the source reported any item (items carried from the state do not count).
    private(set) var foundItems = false
    /// The events the poll may have missed, every gap the source reported as one; nil when none.
    private(set) var gap: PollGap?
    /// What the source noted, each once, at most ``maximumNotes``.
    private(set) var notes: [String] = []
    /// The most notes a poll keeps.
    static let maximumNotes = 5
    /// How the poll's items combine with those stored.
    let retention: ItemRetention
    /// For a `replace` poll, the stored counts shown for groups not yet settled; nil otherwise.
    let standIn: [String: Totals]?

    private var catalogIDs: Set<String>
    private let known: Set<String>
    private let stored: [Item]
    /// The positions in `stored` of each group's items, made when a group's items are first carried.
    private var storedByGroup: [String: [Int]]?
    private let breakdown: String?

    /// The tally a poll starts from, knowing what was stored and counting each group's `breakdown` detail.
    init(stored snapshot: FeedSnapshot, retention: ItemRetention, breakdown: String? = nil) {
        self.init(stored: snapshot, known: Set(snapshot.items.map(\.id)), retention: retention, breakdown: breakdown)
    }

    /// The tally a poll starts from, given the ids of the stored items (`known`) as the poll's context has them:
    /// one set for both.
    init(stored snapshot: FeedSnapshot, known: Set<String>, retention: ItemRetention, breakdown: String? = nil) {
        self.retention = retention
        self.breakdown = breakdown
        catalog = snapshot.groups
        catalogIDs = Set(snapshot.groups.map(\.id))
        self.known = known
        stored = snapshot.items
        switch retention {
        case .replace:
            standIn = Self.totals(of: snapshot.items, breakdown: breakdown)
        case .keepNewest:
            standIn = nil
            for item in snapshot.items { add(item, replacing: true) }
            applyRetention()
        }
    }

    /// The counts of the stored items alone, every group settled, without the items (`items` is empty): for the
    /// view of the stored items, made without a second copy of them.
    static func counts(of snapshot: FeedSnapshot, breakdown: String? = nil) -> PollTally {
        var tally = PollTally(stored: FeedSnapshot(groups: snapshot.groups), retention: .keepNewest(.max))
        tally.totals = totals(of: snapshot.items, breakdown: breakdown)
        return tally
    }

    var sortedItems: [Item] {
        items.values.sorted { ($0.date, $0.id) > ($1.date, $1.id) }
    }

    mutating func apply(_ update: SourceUpdate) {
        switch update {
        case .groups(let groups):
            catalog = groups
            catalogIDs = Set(groups.map(\.id))
        case .progress(let done, let total):
            // A source's counts (an exec program's among them) are bounded before any arithmetic on them.
            self.total = total.map { min(max($0, 0), Self.progressLimit) }
            self.done = min(max(done, 0), self.total ?? Self.progressLimit)
        case .items(let batch):
            // Room for the whole batch at once: a large answer's items do not make the table grow, copying, many times.
            items.reserveCapacity(items.count + batch.count)
            for item in batch { add(item, replacing: true) }
            succeeded = succeeded || !batch.isEmpty
            foundItems = foundItems || !batch.isEmpty
        case .failure(let failure):
            if failures.count < Self.maximumFailures { failures.append(failure) }
            if let group = failure.group, failedGroups.insert(group).inserted { carry(group) }
        case .completed(let groups):
            settled.formUnion(groups)
            succeeded = true
        case .unchanged(let groups):
            for group in groups { carry(group) }
            settled.formUnion(groups)
            succeeded = true
        case .feedUnchanged:
            for item in stored { add(item, replacing: false) }
            feedUnchanged = true
            succeeded = true
        case .gap(let reported):
            if let found = storedGap(reported) { gap = gap.map { $0.merged(with: found) } ?? found }
        case .note(let message):
            let note = TerminalText.capped(message)
            if notes.count < Self.maximumNotes, !note.isEmpty, !notes.contains(note) { notes.append(note) }
        }
        applyRetention()
    }

    /// Every group with its counts: the catalog's in order (0 included), then those met only in items. While
    /// polling (`final` false) a `replace` poll shows the stored counts of a group it has not settled yet, as
    /// `pending`; at the end every group shows what was found. A group whose request failed is `failed`.
    func groupCounts(final: Bool) -> [PollReport.GroupCount] {
        let failed = failedGroups
        var seen: Set<String> = []
        var groups: [PollReport.GroupCount] = []
        let count = { (id: String, title: String) -> PollReport.GroupCount in
            var phase = PollReport.GroupCount.GroupPhase.done
            if failed.contains(id) {
                phase = .failed
            } else if !final, standIn != nil, !feedUnchanged, !settled.contains(id) {
                phase = .pending
            }
            let live = totals[id] ?? Totals()
            let shown = phase == .pending ? standIn?[id] ?? Totals() : live
            return PollReport.GroupCount(
                id: id, title: title, count: shown.count, new: live.new, breakdown: shown.breakdown, phase: phase)
        }
        for group in catalog where seen.insert(group.id).inserted {
            groups.append(count(group.id, group.title))
        }
        for id in totals.keys.sorted() where seen.insert(id).inserted && totals[id]?.count ?? 0 > 0 {
            groups.append(count(id, id))
        }
        return groups
    }

    // MARK: - Folding

    /// A reported gap as the feed has it: a window's runs from its `since`, or else the newest stored item's date, to
    /// its `until`, and is none without either (a first sync) or when that is not older than `until`; one told in
    /// words stays as told.
    private func storedGap(_ reported: PollGap) -> PollGap? {
        guard let until = reported.until else { return reported }
        guard let since = reported.since ?? stored.lazy.map(\.date).max(), since < until else { return nil }
        return PollGap(since: since, until: until, message: reported.message)
    }

    /// The counts of each group of stored `items` (none of them new).
    private static func totals(of items: [Item], breakdown: String?) -> [String: Totals] {
        var totals: [String: Totals] = [:]
        for item in items {
            let value = breakdown.flatMap { item.detail($0) }
            item.eachGroupOnce { totals[$0, default: Totals()].add(1, new: false, breakdown: value) }
        }
        return totals
    }

    /// Brings back the stored items of `group`, unless found again, naming only the groups of the catalog.
    private mutating func carry(_ group: String) {
        if storedByGroup == nil {
            var byGroup: [String: [Int]] = [:]
            for (position, item) in stored.enumerated() {
                item.eachGroupOnce { byGroup[$0, default: []].append(position) }
            }
            storedByGroup = byGroup
        }
        for position in storedByGroup?[group] ?? [] {
            var item = stored[position]
            if !catalogIDs.isEmpty { item.groups = item.groups.filter { catalogIDs.contains($0) || $0 == group } }
            add(item, replacing: false)
        }
    }

    private mutating func add(_ item: Item, replacing: Bool) {
        var item = item
        item.id = Self.storedID(item.id)
        // One lookup of the id to find and store: an item already there is put back when it is not to be replaced.
        let id = item.id
        let isNew: Bool
        if let old = items.updateValue(item, forKey: id) {
            guard replacing else {
                items[id] = old
                return
            }
            isNew = newIDs.contains(id)
            count(old, -1, new: isNew)
        } else {
            isNew = !known.contains(id)
            if isNew { newIDs.insert(id) }
        }
        count(item, 1, new: isNew)
    }

    /// The id as the state stores it (`StoredItem.storable`): spelled with control characters, it is the same item,
    /// and not new again on the next poll.
    private static func storedID(_ id: String) -> String {
        id.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) ? TerminalText.sanitized(id) : id
    }

    /// Whether an item of `item`'s id is kept.
    func keeps(_ item: Item) -> Bool {
        items[Self.storedID(item.id)] != nil
    }

    /// For `keepNewest`, drops the oldest items beyond the count kept.
    private mutating func applyRetention() {
        guard case .keepNewest(let keep) = retention, items.count > keep else { return }
        for old in sortedItems.dropFirst(keep) {
            count(old, -1, new: newIDs.contains(old.id))
            items[old.id] = nil
            newIDs.remove(old.id)
        }
    }

    /// Counts `item` in (`sign` 1) or out (-1) of its groups' totals, new or not.
    private mutating func count(_ item: Item, _ sign: Int, new isNew: Bool) {
        let value = breakdown.flatMap { item.detail($0) }
        // In place: a group's breakdown is not copied for each item counted.
        item.eachGroupOnce { totals[$0, default: Totals()].add(sign, new: isNew, breakdown: value) }
    }
}

extension PollTally.Totals {
    /// Counts an item in (`sign` 1) or out (-1), new or not, with its value of the breakdown detail.
    fileprivate mutating func add(_ sign: Int, new isNew: Bool, breakdown value: String?) {
        count += sign
        if isNew { new += sign }
        if let value {
            let count = breakdown[value, default: 0] + sign
            breakdown[value] = count == 0 ? nil : count
        }
    }
}
