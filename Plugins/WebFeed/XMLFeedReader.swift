import Foundation
import MonitorCore
import MonitorJSON

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads an RSS 2.0, RSS 1.0 (RDF) or Atom 1.0 document with Foundation's `XMLParser` (libxml2), which honours the
/// encoding the document declares, loads no external entity and refuses an entity that expands without bound. A
/// web page (its root is `html`) is read for the feeds its `<link rel="alternate">` elements name.
enum XMLFeedReader {
    /// What a document turned out to be.
    enum Outcome: Sendable, Hashable {
        case feed(FeedDocument)
        /// A web page, with the feeds it links to (resolved against its URL).
        case page(feeds: [String])
        /// No element at all: not XML (JSON, perhaps), with the parser's error.
        case notXML(String)
    }

    /// The most entries read from one document, and the longest text kept of one field (in UTF-8 bytes).
    static let maximumEntries = 10_000
    static let maximumField = 64 << 10

    /// Reads `bytes`, the document found at `url` (the base of its relative links). Throws a `SourceError` that says
    /// where the document stops being XML, or what its root is when it is no feed.
    static func read(_ bytes: [UInt8], url: String) throws -> Outcome {
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let reader = Reader(base: url)
        parser.delegate = reader
        let parsed = parser.parse()
        if reader.isPage { return .page(feeds: reader.alternates) }
        let error =
            reader.error
            ?? parser.parserError.map { Self.describe($0, line: parser.lineNumber, column: parser.columnNumber) }
        // libxml2 says nothing of an empty body.
        if reader.rootName == nil { return .notXML(error ?? "the body is empty") }
        guard parsed, var document = reader.document else {
            if let error { throw SourceError("not a feed: \(error)") }
            throw SourceError("not a feed: its root element is <\(reader.rootName ?? "")>, not rss, rdf:RDF or feed")
        }
        document.recovered = error
        return .feed(document)
    }

    /// `line 20, column 20: an entity refers to itself or expands too far`, for an error of the parser.
    static func describe(_ error: any Error, line: Int, column: Int) -> String {
        let code = (error as NSError).code
        let what =
            switch code {
            case 4: "the document is empty"
            case 5: "the document does not end with its root element (cut short, or more after it)"
            case 9: "a character is not valid in the encoding the document declares (or UTF-8)"
            case 26, 27: "an entity is used that is not declared"
            case 68: "a name is missing after an '&' or a '<' (write them &amp; and &lt; in text)"
            case 32: "an encoding the document declares is not supported"
            case 76: "a closing tag does not match its opening tag"
            case 77: "the document ends before its elements are closed"
            case 89: "an entity refers to itself or expands too far (refused)"
            default: "not well-formed XML (libxml2 error \(code))"
            }
        return "line \(line), column \(column): \(what)"
    }

    /// The namespaces read.
    enum Namespace {
        static let atom = "http://www.w3.org/2005/Atom"
        static let rss1 = "http://purl.org/rss/1.0/"
        static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
        static let dublinCore = "http://purl.org/dc/elements/1.1/"
        static let content = "http://purl.org/rss/1.0/modules/content/"
        static let geoRSS = "http://www.georss.org/georss"
        static let geo = "http://www.w3.org/2003/01/geo/wgs84_pos#"
    }

    /// The MIME types of a page's `<link rel="alternate">` that name a feed.
    static let feedTypes: Set<String> = [
        "application/rss+xml", "application/atom+xml", "application/feed+json", "application/json",
        "application/rdf+xml",
    ]
}

/// The parser's delegate: follows the elements, captures the text of the fields it knows, and builds the document.
private final class Reader: NSObject, XMLParserDelegate {
    /// A field whose text is being captured.
    enum Key {
        case title, link, id, published, updated, category, author, summary, content, point, latitude, longitude
        case feedTitle, feedDate
    }

