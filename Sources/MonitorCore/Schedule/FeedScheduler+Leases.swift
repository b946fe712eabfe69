import Foundation
import Logging
import MonitorConcurrency
import MonitorText

/// The feed's loop when the schedule is shared with other instances (``PollRunner/leasing``): the feed is polled
/// only under a lease claimed from the schedule in the state, renewed while the poll runs; its results are stored
/// only while the lease holds, with its next due time, back-off and server hold. Under the once policy
/// (`monitor run --once`) the feed is claimed due or not, polled once, and never by two instances at once.
extension FeedScheduler {
    /// What a loop under the once policy did.
    enum OncePoll: Sendable {
        /// The feed was polled (or could not be: the report says why).
        case polled(PollReport)
        /// Another instance holds the feed: it was not polled.
        case skipped(FeedHolder)
    }

    /// How long a claim of `feed` holds unless renewed: the runner's request timeout × 3.
    static func leaseDuration(runner: PollRunner) -> Duration {
        max(runner.settings.timeout * 3, .seconds(1))
    }

    /// The loop of `entry`'s feed. A state that cannot be reached is asked again within the feed's interval
    /// (``PollSchedule/unreachableStateDelay(failures:random:)``) and said so once for every feed, through
    /// `reachability`, rather than logged by each.
    ///
    /// `once`, the feed is claimed at once, due or not, and the loop ends after one poll (its next due time counted
    /// from it), answering what it did: a feed another instance holds is skipped, with a `.lease` event naming the
    /// holder; one that cannot be claimed (the server holds it back, the state fails) is reported as not polled. The
    /// answer is nil otherwise.
    @discardableResult
    static func leasedLoop(
        _ entry: Entry, runner: PollRunner, leasing: FeedLeases, events: AsyncStream<PollEvent>.Continuation,
        stagger: Duration, control: Control, reachability: StateReachability, once: Bool = false
    ) async -> OncePoll? {
        let clock = runner.clock
        let feed = entry.feed
        let store = leasing.store
        let schedule = runner.schedule(of: feed)
        let lease = leaseDuration(runner: runner)
        var logger = runner.logger
        logger[metadataKey: "feed"] = "\(feed.name)"
        // The first claim, spread as the local schedule spreads its first polls.
        var wait = once ? .zero : stagger * clock.random()
        // Calls to the state that failed in a row: claims, and polls that found it unreachable.
        var failures = 0
        // Until when the next claim takes the feed: when it is due by now, or at once after a "poll now".
        var pollNow = false
        // Once: the claims that lost a race with another instance's, and whether the feed was just scheduled.
        var (races, scheduled) = (0, false)
        let notPolled = { (message: String) -> OncePoll in
            let report = runner.notPolled(feed, message, record: nil, started: clock.now.date)
            events.yield(.finished(report))
            return .polled(report)
        }
        while once || !Task.isCancelled {
            if wait > .zero {
                do { try await control.sleep(until: clock.now.advanced(by: wait), on: clock) } catch { return nil }
            }
            guard once || !Task.isCancelled else { return nil }
            let now = clock.now.date
            let answer: FeedClaim
            do {
                // One round trip: the claim, or the row that says why not.
                let claimed = try await store.claim(
                    feed: feed.name, owner: leasing.owner, lease: lease, now: now,
                    dueBy: once || pollNow ? .distantFuture : now)
                guard let claimed else {
                    if once, scheduled { return notPolled("cannot claim the feed: it is not in the shared schedule") }
                    try await store.schedule(feeds: [feed.name], now: now)
                    (wait, scheduled) = (.zero, true)
                    continue
                }
                answer = claimed
            } catch {
                if once { return notPolled("cannot claim the feed from the shared schedule: \(error)") }
                // Stopping (the run ends, the feed was removed): the question was cancelled, nothing to say.
                guard !Task.isCancelled else { return nil }
                failures += 1
                if let error = error as? StateError, error.isUnreachable {
                    // Said once for every feed; asked again within the feed's interval.
                    if let event = reachability.failed(error, started: now, now: clock.now.date) { events.yield(event) }
                    wait = schedule.unreachableStateDelay(failures: failures, random: clock.random())
                    logger.debug("cannot claim the feed from the shared schedule", metadata: ["error": "\(error)"])
                } else {
                    // The database refuses the claim: try again as a failing poll would be.
                    wait = schedule.delay(failures: failures, minimumInterval: nil, random: clock.random())
                    logger.warning("cannot claim the feed from the shared schedule", metadata: ["error": "\(error)"])
                }
                events.yield(.scheduled(feed: feed.name, next: now.addingTimeInterval(wait.seconds), skipped: 0))
                continue
            }
            if let event = reachability.answered(started: now, now: clock.now.date) { events.yield(event) }
            pollNow = false
            // When the feed may be claimed next (due, held back until, another instance's lease ending).
            var slot = answer.slot
            if let claimed = answer.lease {
                // Polled and given back by this instance, due again as it wrote: wait for that without asking.
                let (report, given) = await poll(
                    entry, runner: runner, events: events, control: control,
                    under: Claim(lease: claimed, due: slot.due, leasing: leasing, stateFailures: failures))
                if once { return report.map(OncePoll.polled) ?? notPolled("cancelled") }
                if let error = report?.unreachableState {
                    failures += 1
                    if let event = reachability.failed(error, started: now, now: clock.now.date) { events.yield(event) }
                } else {
                    failures = 0
                }
                guard let next = given else {
                    wait = .zero
                    continue
                }
                slot = FeedSlot(due: next.due, heldUntil: next.heldUntil)
            } else {
                failures = 0
                let holder = slot.holder(at: now).map {
                    FeedHolder(owner: $0, until: slot.expires ?? now, isThisInstance: $0 == leasing.owner)
                }
                if once {
                    if let holder {
                        events.yield(.lease(feed: feed.name, holder: holder))
                        return .skipped(holder)
                    }
                    if let until = slot.heldUntil, until > now {
                        return notPolled("not polled: the server asked to wait until \(UTCTime.full(until))")
                    }
                    // A claim that lost a race with another instance's (it waited for the row, then found it leased)
                    // answers with the row as it was before: neither leased nor held back. Asked again, twice.
                    races += 1
                    guard races < 3 else {
                        return notPolled("not polled: other instances claimed it each time it was asked for")
                    }
                    (wait, scheduled) = (.zero, false)
                    continue
                }
                events.yield(.lease(feed: feed.name, holder: holder))
            }
            let seen = clock.now.date
            let claimable = slot.claimable(at: seen)
            guard claimable > seen else {
                // Claimed by another instance while this one asked (its answer is the row before), or due again
                // already: ask again.
                wait = .zero
                continue
            }
            // Not due, held back, or leased by another instance: look again then (or at a "poll now").
            let hold = slot.heldUntil.flatMap { $0 > seen ? FeedHTTP.Hold(until: $0, reason: serverHold) : nil }
            control.waiting(hold: hold)
            events.yield(.scheduled(feed: feed.name, next: claimable, skipped: 0))
            do { try await control.sleep(until: WallClock.Instant(claimable), on: clock) } catch { return nil }
            wait = .zero
            // Asked to poll now (the wait was cut short): claim it though it is not due yet, unless another instance
            // holds it (woken before its lease ends, it is still not this instance's to poll).
            let other = slot.holder(at: seen).map { $0 != leasing.owner } ?? false
            pollNow = !other && clock.now.date < slot.due
        }
        return nil
    }

