import Foundation
import MonitorJSON
import MonitorText

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The plain text of a feed's titles and summaries, which may hold HTML: its markup read by Foundation's `XMLParser`
/// (recovering from what is not XML, as HTML often is), the text of scripts and styles dropped, its whitespace
/// collapsed.
enum WebFeedText {
    /// The text of `markup` (of `text` as written when `markup` is false), at most `limit` characters (cut with `…`).
    static func plain(_ markup: String, limit: Int, markup isMarkup: Bool = true) -> String {
        var text = markup
        if isMarkup, markup.contains("<") || markup.contains("&") {
            // HTML's one common reference XML lacks; the others (`&#8217;`, `&amp;`) are XML's too.
            let fragment = "<t>" + markup.replacingOccurrences(of: "&nbsp;", with: "&#160;") + "</t>"
            let parser = XMLParser(data: Data(fragment.utf8))
            let reader = TextReader()
            parser.delegate = reader
            _ = parser.parse()
            text = reader.text
        }
        return TerminalText.capped(text.collapsingWhitespace(), to: limit)
    }

    /// `text` with the characters markup gives a meaning escaped: read by ``plain(_:limit:)`` as written.
    static func escaped(_ text: String) -> String {
        guard text.contains(where: { $0 == "<" || $0 == "&" }) else { return text }
        return text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}

/// Collects a fragment's text; block elements and line breaks separate words.
private final class TextReader: NSObject, XMLParserDelegate {
    var text = ""
    /// Inside a `script` or `style`, whose text is none.
    private var hidden = 0

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let name = name.lowercased()
        if name == "script" || name == "style" { hidden += 1 }
        if Self.separating.contains(name) { text += " " }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let name = name.lowercased()
        if name == "script" || name == "style" { hidden = max(0, hidden - 1) }
        if Self.separating.contains(name) { text += " " }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if hidden == 0, text.utf8.count < XMLFeedReader.maximumField { text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        if hidden == 0, text.utf8.count < XMLFeedReader.maximumField { text += String(decoding: block, as: UTF8.self) }
    }

    /// No external entity is ever read.
    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? { nil }

    /// The elements whose start and end separate words.
    static let separating: Set<String> = [
        "p", "br", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th", "blockquote", "pre",
        "hr", "img", "figure", "figcaption", "section", "article", "table", "dl", "dt", "dd",
    ]
}

/// The links of a feed: resolved against the document's URL or `xml:base`, kept only when they are web addresses.
enum WebFeedLinks {
    /// `link` resolved against `base`; `link` as written (trimmed) when either is not a URL.
    static func resolve(_ link: String, against base: String) -> String {
        let link = link.trimmingAllWhitespace()
        guard let url = URL(string: link, relativeTo: URL(string: base)) else { return link }
        return url.absoluteString
    }
}
