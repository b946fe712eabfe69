import Foundation
import Logging
import MonitorConcurrency
import MonitorOptions
import MonitorText

@testable import MonitorCore

/// Polls a source as the engine does, against a transport of the test's choosing and a fresh state.
package struct PollHarness: Sendable {
    /// The state.
    package let store: any StateStoring
    /// The settings polls run with.
    package var settings: Settings
    /// What owns the state, when the harness did not make it.
    private var owner: (any Sendable)? = nil

    /// A harness with an empty state in memory and default settings (no retry delay worth waiting for).
    package init(settings: Settings = Settings()) {
        store = MemoryState()
        self.settings = settings
    }

    /// A harness polling into `store` (an empty state of the test's choosing, such as one in PostgreSQL), keeping
    /// `owner` (what removes the state when it goes) for as long as the harness.
    package init(store: any StateStoring, keeping owner: (any Sendable)?, settings: Settings = Settings()) {
        self.store = store
        self.owner = owner
        self.settings = settings
    }

    /// A feed of `Source`'s type named `name`, with `options` over the declared defaults.
    package static func feed<Source: FeedSource>(
        _ source: Source.Type, name: String = "test", options: [String: OptionValue] = [:]
    ) -> FeedConfig {
        var values = FeedOptions.defaults(of: ConfigValidator.specs(of: source))
        values.set("name", .string(name), at: SourceLocation(line: 1, column: 1))
        values.set("type", .string(source.type), at: SourceLocation(line: 1, column: 1))
        for (key, value) in options { values.set(key, value, at: SourceLocation(line: 1, column: 1)) }
        return FeedConfig(name: name, type: source.type, options: values)
    }

    /// Polls `feed` once with a source made from its options, collecting every view shown on the way.
    package func poll<Source: FeedSource>(
        _ source: Source.Type, feed: FeedConfig, transport: any HTTPTransport, clock: any PollClock = WallClock()
    ) async -> (report: PollReport, views: [FeedView]) {
        var runner = PollRunner(
            store: store, transport: transport, settings: settings, clock: clock, logger: Logger(label: "test"))
        runner.policy.retryBaseDelay = .milliseconds(1)
        let (stream, continuation) = AsyncStream<PollEvent>.makeStream()
        let report = await runner.poll(feed, source: Source(options: feed.options), events: continuation)
        continuation.finish()
        var views: [FeedView] = []
        for await event in stream {
            if case .view(let view) = event { views.append(view) }
        }
        return (report, views)
    }
}
