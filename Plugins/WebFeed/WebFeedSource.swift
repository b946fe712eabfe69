import Foundation
import MonitorCore
import MonitorItems
import MonitorOptions

/// The `feed` source: an RSS 2.0, RSS 1.0, Atom 1.0 or JSON Feed document, one GET per poll (conditional, as every
/// source's). Each entry becomes an item, grouped by its categories (else under the feed's title); an entry keeps
/// its id when re-published, so it is not new again.
package struct WebFeedSource: FeedSource {
    package static let type = "feed"
    package static let summary = "An RSS, Atom or JSON Feed document: a blog, a release page, a forum, a status page"

    static let url = FeedOption<String?>(
        "url", .url, required: true, doc: "The feed's address, e.g. https://github.com/swiftlang/swift/releases.atom")
    static let keep = FeedOption<Int>(
        "keep", .integer(1...10_000), default: 500, doc: "How many of the newest entries the feed keeps")

    package static let options: [any OptionDeclaration] = [url, keep]

    /// `monitor events` shows each entry's author.
    package static var detailColumns: [String] { ["author"] }

    /// An entry's details, and its position's numbers for rules.
    package static var detailNames: [String]? { ["author", "summary", "position", "lat", "lon"] }

    /// For rules: `lat` and `lon` of an entry's GeoRSS position.
    package static func ruleDetails(of item: Item) -> [Detail] {
        item.numbersJSON.map { Detail($0.key, $0.value.text) }
    }

    let options: FeedOptions

    package init(options: FeedOptions) {
        self.options = options
    }

    /// A feed lists its latest entries: those it drops are kept, up to `keep`.
    package var retention: ItemRetention { .keepNewest(options[Self.keep]) }

    package func poll(_ context: PollContext, _ found: Findings) async throws {
        let url = options[Self.url] ?? ""
        let response = try await context.http.get(url)
        if response.status == 304 { return found.unchanged() }
        let document: FeedDocument
        do {
            document = try WebFeedDocument.read(response, url: url)
        } catch {
            // Its validators must not make the next answer a 304 for a body that could not be read.
            context.http.forget(url)
            throw SourceError("GET \(url): \(error)")
        }
        WebFeedItems(document, now: context.clock.now.date).report(to: found)
    }

    /// The feed answers with a feed: its format, title and entries (one GET).
    package func checkOnline(_ context: OnlineCheckContext) async -> OnlineCheck {
        let url = options[Self.url] ?? ""
        do {
            let response = try await context.http.get(url)
            let document = try WebFeedDocument.read(response, url: url)
            let title = document.title.map { " '\(WebFeedText.plain($0, limit: 80))'" } ?? ""
            return .ok("\(document.format.rawValue) feed\(title), \(document.entries.count) entries")
        } catch let error as FetchError {
            return .failed(error)
        } catch {
            return .wrong("\(error)")
        }
    }
}
