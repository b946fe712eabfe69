import Foundation
import Logging
import MonitorConcurrency
import MonitorCore
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `monitor run`: the scheduler polling every feed, the feeds file watched for changes, the delivery of the
/// notifications, and the display; with ``Options/once``, each feed polled once (MonitorService+Once). Runs under
/// swift-service-lifecycle: on graceful shutdown (a stopping signal) the in-flight polls are cancelled — nothing
/// half-written is committed — and `run()` returns.
package final class MonitorService: Service, Sendable {
    /// How the service is wired; tests substitute the sources, the transport and the output.
    package struct Options: Sendable {
        /// Polls every feed once, at once, and returns (`run --once`).
        package var once = false
        /// The feeds file.
        package var configPath: String
        /// The text the feeds file had when the configuration was read from it: a change made since (while the state
        /// opened) is a reload of its own. Nil: the text when the watch starts.
        package var configText: String?
        /// The state.
        package var store: any StateStoring
        /// The sources `type:` may name.
        package var sources: [any FeedSource.Type] = Registry.sources
        /// The notifiers a `notify:` item's `type:` may name.
        package var notifiers: [any Notifier.Type] = Registry.notifiers
        /// How failed deliveries are spaced.
        package var backoff = NotificationDelivery.standardBackoff
        /// Hears of every delivery attempt (tests).
        package var deliveries: (@Sendable (NotificationDelivery.Attempt) -> Void)?
        /// The environment for `${VAR}`.
        package var environment: [String: String] = ProcessInfo.processInfo.environment
        /// Text or JSON lines.
        var format: OutputFormat = .text
        /// Whether to show the full-screen view (standard input and output are terminals, text format).
        var fullScreen = false
        /// Whether standard output is a terminal that may be redrawn.
        package var terminal = false
        /// The terminal's width.
        package var width = 100
        /// How often the feeds file is checked for changes.
        package var watchInterval: Duration = .seconds(1)
        /// Where results go (standard output).
        package var output: @Sendable (String) -> Void = { Console.out($0) }
        /// Where problems go (standard error).
        package var errors: @Sendable (String) -> Void = { Console.error($0) }
        /// The transport of the first settings, made (and warmed up) beforehand; nil to make one.
        package var transport: HTTPClientTransport?
        /// Makes the transport for given settings, with what shuts it down.
        package var makeTransport: @Sendable (Settings) -> (any HTTPTransport, @Sendable () async -> Void) = {
            settings in
            let transport = HTTPClientTransport(timeout: settings.timeout, concurrency: settings.concurrency)
            return (transport, { try? await transport.shutdown() })
        }
        /// The longest initial delay of a feed, so feeds do not all fire at once.
        package var stagger: Duration = .seconds(2)
        /// The logger.
        package var logger = Logger(label: "monitor")
        /// Where polls and requests are counted (`run --metrics`).
        package var metrics = MonitorMetrics.disabled
        /// Where the run stands (ready, reloading, stopping), for whoever supervises it.
        package var readiness = ServiceReadiness()
        /// systemd's notify socket (`NOTIFY_SOCKET`), told of ``readiness`` and beaten while the scheduler answers.
        package var systemd: SystemdNotify?
        /// Signals that reload the feeds file as a change of it does (SIGHUP), trapped beforehand.
        var reloadSignals: UnixSignalsSequence?
        /// Awaited by the scheduler's loop before it answers a watchdog question (an in-process test holds it there).
        var schedulerAnswering: (@Sendable () async -> Void)?
        /// How the feeds fare, kept from the poll events once for systemd's `STATUS=` and `/healthz` (`run --metrics`).
        package var health = RunHealth()
    }

    /// The runner and transport of one set of settings.
    private struct Generation: Sendable {
        var settings: Settings
        var runner: PollRunner
        var shutdown: @Sendable () async -> Void
    }

    let options: Options
    let initial: MonitorConfig
    /// The notifiers to plan for, shared by every runner; their notifications wake the delivery.
    private let outbox: NotificationOutbox
    /// The shared schedule of a state that has one (PostgreSQL), claimed as this instance; nil to schedule alone.
    let leasing: FeedLeases?
    /// Whether a poll of a once run failed or partly failed.
    let failedPolls = Mutex(false)

    /// A service that starts with the validated `config`.
    package init(config: MonitorConfig, options: Options) {
        self.initial = config
        self.options = options
        self.outbox = NotificationOutbox(notifiers: config.notifiers)
        self.leasing = (options.store as? any FeedLeasing).map { FeedLeases(store: $0) }
    }

    package func run() async throws {
        let (events, continuation) = AsyncStream<PollEvent>.makeStream()
        let loader = ConfigLoader(
            sources: options.sources, notifiers: options.notifiers, environment: options.environment)
        let screen = options.fullScreen && options.format == .text ? TerminalSession() : nil
        let browser = screen.map {
            FullScreenDisplay(terminal: $0, store: options.store, feeds: initial.feeds, sources: initial.sources)
        }
        let display = browser ?? lineDisplay()
        defer { display.finish() }
        let current = Current(start(initial.settings, transport: options.transport))
        let config = Current(initial)
        let scheduler = FeedScheduler(
            runner: current.value.runner, events: continuation, stagger: options.stagger,
            policy: options.once ? .once : .continuous, answering: options.schedulerAnswering)
        // The notifications: what earlier runs left undelivered at once, then what the polls commit.
        let notifierTransport = NotifierSet.transport()
        let delivery = NotificationDelivery(
            store: options.store, notifiers: notifiers(of: initial, transport: notifierTransport),
            bounds: NotifierSet.bounds(initial.notifiers), digests: NotifierSet.digests(initial.notifiers),
            backoff: options.backoff, logger: options.logger,
            observer: { [deliveries = options.deliveries, once = options.once] attempt in
                deliveries?(attempt)
                // A once run says what it could not deliver at its end.
                if !once { continuation.yield(.delivery(attempt)) }
            }, metrics: options.metrics)
        if options.once {
            await cancelWhenGracefulShutdown {
                await self.pollOnce(
                    scheduler: scheduler, events: events, continuation: continuation, display: display,
                    delivery: delivery, shutdown: { await current.value.shutdown() },
                    { try? await notifierTransport.shutdown() })
            }
            return
        }

        // The display and the feeds (under the scheduler) are child tasks of the service.
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var pending = 0
                var said = ""
                for await event in events {
                    let now = Date()
                    self.options.health.apply(event, now: now)
                    if case .reload(let rejected) = event {
                        self.options.metrics.configReloaded(successful: rejected == nil, at: now)
                    }
                    display.show(event)
                    guard let systemd = self.options.systemd else { continue }
                    if RunHealth.outboxMayChange(with: event) { pending = await self.pending(of: config.value) }
                    let line = self.options.health.statusLine(pending: pending, now: now)
                    if line != said {
                        said = line
                        systemd.send("STATUS=" + said)
                    }
                }
            }
            group.addTask { await scheduler.run() }
            if let systemd = options.systemd { tell(systemd) }
            options.metrics.configReloaded(successful: true, at: Date())
            options.health.setFeeds(initial.feeds, interval: initial.settings.interval, now: Date())
            await scheduler.apply(entries(of: initial))
            options.readiness.set(.ready)
            let reloadAsked = (wakeup: Wakeup(), pending: Current(false))
            // Watch the feeds file until a graceful shutdown cancels the watch.
            let seen = Current(options.configText.map { .success($0) } ?? ConfigLoader.read(path: options.configPath))
            do {
                try await cancelWhenGracefulShutdown {
                    try await withThrowingTaskGroup(of: Void.self) { watching in
                        watching.addTask {
                            try await self.watch(
                                seen: seen, loader: loader, current: current, scheduler: scheduler,
                                events: continuation, display: display, config: config, delivery: delivery,
                                notifierTransport: notifierTransport, reloadAsked: reloadAsked)
                        }
                        if let reloadSignals = self.options.reloadSignals {
                            watching.addTask {
                                for await _ in reloadSignals {
                                    reloadAsked.pending.value = true
                                    reloadAsked.wakeup.signal()
                                }
                            }
                        }
                        if let systemd = self.options.systemd, let interval = systemd.watchdogInterval {
                            // Beats only while the scheduler's loop answers: a hung scheduler lets systemd restart it.
                            watching.addTask {
                                while true {
                                    try await Task.sleep(for: interval)
                                    // The first task to end ends the watch: this one ends only when cancelled.
                                    guard await scheduler.alive() else { continue }
                                    systemd.send("WATCHDOG=1")
                                }
                            }
                        }
                        // Delivering ends with the watch: what is in flight then stays in the outbox.
                        watching.addTask { await delivery.run(wakeup: self.outbox.wakeup) }
                        if let browser {
                            // The full-screen view ends the service when `q` is pressed.
                            watching.addTask {
                                await browser.run { scheduler.pollNow(feed: $0) }
                            }
                        }
                        try await watching.next()
                        watching.cancelAll()
                    }
                }
            } catch {
                // Cancelled by the graceful shutdown (or the task's cancellation): stop below.
            }
            options.readiness.set(.stopping)
            await scheduler.shutdown()
            await current.value.shutdown()
            try? await notifierTransport.shutdown()
            continuation.finish()
        }
    }

    /// The display when not full-screen: the summaries of a once run, or lines and a live panel.
    private func lineDisplay() -> any RunView {
        if options.once {
            return RunDisplay(
                format: options.format, terminal: options.terminal, feeds: initial.feeds, sources: initial.sources,
                output: options.output)
        }
        return LiveDisplay(
            format: options.format, terminal: options.terminal, feeds: initial.feeds, sources: initial.sources,
            output: options.output, width: options.width)
    }

    /// Tells `systemd` of every change of ``Options/readiness``.
    private func tell(_ systemd: SystemdNotify) {
        options.readiness.observe { state in
            switch state {
            case .starting: break
            case .ready: systemd.send("READY=1")
            case .reloading: systemd.send(SystemdNotify.reloading())
            case .stopping: systemd.send("STOPPING=1")
            }
        }
    }

    /// How many notifications the notifiers of `config` have still to deliver (those the state can count).
    private func pending(of config: MonitorConfig) async -> Int {
        var count = 0
        for notifier in config.notifiers {
            count += (try? await options.store.pendingCount(of: notifier.name)) ?? 0
        }
        return count
    }

    // MARK: - Reloading

    /// Checks the feeds file every `watchInterval`, and at once when `reloadAsked` (SIGHUP), and applies what changed,
    /// until cancelled. Asked, it reloads the file even if unchanged.
    private func watch(
        seen: Current<Result<String, ConfigLoader.ReadProblem>>, loader: ConfigLoader, current: Current<Generation>,
        scheduler: FeedScheduler, events: AsyncStream<PollEvent>.Continuation, display: any RunView,
        config: Current<MonitorConfig>, delivery: NotificationDelivery, notifierTransport: any HTTPTransport,
        reloadAsked: (wakeup: Wakeup, pending: Current<Bool>)
    ) async throws {
        while true {
            // Waits `watchInterval`, or less when a reload is asked for first.
            let clock = WallClock()
            try await reloadAsked.wakeup.wait(until: clock.now.advanced(by: options.watchInterval), on: clock)
            try Task.checkCancellation()
            // A reload asked for is taken whichever wait ended first; one asked for from here on is for the next check.
            let asked = reloadAsked.pending.take(false)
            let read = ConfigLoader.read(path: options.configPath)
            guard asked || read != seen.value else { continue }
            seen.value = read
            options.readiness.set(.reloading)
            defer { options.readiness.set(.ready) }
            switch read {
            case .success(let text):
                current.value = await reload(
                    text, loader: loader, generation: current.value, scheduler: scheduler, events: events,
                    display: display, config: config)
                outbox.notifiers = config.value.notifiers
                delivery.setNotifiers(
                    notifiers(of: config.value, transport: notifierTransport),
                    bounds: NotifierSet.bounds(config.value.notifiers),
                    digests: NotifierSet.digests(config.value.notifiers))
                // A notifier back in the file delivers what waited for it.
                outbox.wakeup.signal()
            case .failure(let problem):
                // A removed or unreadable file is not an empty one: say which, and keep running.
                let path = options.configPath
                rejected(
                    problem.isMissing ? "feeds file removed" : "feeds file unreadable", events: events,
                    details: problem.isMissing
                        ? "\(path) was removed; still running the last valid feeds until it is back\n"
                        : "\(path) cannot be read (\(problem.message)); still running the last valid feeds\n")
            }
        }
    }

    private func reload(
        _ text: String, loader: ConfigLoader, generation: Generation, scheduler: FeedScheduler,
        events: AsyncStream<PollEvent>.Continuation, display: any RunView, config latest: Current<MonitorConfig>
    ) async -> Generation {
        let loaded = loader.load(text: text, path: options.configPath)
        guard let config = loaded.config else {
            rejected(
                loaded.problem ?? "feeds file invalid", events: events,
                details: "\(options.configPath) changed but is invalid; still running the last valid feeds:\n"
                    + loaded.renderedDiagnostics())
            return generation
        }
        events.yield(.reload(rejected: nil))
        latest.value = config
        display.setFeeds(config.feeds, sources: config.sources)
        options.health.setFeeds(config.feeds, interval: config.settings.interval, now: Date())
        var current = generation
        var restartedAll = false
        var removed: [String] = []
        if config.settings != generation.settings {
            let names = Set(config.feeds.map(\.name))
            removed = await scheduler.stopAll().filter { !names.contains($0) }
            for name in removed { events.yield(.stopped(feed: name)) }
            await generation.shutdown()
            current = start(config.settings)
            scheduler.runner = current.runner
            restartedAll = true
        }
        let changes = await scheduler.apply(entries(of: config))
        var parts: [String] = []
        if restartedAll {
            parts.append("settings changed, restarted every feed")
            if !removed.isEmpty { parts.append("stopped \(removed.joined(separator: ", "))") }
        } else {
            if !changes.started.isEmpty { parts.append("started \(changes.started.joined(separator: ", "))") }
            if !changes.stopped.isEmpty { parts.append("stopped \(changes.stopped.joined(separator: ", "))") }
            if !changes.restarted.isEmpty { parts.append("restarted \(changes.restarted.joined(separator: ", "))") }
        }
        if parts.isEmpty { parts.append("no feed changed") }
        events.yield(.notice("\(options.configPath) reloaded: \(parts.joined(separator: "; "))"))
        return current
    }

    /// Says that a change of the feeds file was not taken: `problem` to every view (STATUS=, `/healthz`, the metrics,
    /// the panel) until a reload succeeds, `details` on standard error unless the full screen owns the terminal.
    private func rejected(_ problem: String, events: AsyncStream<PollEvent>.Continuation, details: String) {
        events.yield(.reload(rejected: problem + ": running the last valid one"))
        if !(options.fullScreen && options.format == .text) { options.errors(details) }
    }

    /// The runner of `settings`, through `prepared` when given.
    private func start(_ settings: Settings, transport prepared: HTTPClientTransport? = nil) -> Generation {
        let (transport, shutdown): (any HTTPTransport, @Sendable () async -> Void) =
            if let prepared { (prepared, { try? await prepared.shutdown() }) } else { options.makeTransport(settings) }
        var runner = PollRunner(store: options.store, transport: transport, settings: settings, logger: options.logger)
        runner.metrics = options.metrics
        runner.outbox = outbox
        runner.leasing = leasing
        return Generation(settings: settings, runner: runner, shutdown: shutdown)
    }

    private func notifiers(of config: MonitorConfig, transport: any HTTPTransport) -> [String: any Notifier] {
        NotifierSet.make(
            config.notifiers, settings: config.settings, transport: transport, types: options.notifiers,
            environment: options.environment)
    }

    func entries(of config: MonitorConfig) -> [FeedScheduler.Entry] {
        config.feeds.compactMap { feed in
            guard let source = config.sources[feed.name] else { return nil }
            // What a reload compares to restart the feed: a once run has no reload.
            let signature =
                options.once
                ? ""
                : feed.type + "|"
                    + feed.options.names.map { key in
                        "\(key)=\(feed.options[key].map { "\($0)" } ?? "")"
                    }.joined(separator: "|")
            return FeedScheduler.Entry(feed: feed, source: source, signature: signature)
        }
    }
}

/// A value shared between the service's tasks.
private final class Current<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    /// The value, replaced by `replacement` at once (no change can come between).
    func take(_ replacement: Value) -> Value {
        storage.withLock { value in
            defer { value = replacement }
            return value
        }
    }
}
