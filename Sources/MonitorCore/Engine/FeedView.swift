/// What the display shows of a feed while it is polled: the tally's groups with their counts and phases, and
/// progress.
package struct FeedView: Sendable {
    /// The feed's name.
    package var feed: String
    /// Every group with its count so far (0 included), in catalog order, then groups met only in items.
    package var groups: [PollReport.GroupCount]
    /// Distinct items so far.
    package var items: Int
    /// New items so far.
    package var new: Int
    /// Requests done.
    package var done: Int
    /// Requests expected, when known.
    package var total: Int?

    /// The view of a poll's tally. Each group's phase is `failed` when a failure names it, `done` when it is
    /// completed (or when the tally replaces nothing: a source that keeps the newest items, or a view of stored
    /// items), else `pending`, with its stored count standing in.
    init(feed: String, tally: PollTally) {
        self.feed = feed
        groups = tally.groupCounts(final: false)
        items = tally.items.count
        new = tally.newIDs.count
        done = tally.done
        total = tally.total
    }
}

extension FeedView {
    /// The view of the stored items alone, every group settled: what the display shows before a poll's first
    /// update, made without a tally of the items.
    init(feed: String, stored snapshot: FeedSnapshot, breakdown: String?) {
        self.init(feed: feed, tally: .counts(of: snapshot, breakdown: breakdown))
        items = snapshot.items.count
    }
}
