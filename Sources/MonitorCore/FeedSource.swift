import Foundation

/// A source plugin: one module under `Plugins/` that knows how to poll one `type` of feed.
///
/// A source describes itself — its type name, a one-line summary and its options — so that the core can
/// validate `feeds.yaml` against it and `monitor sources` can list it. When polled it only turns HTTP
/// responses into updates; the core does the HTTP details, the state, the counting and the display.
public protocol FeedSource: Sendable {
    /// The `type:` that selects this source in `feeds.yaml`.
    static var type: String { get }
    /// One line saying what a feed of this type watches.
    static var summary: String { get }
    /// The options this source declares. An option named like a common feed option (`interval`,
    /// `concurrency`) replaces it, to give it another default or doc.
    static var options: [OptionSpec] { get }
    /// Checks that involve several options ("exactly one of …"); each option's own type is already valid.
    static func check(_ options: FeedOptions) -> [Diagnostic]

    /// A source for one feed with its validated options.
    init(options: FeedOptions)

    /// How the items of a poll combine with those stored.
    var retention: ItemRetention { get }

    /// Polls once: a stream of groups, progress, item batches and sub-request failures. Throwing fails the
    /// whole poll (nothing of it is stored); a `.failure` update makes it `partial`.
    func poll(_ context: PollContext) -> AsyncThrowingStream<SourceUpdate, any Error>

    /// The text summary of a finished poll; the default lists the groups and the latest items.
    func summary(of report: PollReport, now: Date) -> String

    /// The details `monitor events` shows as columns after the date, in order (default: none).
    static var detailColumns: [String] { get }

    /// What the source's API adds to the core's HTTP rules (its rate-limit resources, poll interval, rate limits
    /// told only in a message); the default adds nothing.
    static var httpPolicy: any HTTPSourcePolicy { get }

    /// A detail whose values the report counts per group (`PollReport.GroupCount.breakdown`), such as EONET's
    /// `status` (open or closed); nil (the default) for none.
    static var breakdownDetail: String? { get }
}

extension FeedSource {
    /// No checks beyond each option's own.
    public static func check(_ options: FeedOptions) -> [Diagnostic] { [] }

    public func summary(of report: PollReport, now: Date) -> String {
        SummaryText.standard(report, now: now)
    }

    public static var detailColumns: [String] { [] }

    public static var breakdownDetail: String? { nil }

    public static var httpPolicy: any HTTPSourcePolicy { GenericHTTPPolicy() }
}

/// How the items of a poll combine with those stored.
public enum ItemRetention: Sendable, Hashable {
    /// Each poll returns the feed's whole set (EONET): items it no longer returns are dropped, except those of
    /// groups whose request failed.
    case replace
    /// Each poll returns what is new (GitHub): items are added to those stored and the newest `count` kept.
    case keepNewest(Int)
}
