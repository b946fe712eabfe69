import Foundation

/// A feed's one poll under the ``FeedScheduler/Policy/once`` policy (`monitor run --once`). On a shared schedule it is
/// claimed like the loops of `monitor run` claim it, so that it is never polled by two instances at once and its
/// results are committed under its lease.
extension FeedScheduler {
    /// What ``pollOnce(_:source:runner:leasing:events:)`` did.
    enum OncePoll: Sendable {
        /// The feed was polled (or could not be: the report says why).
        case polled(PollReport)
        /// Another instance holds the feed: it was not polled.
        case skipped(FeedHolder)
    }

    /// Polls `feed` once now, due or not, under a lease claimed from the shared schedule (renewed while it runs, its
    /// results committed only while it holds, its next due time counted from this poll), reporting to `events`
    /// (`.finished` included). A feed another instance holds is skipped, with a `.lease` event naming the holder; one
    /// the server holds back is reported as not polled, as without a shared schedule.
    static func pollOnce(
        _ feed: FeedConfig, source: any FeedSource, runner: PollRunner, leasing: FeedLeases,
        events: AsyncStream<PollEvent>.Continuation
    ) async -> OncePoll {
        let clock = runner.clock
        let store = leasing.store
        let lease = leaseDuration(runner: runner)
        let notPolled = { (message: String) -> OncePoll in
            let report = runner.notPolled(feed, message, record: nil, started: clock.now.date)
            events.yield(.finished(report))
            return .polled(report)
        }
        var answer: FeedClaim?
        var now = clock.now.date
        do {
            // A claim that loses a race with another instance's (it waited for the row, then found it leased) answers
            // with the row as it was before that claim: neither leased nor held back. Ask again, as the loops of
            // `monitor run` do, until the answer says why the feed is not this instance's.
            for _ in 0..<3 {
                now = clock.now.date
                answer = try await store.claim(
                    feed: feed.name, owner: leasing.owner, lease: lease, now: now, dueBy: .distantFuture)
                if answer == nil {
                    try await store.schedule(feeds: [feed.name], now: now)
                    answer = try await store.claim(
                        feed: feed.name, owner: leasing.owner, lease: lease, now: now, dueBy: .distantFuture)
                }
                guard let refused = answer, refused.lease == nil, refused.slot.holder(at: now) == nil,
                    refused.slot.heldUntil.map({ $0 <= now }) ?? true
                else { break }
            }
        } catch {
            return notPolled("cannot claim the feed from the shared schedule: \(error)")
        }
        guard let answer else { return notPolled("cannot claim the feed: it is not in the shared schedule") }
        guard let claimed = answer.lease else {
            if let owner = answer.slot.holder(at: now), let until = answer.slot.expires {
                let holder = FeedHolder(owner: owner, until: until, isThisInstance: owner == leasing.owner)
                events.yield(.lease(feed: feed.name, holder: holder))
                return .skipped(holder)
            }
            if let until = answer.slot.heldUntil, until > now {
                return notPolled("not polled: the server asked to wait until \(UTCTime.full(until))")
            }
            return notPolled("not polled: other instances claimed it each time it was asked for")
        }
        let (report, _) = await poll(
            Entry(feed: feed, source: source, signature: ""), runner: runner, events: events, control: Control(),
            under: Claim(lease: claimed, due: answer.slot.due, leasing: leasing))
        return report.map(OncePoll.polled) ?? notPolled("cancelled")
    }
}