    /// The document, once its root is known to be a feed.
    var document: FeedDocument?
    var rootName: String?
    var isPage = false
    /// The first error of the parser, with where it was found.
    var error: String?
    /// The feeds a page links to.
    var alternates: [String] = []
    /// The entry being read, and the depth of its element.
    private var entry: FeedDocument.Entry?
    private var entryDepth = 0
    /// The field being captured, the depth of its element and its text so far.
    private var field: (key: Key, depth: Int)?
    private var text = ""
    /// The depth of an Atom `author` being read (its `name` is the author).
    private var authorDepth: Int?
    /// The local names of the open elements, outermost first.
    private var stack: [String] = []
    /// The base of relative links at each depth that sets one (`xml:base`), the document's URL first.
    private var bases: [(depth: Int, url: String)]

    init(base: String) {
        bases = [(0, base)]
    }

    private var base: String { bases[bases.count - 1].url }
    private var format: FeedDocument.Format? { document?.format }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        stack.append(name)
        let depth = stack.count
        let namespace = namespaceURI ?? ""
        if let relative = attributes["xml:base"] {
            bases.append((depth, WebFeedLinks.resolve(relative, against: base)))
        }
        if depth == 1 { return start(root: name, namespace: namespace) }
        if isPage {
            if name.lowercased() == "link" { alternate(attributes) }
            return
        }
        guard let format else { return }
        if field != nil {
            // Inside a captured field (Atom's xhtml text): its words are not run together.
            if text.utf8.count < XMLFeedReader.maximumField { text += " " }
            return
        }
        if let authorDepth, depth == authorDepth + 1, name == "name" { return capture(.author, depth) }
        if entry == nil, isEntry(name, namespace, format) {
            entry = FeedDocument.Entry()
            entryDepth = depth
            return
        }
        if entry != nil, depth == entryDepth + 1 {
            return entryField(name, namespace, attributes, depth: depth)
        }
        if entry == nil, depth >= 2, ["channel", "feed"].contains(stack[depth - 2]) {
            feedField(name, namespace, depth: depth)
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let depth = stack.count
        if let (key, fieldDepth) = field, fieldDepth == depth {
            store(key, text.trimmingAllWhitespace())
            (field, text) = (nil, "")
        } else if field != nil, text.utf8.count < XMLFeedReader.maximumField {
            text += " "
        }
        if authorDepth == depth { authorDepth = nil }
        if let finished = entry, depth == entryDepth {
            if document?.entries.count ?? 0 < XMLFeedReader.maximumEntries { document?.entries.append(finished) }
            entry = nil
        }
        if bases.count > 1, bases[bases.count - 1].depth == depth { bases.removeLast() }
        stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard field != nil, text.utf8.count < XMLFeedReader.maximumField else { return }
        text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard field != nil, text.utf8.count < XMLFeedReader.maximumField else { return }
        text += String(decoding: block.prefix(XMLFeedReader.maximumField), as: UTF8.self)
    }

    /// No external entity is ever read.
    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? { nil }

