import AsyncAlgorithms
import Foundation
import Logging

/// Polls one feed at a time through its source and stores the results: the core's side of every plugin.
///
/// The item pipeline is expressed with swift-async-algorithms as the classic RxSwift apps used their
/// operators: the source `merge`s its sub-requests; the stored snapshot is `chain`ed before the live updates;
/// running counts are a `reductions` (scan) over the updates; the group catalog and the counts are joined
/// with `combineLatest`, so a group without items still shows with 0.
public struct PollRunner: Sendable {
    /// The state.
    public var store: StateStore
    /// Where requests go.
    public var transport: any HTTPTransport
    /// The global settings.
    public var settings: Settings
    /// How requests are sent.
    public var policy: HTTPPolicy
    /// The limit of requests in flight across all feeds.
    public var globalLimiter: AsyncSemaphore
    /// The rate-limit budgets all feeds polled by this runner share (per API origin and credential).
    public var budgets = RateBudgets()
    /// The clock.
    public var clock: PollClock
    /// The logger.
    public var logger: Logger
    /// How many of the newest items a report lists.
    public var latestCount = 10

    /// A runner; the global limiter allows `settings.concurrency` requests in flight.
    public init(
        store: StateStore, transport: any HTTPTransport, settings: Settings, clock: PollClock = .system, logger: Logger
    ) {
        self.store = store
        self.transport = transport
        self.settings = settings
        self.policy = HTTPPolicy(settings: settings)
        self.globalLimiter = AsyncSemaphore(limit: settings.concurrency)
        self.clock = clock
        self.logger = logger
    }

    /// The limit of the feed's own requests in flight: its `concurrency`, within the global one.
    public func concurrency(of feed: FeedConfig) -> Int {
        min(feed.options.integer("concurrency") ?? settings.concurrency, settings.concurrency)
    }

