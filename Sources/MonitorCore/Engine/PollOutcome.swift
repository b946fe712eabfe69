import Foundation
import MonitorItems
import MonitorText

/// What a finished poll comes to: how it ended, the items to store, the counts to report and the feed's new
/// record. A pure function of the poll's tally, the record and what the requests did, so that every rule of a
/// poll's end is tested on its own.
struct PollOutcome: Sendable {
    var status: PollReport.Status
    /// What failed and why, safe for a terminal and at most ``TerminalText/maximumMessage`` characters: what every
    /// output and the state show of it; nil when nothing did.
    var error: String?
    /// The feed's whole item set to store, newest first; nil when the poll failed (the stored items stay).
    var items: [Item]?
    /// The group catalog to store; nil when the poll failed.
    var catalog: [ItemGroup]?
    /// Every group with its counts; none when the poll failed.
    var groups: [PollReport.GroupCount]
    /// The new items, newest first.
    var newItems: [Item]
    var newIDs: Set<String>
    /// The feed's record after the poll.
    var record: FeedRecord
    /// The events the poll may have missed; nil when none, or when the poll failed.
    var gap: PollGap?
    /// What the source noted.
    var notes: [String] = []

    /// The outcome of a poll whose updates folded into `tally`.
    ///
    /// - Parameters:
    ///   - record: the feed's record with this poll's time and what the server said of its limits.
    ///   - statistics: what the poll's requests did.
    ///   - thrown: why the source failed the whole poll, if it did.
    /// - Returns: `failed` when the source threw, or when sub-requests failed and none succeeded; else
    ///   `partial` when some failed; else `not_modified` when every request was answered 304, or, for a source
    ///   that sent no request (an external program), when it said the feed was unchanged and found no item;
    ///   else `ok`.
    init(tally: PollTally, record: FeedRecord, statistics: FeedHTTP.Statistics, thrown: String?) {
        // Each failure is capped; more than fit in the error's cap need not be joined.
        let failures = tally.failures.prefix(TerminalText.maximumMessage).map { "\($0.what): \($0.message)" }
            .joined(separator: "; ")
        var record = record
        if thrown != nil || (!tally.failures.isEmpty && !tally.succeeded) {
            status = .failed
            error = TerminalText.capped(thrown ?? failures)
            items = nil
            catalog = nil
            groups = []
            newItems = []
            newIDs = []
            record.failures = record.failures(after: .failed)
        } else {
            if !tally.failures.isEmpty {
                status = .partial
            } else if statistics.requests > 0, statistics.notModified == statistics.requests {
                status = .notModified
            } else if statistics.requests == 0, tally.feedUnchanged, !tally.foundItems {
                status = .notModified
            } else {
                status = .ok
            }
            error = tally.failures.isEmpty ? nil : TerminalText.capped(failures)
            let items = tally.sortedItems
            self.items = items
            catalog = tally.catalog
            groups = tally.groupCounts(final: true)
            // The new ids are among the items': when there are as many, every item is new (a first poll), and the
            // list is shared rather than copied.
            newItems = tally.newIDs.count == items.count ? items : items.filter { tally.newIDs.contains($0.id) }
            newIDs = tally.newIDs
            gap = tally.gap
            notes = tally.notes
            record.failures = record.failures(after: status)
            record.lastSuccess = record.lastPoll
            record.itemCount = items.count
            if !newItems.isEmpty { record.lastNew = record.lastPoll }
        }
        record.status = status.rawValue
        record.lastError = error
        self.record = record
    }
}
