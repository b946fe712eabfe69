import Foundation
import Logging
import MonitorConcurrency
import MonitorText
import Synchronization

/// Polls feeds on their schedules while `run()` runs: each at its interval with jitter, never two polls of a
/// feed at once, never before the server allows, backing off while it fails. Each feed is a child task of
/// `run()`. The set of feeds can be replaced while it runs: added feeds start, removed ones stop, changed
/// ones restart; the others go on. A feed can be asked to poll at once (``pollNow(feed:)``) unless the server
/// holds it back. At most `pollsInFlight(concurrency:)` polls run at once: a poll holds its feed's stored state
/// from its start, so thousands of due feeds must not all start and wait for a request. Under the ``Policy/once``
/// policy (`run --once`) each feed's loop ends after its first poll.
package final class FeedScheduler: Sendable {
    /// How long a feed's loop runs.
    package enum Policy: Sendable {
        /// Each feed polls at its interval until it is stopped (`monitor run`).
        case continuous
        /// Each feed given to ``FeedScheduler/apply(_:)`` before `run()` polls once, at once, due or not, in the order
        /// given; `run()` returns when every poll has ended (`monitor run --once`).
        case once
    }

    /// A feed as scheduled: its configuration and the source that polls it.
    package struct Entry: Sendable {
        /// The feed.
        var feed: FeedConfig
        /// Its source.
        var source: any FeedSource
        /// What identifies the configuration: a change restarts the feed.
        var signature: String

        /// An entry; `signature` should change whenever the feed's configuration does.
        package init(feed: FeedConfig, source: any FeedSource, signature: String) {
            self.feed = feed
            self.source = source
            self.signature = signature
        }
    }

    /// What ``pollNow(feed:)`` did.
    package enum PollNow: Sendable, Hashable {
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

    /// A feed running as a child task of `run()`, and all its task polls with, behind one reference: the task's frame
    /// and the list of running feeds hold that rather than copies of its parts. Signalling `stop` ends it, and `ended`
    /// is signalled when it has. It keeps where the feed's loop is, and the "poll now" that cuts its wait short.
    final class Start: Sendable {
        let entry: Entry
        let runner: PollRunner
        let slots: AsyncSemaphore
        let events: AsyncStream<PollEvent>.Continuation
        let stagger: Duration
        let reachability: StateReachability
        /// Whether the feed polls once (the ``Policy/once`` policy) rather than on its schedule.
        let once: Bool
        /// Each waited for once (a `Wakeup` keeps one waiter): `stop` by the feed's task, `ended` by whoever took the
        /// start off the list of running feeds.
        let stop = Wakeup(), ended = Wakeup()
        /// Whether a poll runs (from its start to its report), or the feed starts (its hold not known yet); and until
        /// when, and why, the server holds the feed back.
        private let state = Mutex<(polling: Bool, hold: FeedHTTP.Hold?)>((true, nil))
        /// The "poll now" the loop's wait takes, kept until then.
        private let asked = Wakeup()

        init(
            entry: Entry, runner: PollRunner, slots: AsyncSemaphore, events: AsyncStream<PollEvent>.Continuation,
            stagger: Duration, reachability: StateReachability, once: Bool
        ) {
            self.entry = entry
            self.runner = runner
            self.slots = slots
            self.events = events
            self.stagger = stagger
            self.reachability = reachability
            self.once = once
        }

        /// The loop waits for its next poll, held back by the server until `hold`, if at all.
        func waiting(hold: FeedHTTP.Hold?) {
            state.withLock { $0 = (false, hold) }
        }

        /// The loop starts a poll: a "poll now" asked before is answered by this one.
        func polling() {
            state.withLock {
                $0.polling = true
                asked.reset()
            }
        }

        /// Wakes the loop's wait unless a poll runs or the server holds the feed back at `now`.
        func pollNow(now: Date) -> PollNow {
            state.withLock { state in
                if state.polling { return .alreadyPolling }
                if let hold = state.hold, hold.until > now { return .held(until: hold.until, reason: hold.reason) }
                asked.signal()
                return .polling
            }
        }

        /// Sleeps on `clock` until `deadline`, or less when a "poll now" comes first. Throws when cancelled.
        func sleep(until deadline: WallClock.Instant, on clock: any PollClock) async throws {
            try await asked.wait(until: deadline, on: clock)
        }
    }

    /// What `run()`'s loop takes from its queue: a feed to start, or an ``alive()`` question to answer.
    private enum Arrival: Sendable {
        case feed(Start)
        /// A feed of a once scheduler, made a ``Start`` only when its turn comes: thousands of feeds wait as their
        /// entries, not as starts.
        case queued(Entry)
        case probe(Wakeup)
    }

    typealias Hold = FeedHTTP.Hold

    /// The runner, and the polls in flight it allows.
    private let current: Mutex<(runner: PollRunner, slots: AsyncSemaphore)>
    private let events: AsyncStream<PollEvent>.Continuation
    private let running = Mutex<[String: Start]>([:])
    /// Set by ``shutdown()``: no feed starts after it, queued or not.
    private let closed = Atomic(false)
    /// One change of the set of feeds at a time: two overlapping `apply`s (a reload and a "poll now") would each
    /// see a feed stopped by the other as missing and start it twice.
    private let changing = AsyncSemaphore(limit: 1)
    private let starts: (stream: AsyncStream<Arrival>, continuation: AsyncStream<Arrival>.Continuation)
    /// Called by `run()`'s loop for each ``alive()`` it answers, before answering (a test holds the loop there).
    private let answering: (@Sendable () async -> Void)?
    /// Whether the state answers, as the feeds find it: said once for all of them.
    private let reachability = StateReachability()
    /// The longest initial delay, so that feeds started together do not all fire at once.
    let stagger: Duration
    private let policy: Policy

    /// A scheduler polling through `runner`, reporting to `events`. Its feeds run while `run()` does.
    package init(
        runner: PollRunner, events: AsyncStream<PollEvent>.Continuation, stagger: Duration = .seconds(2),
        policy: Policy = .continuous, answering: (@Sendable () async -> Void)? = nil
    ) {
        current = Mutex((runner, Self.slots(for: runner)))
        self.events = events
        self.stagger = stagger
        self.policy = policy
        starts = AsyncStream<Arrival>.makeStream()
        self.answering = answering
    }

    /// The runner feeds started from now on poll through (settings change it: restart the feeds after).
    package var runner: PollRunner {
        get { current.withLock { $0.runner } }
        set { current.withLock { $0 = (newValue, Self.slots(for: newValue)) } }
    }

    /// How many polls run at once: enough to keep `concurrency` requests in flight while other polls read and
    /// write their state, few enough that the polls waiting for a request hold little.
    static func pollsInFlight(concurrency: Int) -> Int {
        max(4, 2 * concurrency)
    }

    private static func slots(for runner: PollRunner) -> AsyncSemaphore {
        AsyncSemaphore(limit: pollsInFlight(concurrency: runner.settings.concurrency))
    }

    /// The names of the feeds scheduled.
    var feeds: [String] { running.withLock { $0.keys.sorted() } }

    /// Runs every feed `apply` starts as a child task, until `shutdown()` or cancellation (under the once policy,
    /// until each has polled); returns when all of them have ended. No feed's task outlives it.
    package func run() async {
        await withDiscardingTaskGroup { group in
            for await arrival in starts.stream {
                let start: Start
                switch arrival {
                case .probe(let answer):
                    await answering?()
                    answer.signal()
                    continue
                case .feed(let feed):
                    start = feed
                case .queued(let entry):
                    // Under the once policy each feed starts, in the order given, once a poll in flight ends: the
                    // poll hands its slot on once reported.
                    let (runner, slots) = current.withLock { $0 }
                    guard (try? await slots.acquire()) != nil else { return }
                    guard let queued = enlist(entry, current: (runner, slots)) else {
                        slots.release()
                        continue
                    }
                    start = queued
                }
                group.addTask {
                    await withTaskGroup(of: Void.self) { feed in
                        feed.addTask { _ = await Self.loop(start) }
                        // Until the feed is stopped (or `run` cancelled), or its loop ends (after its one poll under
                        // the once policy); then its loop is cancelled.
                        feed.addTask { await start.stop.wait() }
                        await feed.next()
                        feed.cancelAll()
                    }
                    // A once feed that has polled is done with: 10,000 of them keep nothing until the run ends. Its turn
                    // among the polls in flight, taken above, is handed on.
                    if start.once {
                        self.delist(start)
                        start.slots.release()
                    }
                    start.ended.signal()
                }
            }
            // A once scheduler's queue ends as soon as its feeds are started: they end with their polls.
            if policy == .continuous { group.cancelAll() }
        }
    }

    /// Replaces the set of feeds: starts the new ones, stops the removed ones, restarts the changed ones.
    /// Returns the names started, stopped and restarted. A once scheduler takes only the feeds of its first `apply`.
    @discardableResult
    package func apply(_ entries: [Entry]) async -> (started: [String], stopped: [String], restarted: [String]) {
        // The feeds of a once scheduler are all it polls.
        defer { if policy == .once { starts.continuation.finish() } }
        guard (try? await changing.acquire()) != nil else { return ([], [], []) }
        defer { changing.release() }
        let wanted = Dictionary(entries.map { ($0.feed.name, $0) }, uniquingKeysWith: { $1 })
        let (stopping, restarting, starting) = running.withLock { running in
            let stopping = running.keys.filter { wanted[$0] == nil }.sorted()
            let restarting = running.filter { name, current in
                wanted[name].map { $0.signature != current.entry.signature } ?? false
            }
            .keys.sorted()
            // In the order given: a once scheduler polls them in that order.
            let starting = entries.map(\.feed.name).filter { running[$0] == nil }
            return (stopping, restarting, starting)
        }
        for name in stopping + restarting {
            await stop(name)
        }
        for name in stopping { events.yield(.stopped(feed: name)) }
        for name in restarting + starting {
            if let entry = wanted[name] { start(entry) }
        }
        return (starting.sorted(), stopping, restarting)
    }

    /// Asks `feed` to poll now rather than at the end of its wait, without restarting it: its interval then
    /// starts again from that poll. A server's hold (`Retry-After`, an exhausted rate limit, its minimum poll
    /// interval) is still obeyed, and a poll already running is not doubled: the answer says which happened.
    package func pollNow(feed: String) -> PollNow {
        guard let start = running.withLock({ $0[feed] }) else { return .notScheduled }
        return start.pollNow(now: runner.clock.now.date)
    }

    /// Stops every feed and waits for their polls to end (an in-flight poll is cancelled; nothing of it is stored);
    /// returns their names.
    @discardableResult
    package func stopAll() async -> [String] {
        // Cancelled while waiting for a change in progress: the feeds are stopped all the same.
        let serialised = (try? await changing.acquire()) != nil
        defer { if serialised { changing.release() } }
        let stopped = feeds
        for name in stopped { await stop(name) }
        return stopped
    }

    /// Returns true once `run()`'s loop — the one that starts every feed — has taken this question from its queue and
    /// answered it; false when the scheduler has shut down or the caller is cancelled first. While the loop is stuck,
    /// this waits: the watchdog beats only on its answers.
    package func alive() async -> Bool {
        let answer = Wakeup()
        guard case .enqueued = starts.continuation.yield(.probe(answer)) else { return false }
        await answer.wait()
        return !Task.isCancelled
    }

    /// Stops every feed, then ends `run()`.
    package func shutdown() async {
        closed.store(true, ordering: .releasing)
        await stopAll()
        starts.continuation.finish()
    }

    private func stop(_ name: String) async {
        guard let current = running.withLock({ $0.removeValue(forKey: name) }) else { return }
        current.stop.signal()
        await current.ended.wait()
    }

    private func start(_ entry: Entry) {
        guard policy == .continuous else {
            starts.continuation.yield(.queued(entry))
            return
        }
        let start = makeStart(entry, current: current.withLock { $0 })
        // After `shutdown()` nothing starts.
        if case .terminated = starts.continuation.yield(.feed(start)) { return }
        running.withLock { $0[entry.feed.name] = start }
    }

    /// A queued feed's start, listed as running unless ``shutdown()`` came first (then nil). Listed and checked under
    /// one lock, a feed is either refused here or stopped by `shutdown()`.
    private func enlist(_ entry: Entry, current: (runner: PollRunner, slots: AsyncSemaphore)) -> Start? {
        let start = makeStart(entry, current: current)
        return running.withLock {
            guard !closed.load(ordering: .acquiring) else { return nil }
            $0[entry.feed.name] = start
            return start
        }
    }

    /// Takes a feed that has ended off the list, unless another of the same name replaced it.
    private func delist(_ start: Start) {
        running.withLock {
            if $0[start.entry.feed.name] === start { $0[start.entry.feed.name] = nil }
        }
    }

    /// A feed's start polling through `current`.
    private func makeStart(_ entry: Entry, current: (runner: PollRunner, slots: AsyncSemaphore)) -> Start {
        Start(
            entry: entry, runner: current.runner, slots: current.slots, events: events, stagger: stagger,
            reachability: reachability, once: policy == .once)
    }

    /// What `body` returns, run as a child task: the memory its calls take is given back when it ends, not kept by
    /// the feed's task while it sleeps until its next poll (a task keeps the stack it grew until it ends).
    static func apart<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
        await withTaskGroup(of: T.self) { group in
            group.addTask(operation: body)
            // The one child's result: `next()` is nil only for an empty group.
            return await group.next()!
        }
    }

    /// Why a feed is held back when the state does not say.
    static let serverHold = "the server asked to wait"

    /// Until when the server holds a feed back after a poll that started at `started`: the hold it asked for
    /// (with its reason), or its minimum interval since that poll, whichever ends later.
    static func hold(after report: PollReport, started: Date) -> Hold? {
        var hold = report.notBefore.map { Hold(until: $0, reason: report.holdReason ?? serverHold) }
        if let minimum = report.minimumInterval,
            started.addingTimeInterval(minimum.seconds) > hold?.until ?? .distantPast
        {
            hold = Hold(
                until: started.addingTimeInterval(minimum.seconds),
                reason: "the server's minimum interval of \(DurationFormat.string(minimum))")
        }
        return hold
    }
}