    /// A lease of the shared schedule a poll runs under: the claim, the due time it was claimed at, and how many calls
    /// in a row found the state unreachable before.
    struct Claim {
        var lease: FeedLease
        var due: Date
        var leasing: FeedLeases
        var stateFailures = 0
    }

    /// Polls `entry`'s feed now, reporting to `events` (`.polling`, then `.finished` unless cancelled). Under `claim`
    /// its lease is renewed next to the poll and its results are committed only while it holds; the answer then has
    /// the feed's next schedule as this instance wrote it when it gave the feed back (with the poll's results, or
    /// without), nil when it did not (the lease was lost, the database could not be written). The report is nil once
    /// cancelled.
    static func poll(
        _ entry: Entry, runner: PollRunner, events: AsyncStream<PollEvent>.Continuation, control: Control,
        under claim: Claim? = nil
    ) async -> (report: PollReport?, next: HeldLease.Next?) {
        let clock = runner.clock
        let feed = entry.feed
        var feedLogger = runner.logger
        feedLogger[metadataKey: "feed"] = "\(feed.name)"
        let logger = feedLogger
        let schedule = runner.schedule(of: feed)
        control.polling()
        // `.polling` first: the lease event that follows is drawn at once by the live views, with the phase (a
        // `.polling` drawn within their redraw throttle after it would wait for the next event to be shown).
        events.yield(.polling(feed: feed.name))
        let started = clock.now.date
        if let claim {
            events.yield(
                .lease(
                    feed: feed.name,
                    holder: FeedHolder(owner: claim.lease.owner, until: claim.lease.expires, isThisInstance: true)))
            // Counted as held until given back: released below before the events that say so (`.lease(nil)`,
            // `.finished`), so that whoever reads `/metrics` on seeing them finds it counted out.
            claim.leasing.taken(metrics: runner.metrics)
        }
        let held = claim.map { claim in
            HeldLease(claim.lease, store: claim.leasing.store) { report in
                next(
                    after: report, due: claim.due, started: started, finished: clock.now.date, schedule: schedule,
                    random: clock.random())
            }
        }
        let report = await withTaskGroup(of: PollReport?.self) { group in
            if let held {
                let duration = leaseDuration(runner: runner)
                group.addTask {
                    // Renewed every third of the lease while the poll runs; a lease lost is the commit's to refuse.
                    while !Task.isCancelled {
                        do { try await clock.sleep(for: duration / 3) } catch { return nil }
                        guard !Task.isCancelled else { return nil }
                        do {
                            guard
                                let renewed = try await held.store.renew(held.lease, for: duration, now: clock.now.date)
                            else {
                                logger.warning("lost the feed's lease: its poll's results will not be stored")
                                return nil
                            }
                            held.lease = renewed
                            events.yield(
                                .lease(
                                    feed: feed.name,
                                    holder: FeedHolder(
                                        owner: renewed.owner, until: renewed.expires, isThisInstance: true)))
                        } catch {
                            // The poll ended (or the run stops) while renewing: nothing to say (nor, but in detail, of
                            // a state that cannot be reached: that is said once for every feed).
                            guard !Task.isCancelled else { return nil }
                            logger.log(
                                level: Self.level(of: error), "cannot renew the feed's lease",
                                metadata: ["error": "\(error)"])
                        }
                    }
                    return nil
                }
            }
            group.addTask { await runner.poll(feed, source: entry.source, events: events, lease: held) }
            var report: PollReport?
            for await result in group {
                if let result {
                    report = result
                    group.cancelAll()
                }
            }
            return report
        }
        guard let report, !Task.isCancelled else {
            claim?.leasing.released(metrics: runner.metrics)
            return (nil, nil)
        }
        guard let claim, let held else {
            events.yield(.finished(report))
            return (report, nil)
        }
        var given: HeldLease.Next?
        switch held.outcome {
        case .committed(let next):
            given = next
        case .refused:
            logger.warning("the feed's lease was lost during its poll: its results were dropped, nothing stored")
        case .pending:
            // The poll stored nothing (the state could not be read or written, the server holds it back): give the
            // feed back, due again as after a failure.
            let next = next(
                after: report, due: claim.due, started: started, finished: clock.now.date, schedule: schedule,
                random: clock.random(), stateFailures: claim.stateFailures)
            do {
                if try await held.store.release(
                    held.lease, nextDue: next.due, backoff: next.backoff, heldUntil: next.heldUntil)
                {
                    given = next
                }
            } catch {
                logger.log(
                    level: Self.level(of: error), "cannot release the feed's lease", metadata: ["error": "\(error)"])
            }
        }
        claim.leasing.released(metrics: runner.metrics)
        events.yield(.lease(feed: feed.name, holder: nil))
        events.yield(.finished(report))
        return (report, given)
    }