    /// Polls `feed` once with `source`, yielding views to `events` as responses arrive, and returns the report.
    /// Only a poll that ends (ok, not modified or partial) stores its items and validators; a failed or
    /// cancelled one leaves them as they were.
    public func poll(_ feed: FeedConfig, source: any FeedSource, events: AsyncStream<PollEvent>.Continuation? = nil)
        async -> PollReport
    {
        let started = clock.now()
        var logger = self.logger
        logger[metadataKey: "feed"] = "\(feed.name)"
        let failed = { (message: String, record: FeedRecord?) -> PollReport in
            var report = PollReport(
                feed: feed.name, type: feed.type, status: .failed, error: message, items: record?.itemCount ?? 0,
                started: started, duration: .milliseconds(Int64(self.clock.now().timeIntervalSince(started) * 1000)),
                rateLimit: record?.rateLimit, notBefore: record?.notBefore)
            report.minimumInterval = record?.minimumInterval
            report.failures = record?.failures ?? 0
            return report
        }
        let snapshot: FeedSnapshot
        do {
            snapshot = try await store.snapshot(feed: feed.name)
        } catch {
            return failed("cannot read the state: \(error)", nil)
        }
        if let notBefore = snapshot.record?.notBefore, notBefore > started {
            return failed("not polled: the server asked to wait until \(FetchError.format(notBefore))", snapshot.record)
        }

        let limit = concurrency(of: feed)
        let http = FeedHTTP(
            transport: transport, policy: policy, sourcePolicy: type(of: source).httpPolicy, budgets: budgets,
            limiters: [AsyncSemaphore(limit: limit), globalLimiter],
            validators: snapshot.validators, rateLimit: snapshot.record?.rateLimit, clock: clock, logger: logger)
        let values = SourceValues(snapshot.values)
        let context = PollContext(
            feed: feed.name, options: feed.options, http: http, stored: snapshot, values: values, logger: logger,
            clock: clock,
            concurrency: limit)

        let retention = source.retention
        let known = Set(snapshot.items.map(\.id))
        let storedTally = PollTally(known: known, seed: snapshot.items)
        let storedCounts = retention == .replace ? storedTally.counts : nil
        let initial = retention == .replace ? PollTally(known: known) : storedTally

        // The pipeline: the source's updates are routed into the catalog and the tally streams.
        let catalogUpdates = AsyncChannel<[ItemGroup]>()
        let tallyUpdates = AsyncChannel<SourceUpdate>()
        let catalog = chain([snapshot.groups].async, catalogUpdates)
        let tallies = chain(
            [TallyStage(tally: storedTally, live: false)].async,
            tallyUpdates.reductions(into: initial) { $0.apply($1) }.map { TallyStage(tally: $0, live: true) })
        var latestCatalog = snapshot.groups
        var latestTally = initial

        let sourceError = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                var failure: (any Error)?
                do {
                    for try await update in source.poll(context) {
                        if case .groups(let groups) = update {
                            await catalogUpdates.send(groups)
                        } else {
                            await tallyUpdates.send(update)
                        }
                    }
                } catch {
                    failure = error
                }
                catalogUpdates.finish()
                tallyUpdates.finish()
                return failure
            }
            for await (groups, stage) in combineLatest(catalog, tallies) {
                latestCatalog = groups
                if stage.live { latestTally = stage.tally }
                let view = FeedView(
                    feed: feed.name, catalog: groups, tally: stage.tally, stored: stage.live ? storedCounts : nil)
                events?.yield(.view(view))
            }
            return await group.next() ?? nil
        }

        var record = snapshot.record ?? FeedRecord(name: feed.name, type: feed.type)
        record.type = feed.type
        record.lastPoll = clock.now()
        // A failed poll waits for every exhausted limit; one that went on (a search served from its cache)
        // only for the default one.
        let hold = sourceError == nil ? http.hold : http.latestHold
        record.notBefore = hold?.until
        record.holdReason = hold?.reason
        record.rateLimit = http.rateLimit ?? record.rateLimit
        record.minimumInterval = http.minimumInterval ?? record.minimumInterval
        let statistics = http.statistics
        let elapsed = Duration.milliseconds(Int64(clock.now().timeIntervalSince(started) * 1000))

        if Task.isCancelled {
            return failed("cancelled", snapshot.record)
        }
        if let error = sourceError {
            let message = error is CancellationError ? "cancelled" : TerminalText.sanitized("\(error)")
            logger.info("poll failed", metadata: ["error": "\(message)"])
            record.status = PollReport.Status.failed.rawValue
            record.lastError = message
            record.failures += 1
            // Nothing of the poll's items or validators is stored; what the source chose to keep (a fresh search
            // result) is, so that it is not asked again at once.
            try? await store.commit(
                PollCommit(
                    record: record, items: nil, firstSeen: started, groups: nil, validators: [:], values: values.changes
                ),
                feed: feed.name)
            var report = failed(message, record)
            report.requests = statistics.requests
            report.notModified = statistics.notModified
            report.bytes = statistics.bytes
            return report
        }

        let tally = latestTally
        var items = Array(tally.items.values)
        if retention == .replace {
            let failedGroups = Set(tally.failures.compactMap(\.group))
            items += snapshot.items.filter { tally.items[$0.id] == nil && !failedGroups.isDisjoint(with: $0.groups) }
        }
        items.sort { ($0.date, $0.id) > ($1.date, $1.id) }
        if case .keepNewest(let count) = retention { items = Array(items.prefix(count)) }
        let newIDs = tally.newIDs.intersection(items.map(\.id))

        let status: PollReport.Status
        if !tally.failures.isEmpty {
            status = .partial
        } else if statistics.requests > 0, statistics.notModified == statistics.requests {
            status = .notModified
        } else {
            status = .ok
        }
        let error =
            tally.failures.isEmpty ? nil : tally.failures.map { "\($0.what): \($0.message)" }.joined(separator: "; ")
        record.status = status.rawValue
        record.lastError = error.map { TerminalText.sanitized($0) }
        record.failures = 0
        record.lastSuccess = record.lastPoll
        record.itemCount = items.count
        if !newIDs.isEmpty { record.lastNew = record.lastPoll }
        do {
            try await store.commit(
                PollCommit(
                    record: record, items: items, firstSeen: started, groups: latestCatalog,
                    validators: http.updatedValidators, values: values.changes), feed: feed.name)
        } catch {
            return failed("cannot write the state: \(error)", snapshot.record)
        }

        let finalTally = PollTally(known: known, seed: items)
        var counts = FeedView(feed: feed.name, catalog: latestCatalog, tally: finalTally, stored: nil).groups
        let breakdownDetail = type(of: source).breakdownDetail
        for index in counts.indices {
            let members = items.filter { $0.groups.contains(counts[index].id) }
            counts[index].new = members.filter { newIDs.contains($0.id) }.count
            if let breakdownDetail {
                for value in members.compactMap({ $0.detail(breakdownDetail) }) {
                    counts[index].breakdown[value, default: 0] += 1
                }
            }
        }
        var report = PollReport(
            feed: feed.name, type: feed.type, status: status, error: record.lastError, requests: statistics.requests,
            notModified: statistics.notModified, bytes: statistics.bytes, items: items.count, new: newIDs.count,
            groups: counts, latest: Array(items.prefix(latestCount)), newIDs: newIDs, started: started,
            duration: elapsed,
            rateLimit: record.rateLimit, notBefore: record.notBefore)
        report.minimumInterval = record.minimumInterval
        report.newItems = items.filter { newIDs.contains($0.id) }
        report.isFirstSync = snapshot.record?.lastSuccess == nil
        return report
    }
}

/// A tally with whether it is the stored one shown first or a live one.
private struct TallyStage: Sendable {
    var tally: PollTally
    var live: Bool
}
