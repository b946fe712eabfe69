import Foundation
import MonitorItems
import MonitorOptions
import MonitorText

/// A source plugin: one module under `Plugins/` that knows how to poll one `type` of feed.
///
/// A source describes itself — its type name, a one-line summary and its options — so that the core can
/// validate `feeds.yaml` against it and `monitor sources` can list it. When polled it only says what it found
/// through the `Findings` it is handed; the core does the HTTP details, the stream, the state, the counting and
/// the display.
package protocol FeedSource: Sendable {
    /// The `type:` that selects this source in `feeds.yaml`.
    static var type: String { get }
    /// One line saying what a feed of this type watches.
    static var summary: String { get }
    /// The options this source declares, typed `FeedOption`s read back as `options[Self.name]`. An option named
    /// like a common feed option (`interval`, `concurrency`) replaces it, to give it another default or doc.
    static var options: [any OptionDeclaration] { get }
    /// Checks that involve several options ("exactly one of …"); each option's own type is already valid.
    static func check(_ options: FeedOptions) -> [Diagnostic]

    /// A source for one feed with its validated options.
    init(options: FeedOptions)

    var retention: ItemRetention { get }

    /// Polls once, reporting groups, progress, items, failed sub-requests and 304s to `found` as responses
    /// arrive. Throwing fails the whole poll (none of its items or validators are stored, only the feed's record
    /// and the values the source kept); a failed sub-request makes it `partial`.
    func poll(_ context: PollContext, _ found: Findings) async throws

    /// The text summary of a finished poll; the default lists the groups and the latest items.
    func summary(of report: PollReport, now: Date) -> String

    /// The details `monitor events` shows as columns after the date, in order (default: none).
    static var detailColumns: [String] { get }

    /// The names of every detail its items may have, which a rule (`where:`) may name; nil (the default) for any
    /// name, when the details are not known up front (an external program's).
    static var detailNames: [String]? { get }

    /// Details a rule may name that the source works out from an item's numbers, such as EONET's `lat` and `lon` from
    /// its location: they are neither stored nor shown as details (default: none).
    static func ruleDetails(of item: Item) -> [Detail]

    /// The detail whose values the core counts per group (`PollReport.GroupCount.breakdown`), such as EONET's
    /// open and closed events; nil (the default) for none.
    static var breakdown: Breakdown? { get }

    /// What the source's API adds to the core's HTTP rules (its rate-limit resources, poll interval, rate limits
    /// told only in a message); the default adds nothing.
    static var httpPolicy: any HTTPSourcePolicy { get }

    /// Asks the feed's service whether what the feed names exists and can be polled, without polling it
    /// (`monitor validate --online`): a request or two at most. The default has nothing to check.
    func checkOnline(_ context: OnlineCheckContext) async -> OnlineCheck
}

extension FeedSource {
    /// No checks beyond each option's own.
    package static func check(_ options: FeedOptions) -> [Diagnostic] { [] }

    package func summary(of report: PollReport, now: Date) -> String {
        SummaryText.standard(report, now: now)
    }

    package static var detailColumns: [String] { [] }

    package static var detailNames: [String]? { nil }

    package static func ruleDetails(of item: Item) -> [Detail] { [] }

    package static var breakdown: Breakdown? { nil }

    package static var httpPolicy: any HTTPSourcePolicy { GenericHTTPPolicy() }

    func checkOnline(_ context: OnlineCheckContext) async -> OnlineCheck {
        .notChecked("nothing to check online")
    }
}

/// How the items of a poll combine with those stored.
package enum ItemRetention: Sendable, Hashable {
    /// Each poll returns the feed's whole set (EONET): items it no longer returns are dropped, except those of
    /// groups whose request failed or was answered 304.
    case replace
    /// Each poll returns what is new (GitHub): items are added to those stored and the newest `count` kept.
    case keepNewest(Int)
}

/// A detail of the items that the core counts per group, and the values shown as columns, in order.
package struct Breakdown: Sendable, Hashable {
    /// The detail's name, such as `status`.
    package var detail: String
    /// The values shown, in order, such as `open` and `closed` (other values are counted but not shown).
    package var values: [String]

    /// A breakdown of each group's items by their `detail`.
    package init(detail: String, values: [String]) {
        self.detail = detail
        self.values = values
    }
}
