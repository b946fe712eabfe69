/// A feed document as read, before its entries become items: the format, the feed's own title, page and date, and
/// its entries with their fields as written (dates and links not yet interpreted).
struct FeedDocument: Sendable, Hashable {
    /// The formats read.
    enum Format: String, Sendable {
        case rss2 = "RSS 2.0"
        case rss1 = "RSS 1.0"
        case atom = "Atom"
        case jsonFeed = "JSON Feed"
    }

    /// One entry (an RSS item, an Atom entry, a JSON Feed item), its fields as the document gives them.
    struct Entry: Sendable, Hashable {
        /// Its id or guid, and whether that is its web page too (an RSS guid that is a permalink).
        var id: String?
        var idIsLink = false
        var title: String?
        /// Whether `title` may hold markup (an RSS or Atom `html` title): a JSON Feed title is plain text.
        var titleIsMarkup = true
        /// Its web page, resolved against the document's base.
        var link: String?
        /// Its publication date as written, and the date it was last updated.
        var published: String?
        var updated: String?
        var categories: [String] = []
        var author: String?
        /// Its summary and its content, markup included.
        var summary: String?
        var content: String?
        /// `lat lon` (GeoRSS `georss:point`), or the two apart (W3C `geo:lat`, `geo:long`).
        var point: String?
        var latitude: String?
        var longitude: String?
    }

    var format: Format
    var title: String?
    /// When the feed was last built or published, as written.
    var date: String?
    var entries: [Entry] = []
    /// The first error the XML parser recovered from, where it was: the entries read may be incomplete.
    var recovered: String?
}