    /// How a failed call about the lease is logged: a state that cannot be reached is said once for every feed
    /// (``PollEvent/state(unreachable:)``), so each call's failure is only a detail (`--verbose`).
    static func level(of error: any Error) -> Logger.Level {
        (error as? StateError)?.isUnreachable == true ? .debug : .warning
    }

    /// The feed's next schedule after the poll that made `report`, due at `due`, `stateFailures` calls in a row having
    /// found the state unreachable before it. A poll that failed because the state could not be reached is tried again
    /// within the feed's interval, whatever the feed's own failures.
    static func next(
        after report: PollReport, due: Date, started: Date, finished: Date, schedule: PollSchedule, random: Double,
        stateFailures: Int = 0
    ) -> HeldLease.Next {
        var plan = schedule.plan(
            due: due, started: started, finished: finished, failures: report.failures,
            minimumInterval: report.minimumInterval,
            notBefore: report.notBefore, random: random)
        if report.unreachableState != nil {
            let wait = schedule.unreachableStateDelay(failures: stateFailures + 1, random: random)
            plan = (finished.addingTimeInterval(wait.seconds), 0)
        }
        let heldUntil = hold(after: report, started: started)?.until
        let backoff =
            report.failures > 0 ? WallClock.Instant(finished).duration(to: WallClock.Instant(plan.due)) : .zero
        return HeldLease.Next(due: plan.due, backoff: backoff, heldUntil: heldUntil)
    }
}
