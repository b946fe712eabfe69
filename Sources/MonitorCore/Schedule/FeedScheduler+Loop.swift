import Foundation
import Logging
import MonitorConcurrency
import MonitorText

/// A feed's loop, the one way a feed is scheduled: it waits for the feed's turn, claims it, polls, and plans the next.
/// With a schedule shared with other instances (``PollRunner/leasing``) the turn is claimed from the state: the feed is
/// polled only under a lease, renewed while the poll runs, and its results are stored only while the lease holds, with
/// its next due time, back-off and server hold. Without one the turn is this instance's alone, a lease always granted:
/// the feed's slot is kept here, first read from its record. Under the once policy (`monitor run --once`) the feed is
/// claimed due or not, polled once, and never by two instances at once.
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

    /// The loop of `start`'s feed, as long as it is scheduled. A task keeps the largest frame its calls grew until it
    /// ends, so each first read of the record and each poll runs ``apart(_:)``. A state that cannot be reached is asked
    /// again within the feed's interval (``PollSchedule/unreachableStateDelay(failures:random:)``) and said so once for
    /// every feed, through `reachability`, rather than logged by each. A feed polled by this instance alone takes a
    /// turn among the polls in flight (`start.slots`) for each poll; one on a shared schedule does not, as it would
    /// hold its lease while it waits.
    ///
    /// Once, the feed is claimed at once, due or not, and the loop ends after one poll (its next due time counted
    /// from it), answering what it did: a feed another instance holds is skipped, with a `.lease` event naming the
    /// holder; one that cannot be claimed (the server holds it back, the state fails) is reported as not polled. The
    /// answer is nil otherwise.
    @discardableResult
    static func loop(_ start: Start) async -> OncePoll? {
        let (entry, runner, events, once) = (start.entry, start.runner, start.events, start.once)
        let (clock, feed, leasing, reachability) = (runner.clock, entry.feed, runner.leasing, start.reachability)
        let schedule = runner.schedule(of: feed)
        // The feed's slot when known (not yet claimed), the server's hold with its reason, and how many slots the last
        // poll overran; the due time the turn is claimed at.
        var (slot, hold, skipped, due): (FeedSlot?, Hold?, Int, Date?) = (nil, nil, 0, nil)
        // A wait before the next claim: the first, spread as the first polls are, and after a failed claim.
        var wait = Duration.zero
        if leasing == nil, !once {
            (slot, hold) = await apart { await firstSlot(start) }
        } else if !once {
            wait = start.stagger * clock.random()
        }
        // Calls to the state that failed in a row: claims, and polls that found it unreachable.
        var failures = 0
        // Whether the next claim takes the feed though it is not due: after a "poll now".
        var pollNow = false
        // Once: the claims that lost a race with another instance's, and whether the feed was just scheduled.
        var (races, scheduled) = (0, false)
        let notPolled = { (message: String) -> OncePoll in
            let report = runner.notPolled(feed, message, record: nil, started: clock.now.date)
            events.yield(.finished(report))
            return .polled(report)
        }
        while once || !Task.isCancelled {
            if let waiting = slot {
                // Not due, held back, or leased by another instance: wait until it may be claimed, or a "poll now".
                let seen = clock.now.date
                let claimable = waiting.claimable(at: seen)
                let holding = hold.flatMap { $0.until > seen ? $0 : nil }
                start.waiting(hold: holding)
                events.yield(.scheduled(feed: feed.name, next: claimable, skipped: skipped, hold: holding))
                if claimable > seen {
                    do { try await start.sleep(until: WallClock.Instant(claimable), on: clock) } catch { return nil }
                }
                // Asked to poll now (the wait was cut short): claimed though not due yet, unless another instance
                // holds it (woken before its lease ends, it is still not this instance's to poll).
                let other = waiting.holder(at: seen).map { $0 != leasing?.owner } ?? false
                pollNow = !other && clock.now.date < waiting.due
                (slot, due) = (nil, waiting.due)
            } else if wait > .zero {
                do { try await start.sleep(until: clock.now.advanced(by: wait), on: clock) } catch { return nil }
                wait = .zero
            }
            guard once || !Task.isCancelled else { return nil }
            // A "poll now" from here on is answered by this turn.
            start.polling()
            let now = clock.now.date
            var claim: Claim?
            if let leasing {
                let answer: FeedClaim
                do {
                    // One round trip: the claim, or the row that says why not.
                    let claimed = try await leasing.store.claim(
                        feed: feed.name, owner: leasing.owner, lease: leaseDuration(runner: runner), now: now,
                        dueBy: once || pollNow ? .distantFuture : now)
                    guard let claimed else {
                        if once, scheduled {
                            return notPolled("cannot claim the feed: it is not in the shared schedule")
                        }
                        try await leasing.store.schedule(feeds: [feed.name], now: now)
                        (wait, scheduled) = (.zero, true)
                        continue
                    }
                    answer = claimed
                } catch {
                    if once { return notPolled("cannot claim the feed from the shared schedule: \(error)") }
                    // Stopping (the run ends, the feed was removed): the question was cancelled, nothing to say.
                    guard !Task.isCancelled else { return nil }
                    failures += 1
                    // A state that cannot be reached is said once for every feed and asked again within the feed's
                    // interval; a database that refuses the claim is asked again as a failing poll would be.
                    if let error = error as? StateError, error.isUnreachable {
                        if let event = reachability.found(error, started: now, now: clock.now.date) {
                            events.yield(event)
                        }
                        wait = schedule.unreachableStateDelay(failures: failures, random: clock.random())
                    } else {
                        wait = schedule.delay(failures: failures, minimumInterval: nil, random: clock.random())
                    }
                    runner.logger.log(
                        level: Self.level(of: error), "cannot claim the feed from the shared schedule",
                        metadata: ["feed": "\(feed.name)", "error": "\(error)"])
                    events.yield(.scheduled(feed: feed.name, next: now.addingTimeInterval(wait.seconds), skipped: 0))
                    continue
                }
                if let event = reachability.found(nil, started: now, now: clock.now.date) { events.yield(event) }
                pollNow = false
                guard let claimed = answer.lease else {
                    failures = 0
                    let row = answer.slot
                    let holder = row.holder(at: now).map {
                        FeedHolder(owner: $0, until: row.expires ?? now, isThisInstance: $0 == leasing.owner)
                    }
                    if once {
                        if let holder {
                            events.yield(.lease(feed: feed.name, holder: holder))
                            return .skipped(holder)
                        }
                        if let until = row.heldUntil, until > now {
                            return notPolled("not polled: the server asked to wait until \(UTCTime.full(until))")
                        }
                        // A claim that lost a race with another instance's (it waited for the row, then found it
                        // leased) answers with the row as it was before: neither leased nor held back. Asked again,
                        // twice.
                        races += 1
                        guard races < 3 else {
                            return notPolled("not polled: other instances claimed it each time it was asked for")
                        }
                        (wait, scheduled) = (.zero, false)
                        continue
                    }
                    events.yield(.lease(feed: feed.name, holder: holder))
                    // Claimed by another instance while this one asked (its answer is the row before), due again
                    // already, or not due, held back or leased: wait for it (or at once).
                    (slot, hold, skipped) = (row, row.heldUntil.map { Hold(until: $0, reason: serverHold) }, 0)
                    continue
                }
                (claim, due) = (Claim(lease: claimed, leasing: leasing), answer.slot.due)
            } else if !once {
                // Its turn among the polls in flight, taken here: a feed waiting for it holds no other task.
                guard (try? await start.slots.acquire()) != nil else { return nil }
            }
            let (turnDue, stateFailures, lease) = (due ?? now, failures, claim)
            let (report, given) = await apart {
                await poll(start, due: turnDue, stateFailures: stateFailures, under: lease)
            }
            // Handed on once the poll is reported: a display never sees more polls running than allowed.
            if leasing == nil, !once { start.slots.release() }
            if once { return report.map(OncePoll.polled) ?? (leasing == nil ? nil : notPolled("cancelled")) }
            if let error = report?.unreachableState {
                failures += 1
                if let event = reachability.found(error, started: now, now: clock.now.date) { events.yield(event) }
            } else {
                failures = 0
            }
            // Not given back (the lease was lost, the state could not be written; or cancelled): claim again at once.
            guard let next = given else { continue }
            (slot, hold, skipped) = (FeedSlot(due: next.due, heldUntil: next.hold?.until), next.hold, next.skipped)
            if skipped > 0 {
                runner.logger.info(
                    "poll overran its interval", metadata: ["feed": "\(feed.name)", "skipped": "\(skipped)"])
            }
        }
        return nil
    }

    /// The first slot of a feed polled by this instance alone: due after a random part of `stagger`, or when its
    /// stored hold ends if later; with that hold, and its reason.
    private static func firstSlot(_ start: Start) async -> (FeedSlot, Hold?) {
        let (runner, clock) = (start.runner, start.runner.clock)
        let record = try? await runner.store.record(feed: start.entry.feed.name)
        let hold = record?.notBefore.map { Hold(until: $0, reason: record?.holdReason ?? serverHold) }
        let due = clock.now.advanced(by: start.stagger * clock.random()).date
        return (FeedSlot(due: max(due, hold?.until ?? due), heldUntil: hold?.until), hold)
    }

    /// A lease of the shared schedule a poll runs under, and the leases it was claimed through.
    struct Claim {
        var lease: FeedLease
        var leasing: FeedLeases
    }

    /// Polls `start`'s feed, due at `due`, now, reporting to its events (`.polling`, then `.finished` unless cancelled),
    /// `stateFailures` calls in a row having found the state unreachable before. The answer has the feed's next
    /// schedule. Under `claim` its lease is renewed next to the poll and its results are committed only while it holds;
    /// the schedule is then the one this instance wrote when it gave the feed back (with the poll's results, or
    /// without), nil when it did not (the lease was lost, the database could not be written). The report is nil once
    /// cancelled.
    static func poll(
        _ start: Start, due: Date, stateFailures: Int = 0, under claim: Claim? = nil
    ) async -> (report: PollReport?, next: HeldLease.Next?) {
        let (entry, runner, events) = (start.entry, start.runner, start.events)
        let clock = runner.clock
        let feed = entry.feed
        var feedLogger = runner.logger
        feedLogger[metadataKey: "feed"] = "\(feed.name)"
        let logger = feedLogger
        let schedule = runner.schedule(of: feed)
        start.polling()
        // `.polling` first: the lease event that follows is drawn at once by the live views, with the phase (a
        // `.polling` drawn within their redraw throttle after it would wait for the next event to be shown).
        events.yield(.polling(feed: feed.name))
        let started = clock.now.date
        if let claim {
            events.yield(.lease(feed: feed.name, holder: claim.lease.holder))
            // Counted as held until given back: released below before the events that say so (`.lease(nil)`,
            // `.finished`), so that whoever reads `/metrics` on seeing them finds it counted out.
            claim.leasing.held(1, metrics: runner.metrics)
        }
        let plan = { @Sendable (report: PollReport) in
            next(
                after: report, due: due, started: started, finished: clock.now.date, schedule: schedule,
                random: clock.random(), stateFailures: stateFailures)
        }
        let held = claim.map { HeldLease($0.lease, store: $0.leasing.store, next: plan) }
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
                            events.yield(.lease(feed: feed.name, holder: renewed.holder))
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
            claim?.leasing.held(-1, metrics: runner.metrics)
            return (nil, nil)
        }
        guard let claim, let held else {
            events.yield(.finished(report))
            return (report, plan(report))
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
            let next = plan(report)
            do {
                if try await held.store.release(
                    held.lease, nextDue: next.due, backoff: next.backoff, heldUntil: next.hold?.until)
                {
                    given = next
                }
            } catch {
                logger.log(
                    level: Self.level(of: error), "cannot release the feed's lease", metadata: ["error": "\(error)"])
            }
        }
        claim.leasing.held(-1, metrics: runner.metrics)
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
        let backoff =
            report.failures > 0 ? WallClock.Instant(finished).duration(to: WallClock.Instant(plan.due)) : .zero
        return HeldLease.Next(
            due: plan.due, backoff: backoff, hold: hold(after: report, started: started), skipped: plan.skipped)
    }
}
