import Foundation
import Logging
import MonitorConcurrency
import MonitorOptions
import Synchronization

/// What the core hands a source for one poll: its options, its HTTP client, the ids it stored, its values and
/// a logger. A source never creates these itself, and never sees its stored items: a 304 is reported as
/// `Findings.unchanged`, and the core carries them.
package struct PollContext: Sendable {
    package var feed: String
    /// The feed's validated options.
    package var options: FeedOptions
    package var http: FeedHTTP
    /// The ids of the items stored for the feed before this poll (to stop paging where the last poll ended).
    package var known: Set<String>
    /// Values the source keeps between polls; what it sets is stored with the poll's results.
    package var values: SourceValues
    /// The logger, labelled with the feed.
    package var logger: Logger
    package var clock: any PollClock
    /// How many of the feed's requests may be in flight at once (the feed's limit within the global one).
    package var concurrency: Int

    package init(
        feed: String, options: FeedOptions, http: FeedHTTP, known: Set<String> = [], values: SourceValues,
        logger: Logger,
        clock: any PollClock, concurrency: Int
    ) {
        self.feed = feed
        self.options = options
        self.http = http
        self.known = known
        self.values = values
        self.logger = logger
        self.clock = clock
        self.concurrency = concurrency
    }
}

/// Small text values a source keeps between polls (a cached search result and when it was made).
package final class SourceValues: Sendable {
    private let state: Mutex<(stored: [String: String], changed: [String: String?])>

    /// Values starting from those stored.
    package init(_ stored: [String: String]) {
        state = Mutex((stored, [:]))
    }

    /// The value of `key`, as changed in this poll or as stored.
    package subscript(key: String) -> String? {
        get { state.withLock { $0.changed[key] ?? $0.stored[key] } }
        set { state.withLock { $0.changed[key] = .some(newValue) } }
    }

    /// The keys starting with `prefix` that hold a value, as changed in this poll or as stored.
    package func keys(prefix: String) -> [String] {
        state.withLock { state in
            Set(state.stored.keys).union(state.changed.keys).filter { key in
                key.hasPrefix(prefix) && (state.changed[key] ?? state.stored[key]) != nil
            }
        }
    }

    /// The values changed in this poll (nil: removed).
    var changes: [String: String?] { state.withLock { $0.changed } }
}
