import MonitorJSON

/// Reads a JSON Feed (1.0 or 1.1, https://jsonfeed.org/version/1.1) with the package's JSON reader: the feed's title
/// and page, and each item's id, title, page, dates, tags, authors and text. Other members are checked and skipped.
enum JSONFeedReader {
    /// The document of `bytes`, found at `url`; throws a `JSONError` naming the path of what is wrong.
    static func read(_ bytes: [UInt8], url: String) throws(JSONError) -> FeedDocument {
        var reader = JSONReader(bytes)
        var document = FeedDocument(format: .jsonFeed)
        var version: String?
        try reader.members { (key, reader) throws(JSONError) in
            if reader.key(key, is: "version") {
                version = try reader.optionalString()
            } else if reader.key(key, is: "title") {
                document.title = try reader.optionalString()
            } else if reader.key(key, is: "home_page_url") {
                // Not kept; its type is checked as an item's link is.
                _ = try reader.referenceURL()
            } else if reader.key(key, is: "items") {
                guard try !reader.null() else { return }
                try reader.elements { (reader) throws(JSONError) in
                    let entry = try entry(&reader, base: url)
                    if document.entries.count < XMLFeedReader.maximumEntries { document.entries.append(entry) }
                }
            }
        }
        try reader.end()
        guard let version, version.hasPrefix("https://jsonfeed.org/version/") else {
            throw .value("not a JSON Feed: its 'version' is not https://jsonfeed.org/version/…")
        }
        return document
    }

    /// One item.
    private static func entry(_ reader: inout JSONReader, base: String) throws(JSONError) -> FeedDocument.Entry {
        var entry = FeedDocument.Entry()
        entry.titleIsMarkup = false
        var text: String?
        try reader.members { (key, reader) throws(JSONError) in
            if reader.key(key, is: "id") {
                // A number is allowed, and read as written.
                entry.id = try reader.kind() == .number ? JSONValue.number(try reader.number()).text : reader.string()
            } else if reader.key(key, is: "url") {
                entry.link = try reader.referenceURL().map { WebFeedLinks.resolve($0, against: base) }
            } else if reader.key(key, is: "external_url"), entry.link == nil {
                entry.link = try reader.referenceURL().map { WebFeedLinks.resolve($0, against: base) }
            } else if reader.key(key, is: "title") {
                entry.title = try reader.optionalString()
            } else if reader.key(key, is: "summary") {
                entry.summary = try reader.optionalString().map(WebFeedText.escaped)
            } else if reader.key(key, is: "content_html") {
                entry.content = try reader.optionalString()
            } else if reader.key(key, is: "content_text") {
                text = try reader.optionalString()
            } else if reader.key(key, is: "date_published") {
                entry.published = try reader.optionalString()
            } else if reader.key(key, is: "date_modified") {
                entry.updated = try reader.optionalString()
            } else if reader.key(key, is: "tags") {
                guard try !reader.null() else { return }
                try reader.elements { (reader) throws(JSONError) in
                    let tag = try reader.string()
                    if entry.categories.count < 20 { entry.categories.append(tag) }
                }
            } else if reader.key(key, is: "authors") {
                guard try !reader.null() else { return }
                try reader.elements { (reader) throws(JSONError) in
                    let name = try author(&reader)
                    entry.author = entry.author ?? name
                }
            } else if reader.key(key, is: "author") {
                entry.author = try author(&reader) ?? entry.author
            }
        }
        // Plain text is escaped for the summary's markup reader, which reads both alike.
        if entry.content == nil, let text { entry.content = WebFeedText.escaped(text) }
        return entry
    }

    /// An author's `name`.
    private static func author(_ reader: inout JSONReader) throws(JSONError) -> String? {
        guard try !reader.null() else { return nil }
        var name: String?
        try reader.members { (key, reader) throws(JSONError) in
            if reader.key(key, is: "name") { name = try reader.optionalString() }
        }
        return name
    }
}
