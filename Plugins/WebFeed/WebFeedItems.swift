import Crypto
import Foundation
import MonitorCore
import MonitorItems
import MonitorJSON

/// Reads an answer as a feed document, whatever its format.
enum WebFeedDocument {
    /// The feed `response` holds: a JSON Feed when it says it is JSON or is not XML at all, else an XML feed. A web page
    /// is refused, naming the feeds it links to.
    static func read(_ response: HTTPResponse, url: String) throws -> FeedDocument {
        let type = response.headers["Content-Type"]?.lowercased() ?? ""
        if type.contains("json") { return try json(response.body, url: url) }
        switch try XMLFeedReader.read(response.body, url: url) {
        case .feed(let document):
            return document
        case .notXML(let error):
            // JSON, perhaps, served as something else.
            guard let document = try? json(response.body, url: url) else { throw SourceError("not a feed: \(error)") }
            return document
        case .page(let feeds) where feeds.isEmpty:
            throw SourceError(
                "this is an HTML page, not a feed, and it links to none (no <link rel=\"alternate\" type=\"application/rss+xml\">)"
            )
        case .page(let feeds):
            let named = feeds.count == 1 ? "its feed is \(feeds[0])" : "its feeds are \(feeds.joined(separator: ", "))"
            throw SourceError("this is an HTML page; \(named)")
        }
    }

    private static func json(_ body: [UInt8], url: String) throws -> FeedDocument {
        do {
            return try JSONFeedReader.read(body, url: url)
        } catch {
            throw SourceError("not a JSON Feed (\(error))")
        }
    }
}

/// A document's entries as items, with what could not be made of them.
struct WebFeedItems {
    /// The longest title and summary kept, in characters.
    static let maximumTitle = 300
    static let maximumSummary = 300
    /// The longest id kept as written: a longer one is hashed.
    static let maximumID = 512

    let document: FeedDocument
    /// The feed's own date, when it has one that can be read.
    let feedDate: Date?
    /// When an entry without a date that can be read is dated: the feed's own date, else the poll's.
    let fallbackDate: Date
    /// The group of entries without categories: the feed's title.
    let feedGroup: String

    init(_ document: FeedDocument, now: Date) {
        self.document = document
        feedDate = document.date.flatMap(FeedDate.parse)
        fallbackDate = feedDate ?? now
        let title = document.title.map { WebFeedText.plain($0, limit: 100) } ?? ""
        feedGroup = title.isEmpty ? "feed" : title
    }

    /// Reports the items, a failed part for each entry that cannot be one, and a note for dates that cannot be read
    /// and for XML the parser recovered from.
    func report(to found: Findings) {
        var items: [Item] = []
        var undated: [String] = []
        for (index, entry) in document.entries.enumerated() {
            guard let item = item(of: entry, undated: &undated) else {
                found.failed("entry \(index + 1)", "it has no id, link or title: skipped")
                continue
            }
            items.append(item)
        }
        found.items(items)
        if let first = undated.first {
            let what = undated.count == 1 ? "1 entry has" : "\(undated.count) entries have"
            let dated = feedDate != nil ? "the feed's date" : "the time of the poll"
            found.note("\(what) no date that can be read (first: '\(first)'): dated by \(dated)")
        }
        if let recovered = document.recovered {
            found.note("the document is not well-formed XML (\(recovered)): its entries were read as far as it goes")
        }
        found.completed()
    }

    /// The item of `entry`; nil when it has neither id, link nor title. A date that cannot be read is added to
    /// `undated` (as written, cut short).
    func item(of entry: FeedDocument.Entry, undated: inout [String]) -> Item? {
        let title =
            entry.title.map { WebFeedText.plain($0, limit: Self.maximumTitle, markup: entry.titleIsMarkup) } ?? ""
        let link = Item.webLink(entry.link) ?? (entry.idIsLink ? Item.webLink(entry.id) : nil)
        let written = entry.published ?? entry.updated
        var id = entry.id?.trimmingAllWhitespace() ?? ""
        if id.isEmpty { id = link ?? "" }
        if id.isEmpty, !title.isEmpty { id = Self.hash(title + "\n" + (written ?? "")) }
        guard !id.isEmpty else { return nil }
        if id.utf8.count > Self.maximumID { id = Self.hash(id) }
        var date = written.flatMap(FeedDate.parse)
        if date == nil, let updated = entry.updated { date = FeedDate.parse(updated) }
        if date == nil { undated.append(String((written ?? "none").prefix(40))) }
        var groups: [String] = []
        for category in entry.categories {
            let group = WebFeedText.plain(category, limit: 100)
            if !group.isEmpty, !groups.contains(group) { groups.append(group) }
        }
        if groups.isEmpty { groups = [feedGroup] }
        var details: [Detail] = []
        if let author = entry.author.map({ WebFeedText.plain($0, limit: 100) }), !author.isEmpty {
            details.append(Detail("author", author))
        }
        // Its position in text too, as EONET's events show theirs.
        let location = position(of: entry)
        if let location { details.append(Detail("position", location.text)) }
        if let summary = (entry.summary ?? entry.content).map({ WebFeedText.plain($0, limit: Self.maximumSummary) }),
            !summary.isEmpty
        {
            details.append(Detail("summary", summary))
        }
        return Item(
            id: id, title: title.isEmpty ? link ?? id : title, date: date ?? fallbackDate, groups: groups, url: link,
            details: details, location: location)
    }

    /// GeoRSS's `lat lon`, or W3C's `geo:lat` and `geo:long`.
    func position(of entry: FeedDocument.Entry) -> Item.Position? {
        var latitude = entry.latitude
        var longitude = entry.longitude
        if let point = entry.point {
            let numbers = point.split(whereSeparator: \.isWhitespace)
            guard numbers.count == 2 else { return nil }
            (latitude, longitude) = (String(numbers[0]), String(numbers[1]))
        }
        guard let latitude = latitude.flatMap(Item.number), let longitude = longitude.flatMap(Item.number) else {
            return nil
        }
        return Item.Position(latitude: latitude, longitude: longitude)
    }

    /// `sha256:` and the first 32 hex digits of the SHA-256 of `text`: a stable id for an entry that names none.
    static func hash(_ text: String) -> String {
        "sha256:" + SHA256.hash(data: Data(text.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
