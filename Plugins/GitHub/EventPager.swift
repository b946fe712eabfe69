import Foundation
import Logging
import MonitorCore
import MonitorItems
import MonitorText

/// Follows the pages of one events URL through their `Link` headers, only as far as needed: until an event
/// already stored appears, `keep` events were seen, there is no next page, or after `maxPages` pages.
///
/// When the server offers no further page and none of the pages read holds an event stored before, or one not newer
/// than the newest the previous poll read (with `types`, the stored events may be far older than those read), the
/// API's window (300 events, 30 days) ended before them: those in between may be missing, and the last page says how
/// far back the answers reached (`gapUntil`).
struct EventPager: Sendable {
    /// What one page gave.
    struct Page: Sendable {
        /// The items of its events (of the wanted types).
        var items: [Item]
        /// Pages fetched so far, this one included.
        var number: Int
        /// Whether another page follows.
        var more: Bool
        /// Whether it was answered 304 Not Modified.
        var notModified = false
        /// On the last page of answers that never reached a stored event, the date of the oldest event they held:
        /// events stored before may be older, and those in between missing.
        var gapUntil: Date?
    }

    /// What the pages of one URL gave.
    struct Fetched: Sendable {
        /// The items of all pages.
        var items: [Item]
        /// As `Page.gapUntil`: set when the answers ended before reaching a stored event.
        var gapUntil: Date?
        /// The date of the newest event read, of any type; nil when none was (a 304).
        var newest: Date?
    }

    /// The most pages followed for one URL (GitHub serves at most 300 events, 10 pages of 30).
    static let maxPages = 10

    /// The API.
    var api: GitHubAPI
    /// How many events are wanted at most.
    var keep: Int
    /// The ids of the events stored before the poll.
    var known: Set<String>
    /// The event types that become items; nil: all.
    var types: Set<String>?
    /// The logger.
    var logger: Logger
    /// The latest date believed, a day after the poll's time: an event dated later (`9999-12-31`) is read, but neither
    /// it nor a `readThrough` as late is the newest read, which would hide every gap after it.
    var believed: Date
    /// What fills in the events the 2025 payload cut left bare (`details`); nil: the items are as the events say.
    var fill: FillInAsker?

    /// The `per_page` of a first page: as many as the feed keeps, within GitHub's maximum of 100.
    var perPage: Int { min(100, max(1, keep)) }

    /// Fetches the pages of `url`, calling `onPage` after each one. A 304 means nothing new there: no items.
    /// `readThrough` is the newest event the previous poll of `url` read (`Fetched.newest`), if known.
    /// Returns the items of all pages, and how far back they reached when that was not far enough.
    @discardableResult
    func fetch(_ url: String, readThrough: Date? = nil, onPage: (Page) -> Void = { _ in }) async throws -> Fetched {
        let readThrough = readThrough.flatMap { $0 <= believed ? $0 : nil }
        var url = url
        var pages = 0
        var seen = 0
        var all: [Item] = []
        // The oldest and newest events of every page read (all of a page, whatever the types and `keep`).
        var oldest: Date?
        var newest: Date?
        while true {
            let response = try await api.get(url)
            pages += 1
            guard response.status != 304 else {
                onPage(Page(items: [], number: pages, more: false, notModified: true))
                break
            }
            let events = try GitHubEvent.page(response.body)
            var wanted: [GitHubEvent] = []
            var reachedKnown = false
            for event in events.prefix(keep - seen) {
                seen += 1
                guard let event else { continue }
                if known.contains(event.id) { reachedKnown = true }
                if types?.contains(event.type) ?? true { wanted.append(event) }
            }
            let items = await self.items(of: wanted)
            all += items
            for case let event? in events {
                if oldest.map({ event.date < $0 }) ?? true { oldest = event.date }
                if event.date <= believed, newest.map({ event.date > $0 }) ?? true { newest = event.date }
            }
            // The whole page, beyond `keep` too: a stored event anywhere on it, or one the previous poll read, means
            // nothing is missing.
            let pageReachedKnown =
                reachedKnown
                || events.contains { event in
                    guard let event else { return false }
                    return known.contains(event.id) || readThrough.map { event.date <= $0 } ?? false
                }
            let offered = events.isEmpty ? nil : LinkHeader.url("next", in: response.headers["Link"], relativeTo: url)
            var next: String?
            if !reachedKnown, seen < keep, pages < Self.maxPages {
                next = offered
                if let link = next, !api.isOwn(link) {
                    logger.warning(
                        "not following a next page on another host",
                        metadata: ["url": "\(url)", "next": "\(TerminalText.sanitized(link))"])
                    next = nil
                }
            }
            let gapUntil = offered == nil && !pageReachedKnown ? oldest : nil
            onPage(Page(items: items, number: pages, more: next != nil, gapUntil: gapUntil))
            guard let next else { return Fetched(items: all, gapUntil: gapUntil, newest: newest) }
            url = next
        }
        return Fetched(items: all, newest: newest)
    }

    /// The items of `events`, filled in when ``fill`` is set: the new ones asked for, those stored before only from
    /// the answers kept. A stored event whose answer is no longer kept is left out: the item stored stays as it was
    /// filled in, not replaced by one without its details.
    private func items(of events: [GitHubEvent]) async -> [Item] {
        guard let fill else { return events.map { $0.item(web: api.web) } }
        let fillIns = await fill.fillIns(for: events, asking: { !known.contains($0.id) })
        return zip(events, fillIns).compactMap { event, fillIn in
            if fillIn == nil, known.contains(event.id), GitHubFillIn.request(for: event) != nil { return nil }
            return event.item(web: api.web, fillIn: fillIn)
        }
    }
}
