import Foundation
import Logging
import MonitorConcurrency
import MonitorText

/// Polls one feed at a time through its source and stores the results: the core's side of every plugin.
///
/// A poll reads what is stored, runs the source with the context and `Findings` the core gives it, folds its
/// updates into a `PollTally` step by step (the classic apps' `scan`) showing each step and preparing each batch
/// of items for the state as it comes, decides the outcome with the pure `PollOutcome`, and commits it in one
/// transaction.
package struct PollRunner: Sendable {
    var store: any StateStoring
    var transport: any HTTPTransport
    var settings: Settings
    var policy: HTTPPolicy
    /// The limit of requests in flight across all feeds.
    var globalLimiter: AsyncSemaphore
    /// The rate-limit budgets all feeds polled by this runner share (per API origin and credential); kept in the
    /// state when it shares them with other instances (PostgreSQL).
    var budgets: RateBudgets
    var clock: any PollClock
    var logger: Logger
    /// Where polls and their requests are counted.
    package var metrics = MonitorMetrics.disabled
    /// The notifiers to plan notifications for, each poll's written to the outbox in its commit; nil for none.
    package var outbox: NotificationOutbox?
    /// The shared schedule the scheduler claims feeds from (a PostgreSQL state); nil to schedule alone.
    package var leasing: FeedLeases?

    /// A runner; the global limiter allows `settings.concurrency` requests in flight. A state that keeps rate budgets
    /// for several instances (``RateBudgetStoring``) keeps the runner's: a request counts there as in flight for
    /// twice the request timeout at most.
    package init(
        store: any StateStoring, transport: any HTTPTransport, settings: Settings, clock: any PollClock = WallClock(),
        logger: Logger
    ) {
        self.store = store
        self.transport = transport
        self.settings = settings
        self.policy = HTTPPolicy(settings: settings)
        self.globalLimiter = AsyncSemaphore(limit: settings.concurrency)
        self.clock = clock
        self.logger = logger
        self.budgets = RateBudgets(
            sharing: (store as? any RateBudgetStoring).map {
                RateBudgets.Sharing(store: $0, flight: settings.timeout * 2, logger: logger)
            })
    }

    /// Polls `feed` once with `source`, yielding views to `events` as responses arrive, and returns the report.
    /// Only a poll that ends (ok, not modified or partial) stores its items and validators; a failed or
    /// cancelled one leaves them as they were. The poll is counted in `metrics`, unless it was cancelled.
    /// With `lease`, the results are committed only while the lease holds, with the feed's next schedule.
    func poll(
        _ feed: FeedConfig, source: any FeedSource, events: AsyncStream<PollEvent>.Continuation? = nil,
        lease: HeldLease? = nil
    ) async -> PollReport {
        let report = await pollAndStore(feed, source: source, events: events, lease: lease)
        // A cancelled poll (the run stopping, the feed removed) did not end: only its requests count.
        if report.status != .failed || !Task.isCancelled { metrics.polled(report) }
        return report
    }

    private func pollAndStore(
        _ feed: FeedConfig, source: any FeedSource, events: AsyncStream<PollEvent>.Continuation?, lease: HeldLease?
    ) async -> PollReport {
        let started = clock.now.date
        var logger = self.logger
        logger[metadataKey: "feed"] = "\(feed.name)"
        // The state is read in a child, which then folds the source's findings: first what the requests need (the
        // record, validators, values and the stored items' ids), given here through `head`; then the stored items,
        // while the first requests are in flight. The fold starts from them, so it sees every stored item before it
        // decides what is new. Cancelling the poll cancels the source and waits for it to end what it started (an
        // external program's process group) before the poll returns.
        let stored = OneShot<StoredHead?>()
        let (updates, continuation) = AsyncThrowingStream<SourceUpdate, any Error>.makeStream()
        let dropped = RuleDrops()
        async let folded = readAndFold(
            feed, source: type(of: source), retention: source.retention, started: started, head: stored,
            dropped: dropped, updates: updates, events: events)
        guard let head = await stored.value else {
            continuation.finish()
            var error: any Error = CancellationError()
            if case .failure(let failure) = await folded { error = failure }
            return notPolled(feed, "cannot read the state: \(error)", record: nil, started: started, error: error)
        }
        let snapshot = head.snapshot
        if let notBefore = snapshot.record?.notBefore, notBefore > started {
            continuation.finish()
            return notPolled(
                feed, "not polled: the server asked to wait until \(UTCTime.full(notBefore))",
                record: snapshot.record, started: started)
        }

        // The limit of the feed's own requests in flight: its `concurrency`, within the global one.
        let limit = min(feed.options[FeedConfig.concurrency] ?? settings.concurrency, settings.concurrency)
        let http = FeedHTTP(
            transport: transport, policy: policy, sourcePolicy: type(of: source).httpPolicy, budgets: budgets,
            limiters: [AsyncSemaphore(limit: limit), globalLimiter],
            validators: snapshot.validators, rateLimit: snapshot.record?.rateLimit, clock: clock, logger: logger,
            metrics: metrics.requests(feed: feed.name))
        // The feed's rule drops the items it does not match before anything else sees them: those the source finds
        // (here), and those stored before the rule was written, which a 304 would carry (in `readAndFold`).
        let rule = feed.rule
        let values = SourceValues(snapshot.values)
        let context = PollContext(
            feed: feed.name, options: feed.options, http: http, known: head.ids, values: values, logger: logger,
            clock: clock, concurrency: limit)
        do {
            try await source.poll(
                context,
                Findings { update in
                    guard let rule, case .items(let batch) = update else {
                        continuation.yield(update)
                        return
                    }
                    let kept = dropped.kept(batch) { rule.matches($0, now: started, source: type(of: source)) }
                    if !kept.isEmpty { continuation.yield(.items(kept)) }
                })
            continuation.finish()
        } catch {
            continuation.finish(throwing: error)
        }
        let tally: PollTally
        let prepared: PreparedItems
        let thrown: (any Error)?
        switch await folded {
        case .success(let fold): (tally, prepared, thrown) = fold
        case .failure(let error):
            return notPolled(
                feed, "cannot read the state: \(error)", record: snapshot.record, started: started, error: error)
        }
        if Task.isCancelled {
            return notPolled(feed, "cancelled", record: snapshot.record, started: started)
        }

        var record = snapshot.record ?? FeedRecord(name: feed.name, type: feed.type)
        record.type = feed.type
        record.lastPoll = clock.now.date
        // A failed poll waits for every exhausted limit; one that went on (a search served from its cache)
        // only for the default one.
        let hold = thrown == nil ? http.hold : http.latestHold
        record.notBefore = hold?.until
        record.holdReason = hold?.reason
        record.rateLimit = http.rateLimit ?? record.rateLimit
        record.minimumInterval = http.minimumInterval ?? record.minimumInterval
        let statistics = http.statistics
        let outcome = PollOutcome(
            tally: tally, record: record, statistics: statistics,
            thrown: thrown.map { $0 is CancellationError ? "cancelled" : "\($0)" }, started: started)
        var report = outcome.report
        if let error = report.error, report.status == .failed {
            logger.info("poll failed", metadata: ["error": "\(error)"])
        }
        report.duration = elapsed(since: started)
        let notifiers = outbox?.notifiers ?? []
        let notifications = NotificationPlanner.notifications(
            of: report, feed: feed, previous: snapshot.record, record: outcome.record, notifiers: notifiers,
            source: type(of: source))
        var changes = values.changes
        if let change = dropped.change(stored: outcome.items.map { Set($0.map(\.id)) } ?? head.ids) {
            changes[RuleDrops.key] = change
        }
        let written: CommitStatistics
        do {
            // A failed poll stores none of its items or validators; what the source chose to keep (a fresh
            // search result) is, so that it is not asked again at once. What the poll has to tell is written with
            // it, or not at all.
            let commit = PollCommit(
                record: outcome.record, items: outcome.items, firstSeen: started, groups: outcome.catalog,
                validators: outcome.items == nil ? [:] : http.updatedValidators, values: changes,
                notifications: notifications,
                bounds: Dictionary(notifiers.map { ($0.name, $0.bounds) }, uniquingKeysWith: { $1 }),
                prepared: outcome.items == nil ? PreparedItems() : prepared)
            if let lease {
                written = try await lease.commit(commit, report: report)
            } else {
                written = try await store.commit(commit, feed: feed.name)
            }
        } catch {
            return notPolled(
                feed, "cannot write the state: \(error)", record: snapshot.record, started: started, error: error)
        }
        // What the notifiers' bounds dropped to make room is reported like a delivery attempt.
        for dropped in written.dropped {
            events?.yield(.delivery(NotificationDelivery.reported(dropped, metrics: metrics, logger: logger)))
        }
        outbox?.committed(notifications)
        report.duration = elapsed(since: started)
        return report
    }

    // MARK: - The parts of a poll

    /// What a poll needs of the state before its first request: the snapshot without its items, and their ids.
    struct StoredHead: Sendable {
        var snapshot: FeedSnapshot
        var ids: Set<String>
    }

    /// Reads what is stored for `feed`, giving `head` what the requests need as soon as it is read (nil when the
    /// read fails before), then folds `updates` into the poll's tally, showing the stored items first and then every
    /// step; returns the last tally, the stored form of the items found and what the source threw, if it did. The
    /// stored items the feed's rule does not match are dropped first, and recorded in `dropped`, whose ids dropped by
    /// earlier polls count as known.
    ///
    /// A view lists every group, so with more than ``viewedGroups`` of them a step is shown only once the updates
    /// since the last view brought as many group memberships as a quarter of the groups: showing a poll then costs
    /// at most about four times folding it, however many small updates a source sends.
    ///
    /// Each batch of items is prepared for the state (``PreparedItems``) as it comes, after its step is shown:
    /// while the source waits for its next responses, not in the commit after the last one; a large batch on every
    /// core at once (the last answer's preparation is on the way to the commit).
    func readAndFold(
        _ feed: FeedConfig, source: any FeedSource.Type, retention: ItemRetention, started: Date,
        head: OneShot<StoredHead?>, dropped: RuleDrops, updates: AsyncThrowingStream<SourceUpdate, any Error>,
        events: AsyncStream<PollEvent>.Continuation?
    ) async -> Result<(PollTally, PreparedItems, (any Error)?), any Error> {
        var snapshot: FeedSnapshot
        do {
            snapshot = try await store.snapshot(feed: feed.name) { head.fulfil(StoredHead(snapshot: $0, ids: $1)) }
        } catch {
            head.fulfil(nil)
            return .failure(error)
        }
        // The ids the head had, as the poll's context has them, those the rule drops from the stored items included:
        // the source reported them before (a stored form the rule reads otherwise than the answer's is not new).
        var known = await head.value?.ids ?? []
        if let rule = feed.rule {
            snapshot.items = dropped.kept(snapshot.items) { rule.matches($0, now: started, source: source) }
        }
        known.formUnion(dropped.remember(snapshot.values))
        let breakdown = source.breakdown?.detail
        // The view of the stored items is made here from their counts: no second tally of them is kept through
        // the poll.
        events?.yield(.view(FeedView(feed: feed.name, stored: snapshot, breakdown: breakdown)))
        var tally = PollTally(stored: snapshot, known: known, retention: retention, breakdown: breakdown)
        var prepared = PreparedItems()
        // The work folded since the last view: an update, and each group of each item or of the catalog.
        var work = 0
        do {
            for try await update in updates {
                tally.apply(update)
                work += 1
                switch update {
                case .items(let batch): for item in batch { work += item.groups.count }
                case .groups(let groups): work += groups.count
                default: break
                }
                let groups = tally.totals.count + tally.catalog.count
                if let events, groups <= Self.viewedGroups || work * 4 >= groups {
                    events.yield(.view(FeedView(feed: feed.name, tally: tally)))
                    work = 0
                }
                if case .items(var batch) = update {
                    // A batch larger than what is kept has items retention dropped already: those are not prepared.
                    if case .keepNewest(let keep) = retention, batch.count > keep { batch = batch.filter(tally.keeps) }
                    await prepared.add(batch, parts: Self.cores)
                }
            }
        } catch {
            return .success((tally, prepared, error))
        }
        return .success((tally, prepared, nil))
    }

    /// The most groups a poll has for every step of it to be shown.
    static let viewedGroups = 500

    /// The cores a large batch of items is prepared on at once.
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// The report of a poll that could not run or be stored: nothing of it is stored. An `error` of a state that
    /// could not be reached is the state's failure (``PollReport/unreachableState``).
    func notPolled(
        _ feed: FeedConfig, _ message: String, record: FeedRecord?, started: Date, error: (any Error)? = nil
    ) -> PollReport {
        PollReport(
            feed: feed.name, type: feed.type, status: .failed, error: message, items: record?.itemCount ?? 0,
            started: started, duration: elapsed(since: started), rateLimit: record?.rateLimit,
            notBefore: record?.notBefore, holdReason: record?.holdReason, minimumInterval: record?.minimumInterval,
            failures: (record ?? FeedRecord(name: feed.name, type: feed.type)).failures(after: .failed),
            unreachableState: (error as? StateError).flatMap { $0.isUnreachable ? $0 : nil }, lastNew: record?.lastNew)
    }

    /// The time since `started` on the runner's clock.
    private func elapsed(since started: Date) -> Duration {
        WallClock.Instant(started).duration(to: clock.now)
    }
}
