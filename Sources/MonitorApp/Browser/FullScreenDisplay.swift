import Foundation
import MonitorCore
import MonitorText

/// The full-screen view of `monitor run` (when standard input and output are terminals): the feeds, their
/// groups and items, driven by the keys. State and screen are pure (`BrowserState`, `BrowserScreen`); this class
/// feeds them the poll events and the keys, reads the stored items, and writes the screen.
/// Its methods may be called from several tasks: a lock serialises them (hence `@unchecked Sendable`).
final class FullScreenDisplay: RunView, @unchecked Sendable {
    private let lock = NSLock()
    private let terminal: TerminalSession
    private let store: any StateStoring
    private var state: BrowserState
    private var sources: [String: any FeedSource]
    private var size: (width: Int, height: Int)
    private var lastDraw = Date.distantPast
    /// Whether a draw was skipped (a poll's progress within 50 ms of the last draw): `run` draws it 50 ms later, so the
    /// last step of a progress is never left undrawn until the next event.
    private var drawSkipped = false
    private let skippedDraws: AsyncStream<Void>.Continuation
    private let skippedDrawRequests: AsyncStream<Void>
    /// Colour unless `NO_COLOR` (or `TERM=dumb`) says otherwise.
    private let look: BrowserScreen.Look = Console.colors(onStandardError: false) ? .colour : .twoTone
    private let reloads: AsyncStream<String>.Continuation
    private let reloadRequests: AsyncStream<String>

    /// A view of `feeds` on `terminal`, reading stored items from `store`.
    init(terminal: TerminalSession, store: any StateStoring, feeds: [FeedConfig], sources: [String: any FeedSource]) {
        self.terminal = terminal
        self.store = store
        self.sources = sources
        let now = Date()
        self.state = BrowserState(
            live: LiveState(feeds: feeds, sources: sources, now: now), now: now)
        self.size = TerminalSession.size()
        state.height = size.height
        (reloadRequests, reloads) = AsyncStream<String>.makeStream()
        (skippedDrawRequests, skippedDraws) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        draw(force: true)
    }

    func show(_ event: PollEvent) {
        lock.withLock {
            let now = Date()
            state.now = now
            let output = state.live.apply(event, now: now, quiet: true)
            state.log += output.log
            if state.log.count > 50 { state.log.removeFirst(state.log.count - 50) }
            if case .finished(let report) = event, state.level != .feeds, state.currentFeed == report.feed {
                reloads.yield(report.feed)
            }
            draw(force: output.redrawNow)
        }
    }

    func setFeeds(_ feeds: [FeedConfig], sources: [String: any FeedSource]) {
        lock.withLock {
            state.live.setFeeds(feeds, sources: sources)
            self.sources.merge(sources) { $1 }
            draw(force: true)
        }
    }

    func finish() {
        terminal.restore()
    }

    /// Handles the keys until `q` (or Ctrl-C) or the end of input; `pollNow` asks for a feed to be polled now and
    /// says what came of it, which the log line shows.
    func run(pollNow: @escaping @Sendable (String) async -> FeedScheduler.PollNow) async {
        let inputs = terminal.inputs()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await feed in self.reloadRequests { await self.load(feed) }
            }
            group.addTask {
                for await _ in self.skippedDrawRequests {
                    try? await Task.sleep(for: .milliseconds(50))
                    self.lock.withLock { if self.drawSkipped { self.draw(force: true) } }
                }
            }
            for await input in inputs {
                switch input {
                case .redraw:
                    lock.withLock {
                        size = TerminalSession.size()
                        state.height = size.height
                        terminal.write("\u{1B}[2J")
                        draw(force: true)
                    }
                case .key(let key):
                    let effects = lock.withLock {
                        state.now = Date()
                        let effects = state.handle(key)
                        draw(force: true)
                        return effects
                    }
                    for effect in effects {
                        switch effect {
                        case .quit:
                            reloads.finish()
                            skippedDraws.finish()
                            group.cancelAll()
                            return
                        case .load(let feed):
                            await load(feed)
                        case .poll(let feed):
                            let answer = await pollNow(feed)
                            lock.withLock {
                                let now = Date()
                                state.log.append(
                                    "\(UTCTime.clock(now)) \(feed): "
                                        + Self.words(answer, now: now))
                                draw(force: true)
                            }
                        }
                    }
                }
            }
            reloads.finish()
            skippedDraws.finish()
        }
    }

    /// What `r` did at `now`, for the log line: `polling now (r)`, or why not (`held back until 12:03:00 (rate
    /// limit exhausted)`; the date too when the hold ends a day or more later).
    static func words(_ answer: FeedScheduler.PollNow, now: Date) -> String {
        switch answer {
        case .polling:
            return "polling now (r)"
        case .alreadyPolling:
            return "already polling (r)"
        case .held(let until, let reason):
            return LiveView.holdLine(until: until, reason: reason, now: now)
        case .notScheduled:
            return "not scheduled (r)"
        }
    }

    private func load(_ feed: String) async {
        do {
            let items = try await store.items(feed: feed)
            let catalog = try await store.groups(feed: feed)
            lock.withLock {
                let detail = sources[feed].flatMap { type(of: $0).breakdown?.detail }
                state.stored = StoredFeed(feed: feed, catalog: catalog, items: items, breakdownDetail: detail)
                draw(force: true)
            }
        } catch {
            lock.withLock {
                state.log.append("\(feed): cannot read the state: \(error)")
                draw(force: true)
            }
        }
    }

    /// Draws the whole screen (a poll's progress at most every 50 ms unless `force`, a skipped one 50 ms later); call
    /// with the lock held.
    private func draw(force: Bool) {
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) > 0.05 else {
            drawSkipped = true
            skippedDraws.yield()
            return
        }
        lastDraw = now
        drawSkipped = false
        let rows = BrowserScreen.render(
            state, width: size.width, height: size.height,
            look: look)
        terminal.write("\u{1B}[H" + rows.joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K")
    }
}
