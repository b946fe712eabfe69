import Foundation
import Logging
import Synchronization

/// Polls feeds on their schedules while `run()` runs: each at its interval with jitter, never two polls of a
/// feed at once, never before the server allows, backing off while it fails. Each feed is a child task of
/// `run()`. The set of feeds can be replaced while it runs: added feeds start, removed ones stop, changed
/// ones restart; the others go on. A feed can be asked to poll at once (``pollNow(feed:)``) unless the server
/// holds it back. At most `pollsInFlight(concurrency:)` polls run at once: a poll holds its feed's stored state
/// from its start, so thousands of due feeds must not all start and wait for a request.
public final class FeedScheduler: Sendable {
    /// A feed as scheduled: its configuration and the source that polls it.
    public struct Entry: Sendable {
        /// The feed.
        public var feed: FeedConfig
        /// Its source.
        public var source: any FeedSource
        /// What identifies the configuration: a change restarts the feed.
        public var signature: String

        /// An entry; `signature` should change whenever the feed's configuration does.
        public init(feed: FeedConfig, source: any FeedSource, signature: String) {
            self.feed = feed
            self.source = source
            self.signature = signature
        }
    }

    /// What ``pollNow(feed:)`` did.
    public enum PollNow: Sendable, Hashable {
        /// The feed's wait was cut short: it polls at once, and its interval starts again from that poll.
        case polling
        /// The feed is being polled already (or is starting, its first poll to come): no other poll is asked for.
        case alreadyPolling
        /// The server holds the feed back until `until` (`Retry-After`, a rate limit, its minimum interval):
        /// nothing is asked; `reason` says why, in a few words.
        case held(until: Date, reason: String)
        /// No feed of that name is scheduled.
        case notScheduled
    }

    /// A feed running as a child task of `run()`: its control stops it and says when it has ended.
    private struct Running {
        var signature: String
        var control: Control
    }

    /// What `run()` is asked to start.
    private struct Start: Sendable {
        var entry: Entry
        var runner: PollRunner
        var slots: AsyncSemaphore
        var control: Control
    }

    /// Where a feed's loop is, the "poll now" that cuts its wait short, and the stop that ends it; shared by the
    /// loop, `pollNow` and `stop`. The feed is one task while it waits (and one more for its timer): stopping it
    /// wakes its wait and cancels what runs ``apart(_:)``, rather than a second task per feed standing by to cancel it.
    final class Control: Sendable {
        private struct State {
            /// Whether a poll runs (from its start to its report), or the feed starts (its hold not known yet).
            var polling = true
            /// Until when, and why, the server holds the feed back.
            var hold: FeedHTTP.Hold?
            /// A "poll now" the loop has not taken yet.
            var pending = false
            /// The loop's wait for a "poll now", while it waits.
            var waiter: CheckedContinuation<Void, Never>?
            /// The current wait's timer has come.
            var timerDone = false
            /// The feed is stopped: its loop ends at its next step, what runs apart is cancelled.
            var stopped = false
            /// What runs apart waits for the stop here.
            var stopWaiter: CheckedContinuation<Void, Never>?
            /// The loop has ended.
            var ended = false
            /// Those waiting for the loop to end.
            var endWaiters: [CheckedContinuation<Void, Never>] = []
        }

        private let state = Mutex(State())

        /// The loop waits for its next poll, held back by the server until `hold`, if at all.
        func waiting(hold: FeedHTTP.Hold?) {
            state.withLock {
                $0.polling = false
                $0.hold = hold
            }
        }

        /// The loop starts a poll: a "poll now" asked before is answered by this one.
        func polling() {
            state.withLock {
                $0.polling = true
                $0.pending = false
            }
        }

