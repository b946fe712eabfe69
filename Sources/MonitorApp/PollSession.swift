import Foundation
import Logging
import MonitorCore

/// One `monitor run --once`: every feed polled concurrently, their events fanned in to one display; the
/// notifications left by earlier runs delivered before the polls, those of the polls after them.
struct PollSession {
    var config: MonitorConfig
    var store: any StateStoring
    /// The polls' transport, shut down when they end.
    var transport: HTTPClientTransport
    var format: OutputFormat
    var verbose: Bool

    /// Polls every feed once and returns their reports in the order of the feeds file, without their items (shown
    /// as each poll finished: thousands of feeds' items are not kept to the end). On a shared schedule, a feed another
    /// instance holds is skipped (no report; the display says who holds it).
    func runOnce() async throws -> [PollReport] {
        var logger = Logger(label: "monitor") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .warning
        var configured = PollRunner(store: store, transport: transport, settings: config.settings, logger: logger)
        // What earlier runs left undelivered goes first, before the polls write anything new.
        let notifierTransport = NotifierSet.transport(config.settings)
        let delivery = NotificationDelivery(
            store: store,
            notifiers: NotifierSet.make(
                config.notifiers, settings: config.settings, transport: notifierTransport, logger: logger),
            bounds: NotifierSet.bounds(config.notifiers), logger: logger)
        var attempts: [NotificationDelivery.Attempt] = []
        if !config.notifiers.isEmpty {
            configured.outbox = NotificationOutbox(notifiers: config.notifiers)
            attempts = await delivery.deliverDue(all: true)
        }
        let runner = configured
        let sources = config.sources
        let display = RunDisplay(
            format: format, terminal: Console.isTerminal(onStandardError: false), sources: sources,
            feeds: config.feeds.map(\.name))

        // N polls fan in through a task group into one stream of events, read by the display. At most
        // `pollsInFlight` run at once: a poll holds its stored state from its start, so thousands started together
        // would all hold theirs while waiting for the request limit.
        let (events, continuation) = AsyncStream<PollEvent>.makeStream()
        let feeds = config.feeds
        let pollsInFlight = Self.pollsInFlight(concurrency: config.settings.concurrency)
        // A state shared with other instances (PostgreSQL): each feed is claimed from its schedule and polled under
        // its lease; one another instance holds is skipped, and said so.
        let leasing = (store as? any FeedLeasing).map { FeedLeases(store: $0) }
        async let reports = withTaskGroup(of: (Int, PollReport?).self) { group in
            let poll = { @Sendable (index: Int, feed: FeedConfig) async -> (Int, PollReport?) in
                guard let source = sources[feed.name] else {
                    let report = PollReport(
                        feed: feed.name, type: feed.type, status: .failed, error: "unknown feed type",
                        started: Date())
                    continuation.yield(.finished(report))
                    return (index, report)
                }
                if let leasing {
                    switch await FeedScheduler.pollOnce(
                        feed, source: source, runner: runner, leasing: leasing, events: continuation)
                    {
                    case .polled(let report): return (index, report)
                    case .skipped: return (index, nil)
                    }
                }
                let report = await runner.poll(feed, source: source, events: continuation)
                continuation.yield(.finished(report))
                return (index, report)
            }
            var waiting = Array(feeds.enumerated()).makeIterator()
            for _ in 0..<pollsInFlight {
                guard let (index, feed) = waiting.next() else { break }
                group.addTask { await poll(index, feed) }
            }
            var reports: [(Int, PollReport)] = []
            for await (index, report) in group {
                if let (index, feed) = waiting.next() { group.addTask { await poll(index, feed) } }
                guard var kept = report else { continue }
                kept.latest = []
                kept.newItems = []
                reports.append((index, kept))
            }
            continuation.finish()
            return reports.sorted { $0.0 < $1.0 }.map(\.1)
        }
        for await event in events {
            // A notification the polls' commits dropped is said with the others, at the end.
            if case .delivery(let dropped) = event { attempts.append(dropped) }
            display.show(event)
        }
        display.finish()
        let finished = await reports
        try? await transport.shutdown()
        // One attempt at each notifier's notifications not attempted yet (those of these polls); what is left
        // undelivered is said on standard error and kept for the next run.
        if !config.notifiers.isEmpty, !Task.isCancelled {
            // A notifier whose older notification was just not delivered keeps the new ones waiting behind it.
            attempts += await delivery.deliverDue(all: true, holding: Self.notDelivered(attempts))
        }
        try? await notifierTransport.shutdown()
        // A notifier's notification not delivered is said once, with how many wait behind it.
        var waiting: [String: Int] = [:]
        for notifier in Self.notDelivered(attempts) {
            waiting[notifier] = try? await store.pendingCount(of: notifier)
        }
        let dropped = Set(
            attempts.compactMap { attempt -> String? in
                if case .dropped = attempt.result { attempt.notification.id } else { nil }
            })
        for attempt in attempts {
            // One not delivered and then dropped by a poll's commit is said by its drop.
            if case .willRetry = attempt.result, dropped.contains(attempt.notification.id) { continue }
            let behind = waiting[attempt.notification.notifier].map { $0 - 1 } ?? 0
            if let line = NotifierSet.undeliveredLine(attempt, waiting: behind) { Console.error(line) }
        }
        return finished
    }

    /// The notifiers of `attempts` whose notification was not delivered (and stays their oldest).
    private static func notDelivered(_ attempts: [NotificationDelivery.Attempt]) -> Set<String> {
        Set(
            attempts.compactMap { attempt -> String? in
                if case .willRetry = attempt.result { attempt.notification.notifier } else { nil }
            })
    }

    /// How many feeds `run --once` polls at once: enough to keep `concurrency` requests in flight while other
    /// polls read and write their state, few enough that the polls waiting for a request hold little.
    static func pollsInFlight(concurrency: Int) -> Int {
        max(4, 2 * concurrency)
    }
}
