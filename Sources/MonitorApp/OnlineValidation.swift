import Foundation
import Logging
import MonitorConcurrency
import MonitorCore
import MonitorText

/// `monitor validate --online`: asks each feed's and notifier's service what it needs to know, without polling:
/// one line each in the order of the file, then a count.
struct OnlineValidation: Sendable {
    /// One feed's or notifier's check, as shown.
    struct Line: Sendable, Hashable {
        /// `rx`, or `notifier team` for a notifier.
        var name: String
        var check: OnlineCheck

        /// `rx: ok: repository ReactiveX/RxSwift, …`, `rx: wrong: …`, `rx: could not check: …`, without control
        /// characters (a category list comes from the network).
        var text: String {
            let text =
                switch check {
                case .ok(let learnt): "\(name): ok: \(learnt)"
                case .wrong(let problem): "\(name): wrong: \(problem)"
                case .notChecked(let why): "\(name): could not check: \(why)"
                }
            return TerminalText.sanitized(text)
        }
    }

    var config: MonitorConfig
    /// The feeds' client: their checks' requests go through it like a poll's.
    var transport: any HTTPTransport
    /// The notifiers' client (a webhook's check sends nothing through it).
    var notifierTransport: any HTTPTransport
    /// The rate budgets the checks take from: a PostgreSQL state's shared ones, else their own.
    var budgets = RateBudgets()
    var environment: [String: String] = ProcessInfo.processInfo.environment
    var logger: Logger

    /// Checks every feed, then every notifier, all at once (requests within `settings.concurrency`, each feed's one
    /// at a time), handing each line to `show` in the order of the file as soon as it and those before it are done.
    func run(_ show: (Line) -> Void) async -> [Line] {
        let settings = config.settings
        var policy = HTTPPolicy(settings: settings)
        // A check is one request: a failure is told at once rather than retried (the request's timeout still holds).
        policy.retries = 0
        let global = AsyncSemaphore(limit: settings.concurrency)
        let shared = SharedAnswers()
        let notifiers = NotifierSet.make(
            config.notifiers, settings: settings, transport: notifierTransport, environment: environment)
        let checks: [(name: String, check: @Sendable () async -> OnlineCheck)] =
            config.feeds.map { feed in
                let source = config.sources[feed.name]
                var logger = self.logger
                logger[metadataKey: "feed"] = "\(feed.name)"
                let sourcePolicy = source.map { type(of: $0).httpPolicy } ?? GenericHTTPPolicy()
                let http = FeedHTTP(
                    transport: transport, policy: policy, sourcePolicy: sourcePolicy, budgets: budgets,
                    limiters: [AsyncSemaphore(limit: 1), global], logger: logger)
                let context = OnlineCheckContext(
                    feed: feed.name, options: feed.options, http: http, environment: environment, shared: shared,
                    logger: logger)
                return (feed.name, { await source?.checkOnline(context) ?? .notChecked("no source of this type") })
            }
            + config.notifiers.map { notifier in
                let made = notifiers[notifier.name]
                return (
                    "notifier \(notifier.name)",
                    { await made?.checkOnline() ?? .notChecked("no notifier of this type") }
                )
            }
        var lines: [Line?] = Array(repeating: nil, count: checks.count)
        var shown = 0
        await withTaskGroup(of: (Int, OnlineCheck).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask { (index, await check.check()) }
            }
            for await (index, check) in group {
                lines[index] = Line(name: checks[index].name, check: check)
                while shown < lines.count, let line = lines[shown] {
                    show(line)
                    shown += 1
                }
            }
        }
        return lines.compactMap { $0 }
    }

    /// `5 ok, 1 wrong, 1 not checked`.
    static func count(_ lines: [Line]) -> String {
        let ok = lines.count { if case .ok = $0.check { true } else { false } }
        let wrong = lines.count { if case .wrong = $0.check { true } else { false } }
        return "\(ok) ok, \(wrong) wrong, \(lines.count - ok - wrong) not checked"
    }
}