        /// Wakes the loop's wait unless a poll runs or the server holds the feed back at `now`.
        func pollNow(now: Date) -> PollNow {
            let (answer, waiter) = state.withLock { state -> (PollNow, CheckedContinuation<Void, Never>?) in
                if state.polling { return (.alreadyPolling, nil) }
                if let hold = state.hold, hold.until > now {
                    return (.held(until: hold.until, reason: hold.reason), nil)
                }
                state.pending = true
                defer { state.waiter = nil }
                return (.polling, state.waiter)
            }
            waiter?.resume()
            return answer
        }

        /// Whether the feed is stopped (or the loop's task cancelled): the loop ends.
        var isStopped: Bool {
            Task.isCancelled || state.withLock { $0.stopped }
        }

        /// Sleeps `duration` on `clock`, or less when a "poll now" or the stop comes first. Throws when cancelled.
        /// The timer is the one child task: the feed's own task waits for it, a "poll now" or the stop.
        func sleep(_ duration: Duration, on clock: PollClock) async throws {
            state.withLock { $0.timerDone = false }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Cancelled when the wait ended otherwise: then it wakes nothing.
                    guard (try? await clock.sleep(duration)) != nil else { return }
                    self.wake { $0.timerDone = true }
                }
                defer { group.cancelAll() }
                await self.asked()
            }
            if Task.isCancelled { throw CancellationError() }
        }

        /// Marks the feed stopped: its wait ends, what runs apart is cancelled, the loop ends at its next step.
        func stop() {
            wake { $0.stopped = true }
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.stopWaiter = nil }
                return state.stopWaiter
            }
            waiter?.resume()
        }

        /// The loop has ended: those waiting in ``ended()`` return.
        func end() {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.ended = true
                defer { state.endWaiters = [] }
                return state.endWaiters
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Returns when the loop has ended.
        func ended() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.ended { return true }
                    state.endWaiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }

        /// What `body` returns, run as a child task that the stop cancels: the memory its calls take is given back
        /// when it ends, not kept by the feed's task while it sleeps until its next poll (a task keeps the stack it
        /// grew until it ends: 10,000 feeds would keep 20 KiB each).
        func apart<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
            await withTaskGroup(of: T?.self) { group in
                group.addTask { await body() }
                group.addTask {
                    await self.untilStopped()
                    return nil
                }
                var result: T?
                // The first to end: the body (the other is then cancelled) or the stop (the body is then cancelled,
                // and its result, once it has ended, is what it made of that).
                while let next = await group.next() {
                    group.cancelAll()
                    if let next { result = next }
                }
                // The body's result: it always ends, and only the stop's wait gives nil.
                return result!
            }
        }

        /// Sets `change` and wakes the loop's wait, if it waits.
        private func wake(_ change: (inout State) -> Void) {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                change(&state)
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// Returns when the feed is stopped, or when cancelled.
        private func untilStopped() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        if state.stopped || Task.isCancelled { return true }
                        state.stopWaiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.stopWaiter = nil }
                    return state.stopWaiter
                }
                waiter?.resume()
            }
        }

        /// Returns when a "poll now" is asked for (at once if one was), the timer has come, the feed is stopped, or
        /// when cancelled.
        private func asked() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        if state.pending || state.timerDone || state.stopped || Task.isCancelled { return true }
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }

    private typealias Hold = FeedHTTP.Hold

    /// The runner, and the polls in flight it allows.
    private let current: Mutex<(runner: PollRunner, slots: AsyncSemaphore)>
    private let events: AsyncStream<PollEvent>.Continuation
    private let running = Mutex<[String: Running]>([:])
    /// One change of the set of feeds at a time: two overlapping `apply`s (a reload and a "poll now") would each
    /// see a feed stopped by the other as missing and start it twice.
    private let changing = AsyncSemaphore(limit: 1)
    private let starts: (stream: AsyncStream<Start>, continuation: AsyncStream<Start>.Continuation)
    /// The longest initial delay, so that feeds started together do not all fire at once.
    public let stagger: Duration

    /// A scheduler polling through `runner`, reporting to `events`. Its feeds run while `run()` does.
    public init(runner: PollRunner, events: AsyncStream<PollEvent>.Continuation, stagger: Duration = .seconds(2)) {
        current = Mutex((runner, Self.slots(for: runner)))
        self.events = events
        self.stagger = stagger
        starts = AsyncStream<Start>.makeStream()
    }

    /// The runner feeds started from now on poll through (settings change it: restart the feeds after).
    public var runner: PollRunner {
        get { current.withLock { $0.runner } }
        set { current.withLock { $0 = (newValue, Self.slots(for: newValue)) } }
    }

    /// How many polls run at once: enough to keep `concurrency` requests in flight while other polls read and
    /// write their state, few enough that the polls waiting for a request hold little.
    public static func pollsInFlight(concurrency: Int) -> Int {
        max(4, 2 * concurrency)
    }

    private static func slots(for runner: PollRunner) -> AsyncSemaphore {
        AsyncSemaphore(limit: pollsInFlight(concurrency: runner.settings.concurrency))
    }

    /// The names of the feeds scheduled.
    public var feeds: [String] { running.withLock { $0.keys.sorted() } }

    /// Runs every feed `apply` starts as a child task, until `shutdown()` or cancellation; returns when all
    /// of them have ended. No feed's task outlives it.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await start in starts.stream {
                group.addTask {
                    // One task per feed: its control stops it (or `run` is cancelled).
                    await Self.loop(
                        start.entry, runner: start.runner, slots: start.slots, events: self.events,
                        stagger: self.stagger, control: start.control)
                    start.control.end()
                }
            }
            group.cancelAll()
        }
    }

    /// Replaces the set of feeds: starts the new ones, stops the removed ones, restarts the changed ones.
    /// Returns the names started, stopped and restarted.
    @discardableResult
    public func apply(_ entries: [Entry]) async -> (started: [String], stopped: [String], restarted: [String]) {
        guard (try? await changing.acquire()) != nil else { return ([], [], []) }
        defer { changing.release() }
        let wanted = Dictionary(entries.map { ($0.feed.name, $0) }, uniquingKeysWith: { $1 })
        let (stopping, restarting, starting) = running.withLock { running in
            let stopping = running.keys.filter { wanted[$0] == nil }.sorted()
            let restarting = running.filter { name, current in
                wanted[name].map { $0.signature != current.signature } ?? false
            }
            .keys.sorted()
            let starting = wanted.keys.filter { running[$0] == nil }.sorted()
            return (stopping, restarting, starting)
        }
        for name in stopping + restarting {
            await stop(name)
        }
        for name in stopping { events.yield(.stopped(feed: name)) }
        for name in restarting + starting {
            if let entry = wanted[name] { start(entry) }
        }
        return (starting, stopping, restarting)
    }

    /// Asks `feed` to poll now rather than at the end of its wait, without restarting it: its interval then
    /// starts again from that poll. A server's hold (`Retry-After`, an exhausted rate limit, its minimum poll
    /// interval) is still obeyed, and a poll already running is not doubled: the answer says which happened.
    public func pollNow(feed: String) -> PollNow {
        guard let control = running.withLock({ $0[feed]?.control }) else { return .notScheduled }
        return control.pollNow(now: runner.clock.now())
    }

    /// Stops every feed and waits for their polls to end (an in-flight poll is cancelled; nothing of it is stored).
    public func stopAll() async {
        // Cancelled while waiting for a change in progress: the feeds are stopped all the same.
        let serialised = (try? await changing.acquire()) != nil
        defer { if serialised { changing.release() } }
        for name in feeds { await stop(name) }
    }

    /// Stops every feed, then ends `run()`.
    public func shutdown() async {
        await stopAll()
        starts.continuation.finish()
    }

    private func stop(_ name: String) async {
        guard let current = running.withLock({ $0.removeValue(forKey: name) }) else { return }
        current.control.stop()
        await current.control.ended()
    }

    private func start(_ entry: Entry) {
        let control = Control()
        // After `shutdown()` nothing starts.
        let (runner, slots) = current.withLock { $0 }
        let start = Start(entry: entry, runner: runner, slots: slots, control: control)
        if case .terminated = starts.continuation.yield(start) { return }
        running.withLock {
            $0[entry.feed.name] = Running(signature: entry.signature, control: control)
        }
    }

    private static func loop(
        _ entry: Entry, runner: PollRunner, slots: AsyncSemaphore, events: AsyncStream<PollEvent>.Continuation,
        stagger: Duration, control: Control
    ) async {
        if let leasing = runner.leasing {
            // The schedule is shared with other instances: claim the feed from it (FeedScheduler+Leases), cancelled
            // when the feed is stopped.
            return await control.apart {
                await leasedLoop(
                    entry, runner: runner, leasing: leasing, events: events, stagger: stagger, control: control)
            }
        }
        let clock = runner.clock
        let feed = entry.feed
        let schedule = PollSchedule(interval: feed.options[FeedConfig.interval] ?? runner.settings.interval)
        let record = await control.apart { try? await runner.store.record(feed: feed.name) }
        var failures = record?.failures ?? 0
        var due = clock.now().addingTimeInterval(stagger.seconds * clock.random())
        if let notBefore = record?.notBefore, notBefore > due { due = notBefore }
        var hold = record?.notBefore.map { Hold(until: $0, reason: record?.holdReason ?? Self.serverHold) }
        var skipped = 0
        while !control.isStopped {
            control.waiting(hold: hold)
            events.yield(.scheduled(feed: feed.name, next: due, skipped: skipped))
            do {
                let wait = due.timeIntervalSince(clock.now())
                if wait > 0 { try await control.sleep(.milliseconds(Int64((wait * 1000).rounded(.up))), on: clock) }
            } catch {
                return
            }
            guard !control.isStopped else { return }
            // A "poll now" from here on is answered by this poll.
            control.polling()
            // Its turn among the polls in flight, and the poll, apart: the stop cancels either.
            let polled = await control.apart { () -> (report: PollReport, started: Date, hold: Hold?)? in
                // The poll counts from when it starts.
                guard (try? await slots.acquire()) != nil else { return nil }
                events.yield(.polling(feed: feed.name))
                let started = clock.now()
                let report = await runner.poll(feed, source: entry.source, events: events)
                // The slot is handed on once the poll is reported: a display never sees more polls running than
                // allowed.
                if !Task.isCancelled { events.yield(.finished(report)) }
                slots.release()
                guard !Task.isCancelled else { return nil }
                return (
                    report, started,
                    await Self.hold(after: report, started: started, feed: feed.name, store: runner.store)
                )
            }
            guard let polled, !control.isStopped else { return }
            let report = polled.report
            failures = report.failures
            let plan = schedule.plan(
                started: polled.started, finished: clock.now(), failures: failures,
                minimumInterval: report.minimumInterval,
                notBefore: report.notBefore, random: clock.random())
            due = plan.due
            skipped = plan.skipped
            hold = polled.hold
            if plan.skipped > 0 {
                runner.logger.info(
                    "poll overran its interval", metadata: ["feed": "\(feed.name)", "skipped": "\(plan.skipped)"])
            }
        }
    }

    /// Why a feed is held back when the state does not say.
    private static let serverHold = "the server asked to wait"

    /// Until when the server holds a feed back after a poll that started at `started`: the hold it asked for
    /// (its reason as stored), or its minimum interval since that poll, whichever ends later.
    private static func hold(
        after report: PollReport, started: Date, feed: String, store: any StateStoring
    ) async -> Hold? {
        var hold: Hold?
        if let notBefore = report.notBefore {
            let reason = (try? await store.record(feed: feed))?.holdReason
            hold = Hold(until: notBefore, reason: reason ?? serverHold)
        }
        if let minimum = report.minimumInterval {
            let until = started.addingTimeInterval(minimum.seconds)
            if until > hold?.until ?? .distantPast {
                hold = Hold(until: until, reason: "the server's minimum interval of \(DurationFormat.string(minimum))")
            }
        }
        return hold
    }
}
