import Foundation
import MonitorItems
import MonitorText

/// Decides what a poll has to tell, and whom: a pure function of the poll's report and the feed's records before
/// and after it, so that every rule is tested on its own.
///
/// - `new`: the poll found items not stored before — never on a feed's first sync, whose items are the baseline;
/// - `failed`: the poll failed and the one before did not (once, when failing starts, not at every failed poll);
/// - `recovered`: the poll did not fail and the one before did (once);
/// - `stale`: the feed has had no new item for longer than its `expect_update_within`, and had not at its previous
///   poll (once, when it becomes stale); sent only to notifiers that ask for it in `on:`;
/// - `gap`: the poll did not fail but may have missed events (`PollReport.gap`); sent only to notifiers that ask for
///   it in `on:`.
enum NotificationPlanner {
    /// The events of a poll that ended as `report` says, the feed's record being `previous` before it and `record`
    /// after it.
    static func events(
        of report: PollReport, previous: FeedRecord?, record: FeedRecord, staleAfter: Duration?
    ) -> [FeedNotification.Event] {
        let wasFailing = (previous?.failures ?? 0) > 0
        var events: [FeedNotification.Event] = []
        if report.status == .failed {
            if !wasFailing { events.append(.failed) }
            return events
        }
        if wasFailing { events.append(.recovered) }
        if !report.newItems.isEmpty, !report.isFirstSync { events.append(.new) }
        if report.gap != nil { events.append(.gap) }
        if let staleAfter, let now = record.lastPoll, isStale(record, at: now, after: staleAfter) {
            let before = previous.map { previous in
                previous.lastPoll.map { isStale(previous, at: $0, after: staleAfter) } ?? false
            }
            if before == false { events.append(.stale) }
        }
        return events
    }

    /// The notifications of a poll of `feed`: one per notifier and event it asks for, with a new id from `makeID`
    /// each. A notifier's rule also sees the details `source` works out for rules.
    static func notifications(
        of report: PollReport, feed: FeedConfig, previous: FeedRecord?, record: FeedRecord,
        notifiers: [NotifierConfig], makeID: () -> String = { UUID().uuidString.lowercased() },
        source: (any FeedSource.Type)? = nil
    ) -> [FeedNotification] {
        let staleAfter = feed.options.duration("expect_update_within")
        let events = events(of: report, previous: previous, record: record, staleAfter: staleAfter)
        let at = record.lastPoll ?? report.started
        var notifications: [FeedNotification] = []
        for notifier in notifiers {
            for event in events where notifier.wants(event, of: feed.name) {
                var (items, error): ([Item], String?) = ([], nil)
                switch event {
                case .new:
                    // A notifier's rule chooses the new items it is sent; none of them matching, it is sent nothing.
                    items =
                        notifier.rule.map { rule in report.newItems.filter { rule.matches($0, now: at, source: source) }
                        }
                        ?? report.newItems
                    guard !items.isEmpty else { continue }
                case .failed:
                    error = report.error ?? "the poll failed"
                case .recovered:
                    break
                case .stale:
                    let limit = staleAfter.map { DurationFormat.string($0) } ?? "?"
                    error = "no new item for more than \(limit) (expect_update_within)"
                case .gap:
                    error = report.gap?.text
                case .digest:
                    continue  // Never planned: the delivery makes it from what a digest notifier collected.
                }
                notifications.append(
                    FeedNotification(
                        id: makeID(), notifier: notifier.name, feed: feed.name, type: feed.type, event: event, at: at,
                        total: items.count, items: items, error: error, gap: event == .gap ? report.gap : nil))
            }
        }
        return notifications
    }

    /// Whether a feed whose record is `record` has had no new item for longer than `limit` at `time`.
    static func isStale(_ record: FeedRecord, at time: Date, after limit: Duration) -> Bool {
        guard let lastNew = record.lastNew else { return false }
        return time.timeIntervalSince(lastNew) > limit.seconds
    }
}
