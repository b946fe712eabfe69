import Foundation
import MonitorItems
import MonitorText

/// What a finished poll comes to: its report, the items to store and the feed's new record. A pure function of the
/// poll's tally, the record and what the requests did, so that every rule of a poll's end is tested on its own.
struct PollOutcome: Sendable {
    /// The poll's report, its error safe for a terminal and at most ``TerminalText/maximumMessage`` characters (what
    /// every output and the state show of it); its duration is the runner's to set.
    var report: PollReport
    /// The feed's whole item set to store, newest first; nil when the poll failed (the stored items stay).
    var items: [Item]?
    /// The group catalog to store; nil when the poll failed.
    var catalog: [ItemGroup]?
    /// The feed's record after the poll.
    var record: FeedRecord

    /// The outcome of a poll that started at `started` and whose updates folded into `tally`.
    ///
    /// - Parameters:
    ///   - record: the feed's record with this poll's time and what the server said of its limits.
    ///   - statistics: what the poll's requests did.
    ///   - thrown: why the source failed the whole poll, if it did.
    /// - Returns: `failed` when the source threw, or when sub-requests failed and none succeeded; else
    ///   `partial` when some failed; else `not_modified` when every request was answered 304, or, for a source
    ///   that sent no request (an external program), when it said the feed was unchanged and found no item;
    ///   else `ok`.
    init(tally: PollTally, record: FeedRecord, statistics: FeedHTTP.Statistics, thrown: String?, started: Date) {
        // Each failure is capped; more than fit in the error's cap need not be joined.
        let failures = tally.failures.prefix(TerminalText.maximumMessage).map { "\($0.what): \($0.message)" }
            .joined(separator: "; ")
        var record = record
        var report = PollReport(
            feed: record.name, type: record.type, status: .failed, requests: statistics.requests,
            notModified: statistics.notModified, bytes: statistics.bytes, started: started)
        report.failedBefore = record.failures > 0
        if thrown != nil || (!tally.failures.isEmpty && !tally.succeeded) {
            report.error = TerminalText.capped(thrown ?? failures)
            record.failures = record.failures(after: .failed)
        } else {
            if !tally.failures.isEmpty {
                report.status = .partial
            } else if statistics.requests > 0, statistics.notModified == statistics.requests {
                report.status = .notModified
            } else if statistics.requests == 0, tally.feedUnchanged, !tally.foundItems {
                report.status = .notModified
            } else {
                report.status = .ok
            }
            report.error = tally.failures.isEmpty ? nil : TerminalText.capped(failures)
            let items = tally.sortedItems
            self.items = items
            catalog = tally.catalog
            report.groups = tally.groupCounts(final: true)
            // The new ids are among the items': when there are as many, every item is new (a first poll), and the
            // list is shared rather than copied.
            report.newItems = tally.newIDs.count == items.count ? items : items.filter { tally.newIDs.contains($0.id) }
            (report.newIDs, report.new) = (tally.newIDs, tally.newIDs.count)
            report.latest = Array(items.prefix(PollReport.latestCount))
            (report.isFirstSync, report.gap, report.notes) = (record.lastSuccess == nil, tally.gap, tally.notes)
            record.failures = record.failures(after: report.status)
            record.lastSuccess = record.lastPoll
            record.itemCount = items.count
            if !report.newItems.isEmpty { record.lastNew = record.lastPoll }
        }
        record.status = report.status.rawValue
        record.lastError = report.error
        (report.items, report.failures, report.rateLimit) = (record.itemCount, record.failures, record.rateLimit)
        (report.notBefore, report.holdReason, report.minimumInterval, report.lastNew) =
            (record.notBefore, record.holdReason, record.minimumInterval, record.lastNew)
        self.record = record
        self.report = report
    }
}
