import Foundation
import Logging
import MonitorConcurrency
import MonitorOptions
import Synchronization

/// What `monitor validate --online` learnt of one feed or notifier from its service, without polling it.
package enum OnlineCheck: Sendable, Hashable {
    /// The service knows it: what was learnt (`repository ReactiveX/RxSwift, …`).
    case ok(String)
    /// The service says something is wrong with it (`repository ReactiveX/RxSwfit not found`).
    case wrong(String)
    /// The check could not be made (no network, a timeout, a rate limit): not a failure of the feed.
    case notChecked(String)
}

/// What the core hands a source for its online check: the feed's options, an HTTP client like a poll's (same
/// headers, timeout and rate budgets, no stored validators), its environment and answers shared between checks.
package struct OnlineCheckContext: Sendable {
    package var feed: String
    /// The feed's validated options.
    var options: FeedOptions
    package var http: FeedHTTP
    /// `monitor`'s environment (an exec program is looked up in its `PATH`).
    package var environment: [String: String]
    /// Answers shared by the checks of one `validate`: a catalogue asked once per API.
    package var shared: SharedAnswers
    var logger: Logger

    package init(
        feed: String, options: FeedOptions, http: FeedHTTP, environment: [String: String], shared: SharedAnswers,
        logger: Logger
    ) {
        self.feed = feed
        self.options = options
        self.http = http
        self.environment = environment
        self.shared = shared
        self.logger = logger
    }

    /// A poll's context with the same options and client, for a source that checks with its poll's own requests.
    package var pollContext: PollContext {
        PollContext(
            feed: feed, options: options, http: http, values: SourceValues([:]), logger: logger, clock: WallClock(),
            concurrency: 1)
    }
}

/// Values made once per key and shared by whoever asks for them after (EONET's category list, once per API root).
package final class SharedAnswers: Sendable {
    private let answers = Mutex<[String: any Sendable]>([:])

    package init() {}

    /// The value of `key`, made by `make` for the first caller; the others wait for it.
    package func value<Value: Sendable>(of key: String, _ make: @Sendable () async -> Value) async -> Value {
        let (answer, first) = answers.withLock { answers -> (OneShot<Value>, Bool) in
            if let made = answers[key] as? OneShot<Value> { return (made, false) }
            let made = OneShot<Value>()
            answers[key] = made
            return (made, true)
        }
        if first { answer.fulfil(await make()) }
        return await answer.value
    }
}

extension OnlineCheck {
    /// The check of a request that failed: an HTTP error status is `wrong`, unless a later request could succeed (a
    /// server's error, a 429), which says nothing of the feed, like a transport failure or a rate limit: not checked.
    package static func failed(_ error: any Error) -> OnlineCheck {
        guard let error = error as? FetchError else { return .notChecked("\(error)") }
        if case .status = error.reason, !error.isTransient { return .wrong("\(error)") }
        return .notChecked("\(error)")
    }
}