    /// The first error, where the parser is when it finds it (once it has recovered, it is at the end).
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if error == nil {
            error = XMLFeedReader.describe(parseError, line: parser.lineNumber, column: parser.columnNumber)
        }
    }

    // MARK: - Elements

    private func start(root name: String, namespace: String) {
        rootName = name
        switch (name, namespace) {
        case ("rss", _): document = FeedDocument(format: .rss2)
        case ("RDF", XMLFeedReader.Namespace.rdf): document = FeedDocument(format: .rss1)
        case ("feed", XMLFeedReader.Namespace.atom): document = FeedDocument(format: .atom)
        default: isPage = name.lowercased() == "html"
        }
    }

    private func isEntry(_ name: String, _ namespace: String, _ format: FeedDocument.Format) -> Bool {
        switch format {
        case .rss2: name == "item"
        case .rss1: name == "item" && namespace == XMLFeedReader.Namespace.rss1
        case .atom: name == "entry" && namespace == XMLFeedReader.Namespace.atom
        case .jsonFeed: false
        }
    }

    /// A child of an entry.
    private func entryField(_ name: String, _ namespace: String, _ attributes: [String: String], depth: Int) {
        typealias Namespace = XMLFeedReader.Namespace
        let own = namespace == "" || namespace == Namespace.atom || namespace == Namespace.rss1
        switch (name, own ? "" : namespace) {
        case ("title", ""):
            entry?.titleIsMarkup = format != .atom || attributes["type"] == "html"
            capture(.title, depth)
        case ("link", "") where format == .atom:
            let rel = attributes["rel"] ?? "alternate"
            if rel == "alternate", entry?.link == nil, let href = attributes["href"] {
                entry?.link = WebFeedLinks.resolve(href, against: base)
            }
        case ("link", ""): capture(.link, depth)
        case ("guid", ""), ("id", ""):
            // An RSS guid is a permalink unless it says otherwise.
            entry?.idIsLink = name == "guid" && attributes["isPermaLink"] != "false"
            capture(.id, depth)
        case ("pubDate", ""), ("published", ""), ("issued", ""), ("date", Namespace.dublinCore):
            capture(.published, depth)
        case ("updated", ""), ("modified", ""): capture(.updated, depth)
        case ("category", "") where format == .atom:
            if let term = attributes["term"] ?? attributes["label"], entry?.categories.count ?? 0 < 20 {
                entry?.categories.append(term)
            }
        case ("category", ""), ("subject", Namespace.dublinCore): capture(.category, depth)
        case ("author", "") where format == .atom: authorDepth = depth
        case ("author", ""), ("creator", Namespace.dublinCore): capture(.author, depth)
        case ("description", ""), ("summary", ""): capture(.summary, depth)
        case ("content", ""), ("encoded", Namespace.content): capture(.content, depth)
        case ("point", Namespace.geoRSS): capture(.point, depth)
        case ("lat", Namespace.geo): capture(.latitude, depth)
        case ("long", Namespace.geo): capture(.longitude, depth)
        default: break
        }
    }

    /// A child of the channel or the Atom feed.
    private func feedField(_ name: String, _ namespace: String, depth: Int) {
        let own =
            namespace == "" || namespace == XMLFeedReader.Namespace.atom || namespace == XMLFeedReader.Namespace.rss1
        switch (name, own) {
        case ("title", true): capture(.feedTitle, depth)
        case ("lastBuildDate", true), ("pubDate", true), ("updated", true): capture(.feedDate, depth)
        case ("date", false) where namespace == XMLFeedReader.Namespace.dublinCore: capture(.feedDate, depth)
        default: break
        }
    }

    /// A page's `<link rel="alternate" type="application/rss+xml" href="…">`.
    private func alternate(_ attributes: [String: String]) {
        let rel = (attributes["rel"] ?? "").lowercased().split(separator: " ")
        guard rel.contains("alternate"), let type = attributes["type"]?.lowercased(),
            XMLFeedReader.feedTypes.contains(type), let href = attributes["href"], alternates.count < 10
        else { return }
        alternates.append(WebFeedLinks.resolve(href, against: base))
    }

    private func capture(_ key: Key, _ depth: Int) {
        (field, text) = ((key, depth), "")
    }

    /// Keeps a field's text: the first of each, but for categories.
    private func store(_ key: Key, _ value: String) {
        guard !value.isEmpty else { return }
        if var entry {
            switch key {
            case .title: entry.title = entry.title ?? value
            case .link: entry.link = entry.link ?? WebFeedLinks.resolve(value, against: base)
            case .id: entry.id = entry.id ?? value
            case .published: entry.published = entry.published ?? value
            case .updated: entry.updated = entry.updated ?? value
            case .category: if entry.categories.count < 20 { entry.categories.append(value) }
            case .author: entry.author = entry.author ?? value
            case .summary: entry.summary = entry.summary ?? value
            case .content: entry.content = entry.content ?? value
            case .point: entry.point = entry.point ?? value
            case .latitude: entry.latitude = entry.latitude ?? value
            case .longitude: entry.longitude = entry.longitude ?? value
            case .feedTitle, .feedDate: break
            }
            self.entry = entry
        } else if var document {
            switch key {
            case .feedTitle: document.title = document.title ?? value
            case .feedDate: document.date = document.date ?? value
            default: break
            }
            self.document = document
        }
    }
}
