import Foundation
import MonitorCore
import MonitorText
import Synchronization

/// How a run's feeds fare, as a pure state kept from its poll events: what `/healthz` answers and systemd's `STATUS=`
/// counts (``RunHealth/statusLine(pending:now:)``). A feed is healthy while its last poll
/// succeeded (ok, not modified) or, before any of its polls ended, within its first interval; it is unhealthy while
/// its last poll failed or partly failed (since the first of those in a row), while a server holds it back, and when
/// stale (no new item for longer than its `expect_update_within`). A state that cannot be reached is said once, not
/// blamed on each feed; a feed another instance holds on a shared schedule is that instance's to report. A rejected
/// reload of the feeds file is a note, not a problem: the run goes on with the last valid file, and a restart (what a
/// failing probe asks for) would not start on the invalid one.
package struct FeedHealth: Sendable {
    private struct Feed: Sendable {
        /// When the feed was scheduled: its first interval starts then, and it has had no new item since.
        var added: Date
        /// Its interval; nil for a feed known only from its scheduling.
        var interval: Duration?
        var staleAfter: Duration?
        /// The status of its last poll that ended; nil before any did.
        var status: PollReport.Status?
        /// The error of its last poll, as the status shows it (redacted where it was made).
        var error: String?
        /// When its failures in a row began.
        var failingSince: Date?
        var failures = 0
        var heldUntil: Date?
        /// Why, in a few words (`rate limit exhausted`).
        var holdReason: String?
        var lastNew: Date?
        /// Whether another instance holds its lease.
        var elsewhere = false
    }

    private var names: [String] = []
    private var feeds: [String: Feed] = [:]
    /// The feeds failing or held back after their last poll: what ``counts(now:)`` reads, so that `STATUS=` after each
    /// event does not go through every feed.
    private var marked: Set<String> = []
    /// Why the state cannot be reached, and since when; nil while it answers.
    package private(set) var unreachable: (error: StateError, since: Date)?
    /// Why the last reload of the feeds file was not taken; nil when it was.
    package private(set) var rejectedReload: String?

    /// Sets the feeds (at start, and after the feeds file changed), keeping what is known of those already there;
    /// `interval` is the one of a feed without its own (nil: not known here, and no feed is late for its first poll).
    package mutating func setFeeds(_ configs: [FeedConfig], interval: Duration?, now: Date) {
        var kept: [String: Feed] = [:]
        names = []
        for config in configs where kept[config.name] == nil {
            var feed = feeds[config.name] ?? Feed(added: now, interval: interval)
            feed.interval = interval.map(config.interval(default:))
            feed.staleAfter = config.options.duration("expect_update_within")
            kept[config.name] = feed
            names.append(config.name)
        }
        feeds = kept
        marked = marked.filter { kept[$0] != nil }
    }

    /// The state after `event` at `now`.
    package mutating func apply(_ event: PollEvent, now: Date) {
        switch event {
        case .finished(let report):
            // The state's failure is not the feed's (`.state` says it once).
            guard report.unreachableState == nil, var feed = feeds[report.feed] else { return }
            let failing = report.status == .failed || report.status == .partial
            feed.failingSince = failing ? feed.failingSince ?? report.started : nil
            feed.status = report.status
            feed.error = failing ? report.error : nil
            feed.failures = report.status == .failed ? max(report.failures, 1) : 0
            feed.heldUntil = report.notBefore
            feed.holdReason = report.holdReason
            // When the record says (as a `stale` notification counts), not when this run saw a new item.
            feed.lastNew = report.lastNew ?? feed.lastNew
            feeds[report.feed] = feed
            if feed.failingSince != nil || feed.heldUntil != nil {
                marked.insert(report.feed)
            } else {
                marked.remove(report.feed)
            }
        case .lease(let name, let holder):
            feeds[name]?.elsewhere = holder.map { !$0.isThisInstance } ?? false
        case .scheduled(let name, _, _, let hold):
            if feeds[name] == nil {
                feeds[name] = Feed(added: now, interval: nil)
                names.append(name)
            }
            // A hold the scheduler waits for before any poll of this run ended (stored before a restart); after one,
            // its report says the server's hold (not the minimum interval the scheduler also waits for).
            if let hold, var feed = feeds[name], feed.status == nil {
                (feed.heldUntil, feed.holdReason) = (hold.until, hold.reason)
                feeds[name] = feed
                marked.insert(name)
            }
        case .stopped(let name):
            feeds[name] = nil
            marked.remove(name)
            names.removeAll { $0 == name }
        case .state(let error?):
            if unreachable == nil { unreachable = (error, now) }
        case .state(nil):
            unreachable = nil
        case .reload(let rejected):
            rejectedReload = rejected
        case .view, .polling, .notice, .delivery:
            break
        }
    }

    /// Until when and why a server holds `name` back, as its last poll said; nil when it does not.
    package func hold(of name: String) -> (until: Date, reason: String?)? {
        feeds[name].flatMap { feed in feed.heldUntil.map { ($0, feed.holdReason) } }
    }

    /// Whether `name` has had no new item for longer than its `expect_update_within` at `now`.
    package func isStale(_ name: String, now: Date) -> Bool {
        guard let feed = feeds[name], let threshold = feed.staleAfter else { return false }
        return now.timeIntervalSince(feed.lastNew ?? feed.added) > threshold.seconds
    }

    /// How many feeds there are, how many of them fail, and how many others a server holds back at `now`.
    package func counts(now: Date) -> (feeds: Int, failing: Int, held: Int) {
        var failing = 0
        var held = 0
        for name in marked {
            guard let feed = feeds[name] else { continue }
            if feed.failingSince != nil {
                failing += 1
            } else if let until = feed.heldUntil, until > now {
                held += 1
            }
        }
        return (feeds.count, failing, held)
    }

    /// A line for each problem at `now`, in the order of the feeds file (the state's first); none when healthy.
    package func problems(now: Date) -> [String] {
        var lines: [String] = []
        if let unreachable {
            lines.append(
                StatusListing.unreachableLine(unreachable.error, since: StatusListing.time(unreachable.since, now: now))
            )
        }
        for name in names {
            guard let feed = feeds[name], !feed.elsewhere else { continue }
            if let since = feed.failingSince {
                let what = feed.status == .partial ? "partly failing" : "failing"
                let error = TerminalText.sanitized(feed.error ?? "unknown error")
                let streak = feed.failures > 1 ? " (\(feed.failures) failures in a row)" : ""
                lines.append("\(name): \(what) since \(StatusListing.time(since, now: now)): \(error)\(streak)")
            } else if feed.status == nil, let interval = feed.interval,
                // Not before a hold it waits for has ended.
                now.timeIntervalSince(max(feed.added, feed.heldUntil ?? feed.added)) > interval.seconds
            {
                lines.append(
                    "\(name): no poll has ended since it started at \(StatusListing.time(feed.added, now: now))")
            }
            if let until = feed.heldUntil, until > now {
                lines.append("\(name): held back until \(StatusListing.time(until, now: now))")
            }
            if let threshold = feed.staleAfter, isStale(name, now: now) {
                let since = feed.lastNew ?? feed.added
                lines.append(
                    "\(name): stale: no new item since \(StatusListing.time(since, now: now)) "
                        + "(expect_update_within \(DurationFormat.string(threshold)))")
            }
        }
        return lines
    }
}

/// The ``FeedHealth`` of a run, shared between the service that keeps it and the server that answers `/healthz`.
package final class RunHealth: Sendable {
    private let health = Mutex(FeedHealth())

    /// Sets the feeds at `now` (see ``FeedHealth/setFeeds(_:interval:now:)``).
    package func setFeeds(_ feeds: [FeedConfig], interval: Duration, now: Date) {
        health.withLock { $0.setFeeds(feeds, interval: interval, now: now) }
    }

    /// Applies `event` at `now`.
    package func apply(_ event: PollEvent, now: Date) {
        health.withLock { $0.apply(event, now: now) }
    }

    /// The problems at `now`; none when healthy.
    package func problems(now: Date) -> [String] {
        health.withLock { $0.problems(now: now) }
    }

    /// Why the last reload of the feeds file was not taken; nil when it was.
    package var rejectedReload: String? {
        health.withLock { $0.rejectedReload }
    }

    /// The one line `monitor run` gives systemd as `STATUS=` at `now`, with `pending` notifications in the outbox:
    /// `2 feeds: 1 ok, 1 failing, 0 held back; 0 notifications pending`, after `/healthz`'s line of a state that cannot
    /// be reached while it cannot, and a rejected reload's `feeds file invalid (line 14): running the last valid one; `
    /// until a reload succeeds.
    func statusLine(pending: Int, now: Date) -> String {
        let (counts, rejected, unreachable) = health.withLock {
            ($0.counts(now: now), $0.rejectedReload, $0.unreachable)
        }
        let ok = counts.feeds - counts.failing - counts.held
        let state = unreachable.map {
            StatusListing.unreachableLine($0.error, since: StatusListing.time($0.since, now: now)) + "; "
        }
        return (state ?? "") + (rejected.map { $0 + "; " } ?? "")
            + "\(counts.feeds) feed\(counts.feeds == 1 ? "" : "s"): \(ok) ok, \(counts.failing) failing, "
            + "\(counts.held) held back; \(pending) notification\(pending == 1 ? "" : "s") pending"
    }

    /// Whether the outbox may have changed with `event` (a poll found new items, a delivery was attempted), so that
    /// its count is read again.
    static func outboxMayChange(with event: PollEvent) -> Bool {
        switch event {
        case .finished(let report): report.new > 0
        case .delivery: true
        default: false
        }
    }
}
