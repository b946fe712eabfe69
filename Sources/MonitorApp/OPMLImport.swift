import Foundation
import MonitorText

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A feeds file made from the OPML export of another reader (newsboat, miniflux, Feedly): one `type: feed` per
/// outline with an `xmlUrl`, its name made from its title, unique, and valid as a feed name.
package enum OPMLImport {
    /// One subscription of the export.
    package struct Subscription: Sendable, Hashable {
        package var name: String
        package var url: String
        /// Its title as the export has it, and the folders it is in, outermost first.
        package var title: String
        package var folders: [String]
    }

    /// The most subscriptions read from one export.
    static let maximumSubscriptions = 10_000

    /// The subscriptions of the OPML document `data`; throws a message naming what is wrong (where the XML breaks,
    /// a root that is not `opml`, no outline with an `xmlUrl`).
    package static func subscriptions(in data: Data) throws -> [Subscription] {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let reader = OutlineReader()
        parser.delegate = reader
        guard parser.parse() || reader.root == "opml" else {
            let code = (parser.parserError as NSError?)?.code ?? 0
            throw OPMLError(
                "not an OPML file: line \(parser.lineNumber), column \(parser.columnNumber): not well-formed XML (libxml2 error \(code))"
            )
        }
        guard reader.root == "opml" else {
            throw OPMLError("not an OPML file: its root element is <\(reader.root ?? "")>, not <opml>")
        }
        guard !reader.outlines.isEmpty else { throw OPMLError("the OPML file has no outline with an xmlUrl") }
        var taken: Set<String> = []
        return reader.outlines.prefix(maximumSubscriptions).map { outline in
            var name = Self.name(from: outline.title, url: outline.url)
            if taken.contains(name) {
                let stem = String(name.prefix(60))
                var number = 2
                while taken.contains("\(stem)-\(number)") { number += 1 }
                name = "\(stem)-\(number)"
            }
            taken.insert(name)
            return Subscription(name: name, url: outline.url, title: outline.title, folders: outline.folders)
        }
    }

    /// A feed name from a title (`Daring Fireball` → `daring-fireball`), else (a title without ASCII letters or digits)
    /// from the URL's host; `feed` when neither gives one.
    static func name(from title: String, url: String) -> String {
        for source in [title, URL(string: url)?.host ?? ""] {
            var name = ""
            for character in source.lowercased() {
                if character.isASCII, character.isLetter || character.isNumber || character == "." || character == "_" {
                    name.append(character)
                } else if !name.isEmpty, name.last != "-" {
                    name.append("-")
                }
            }
            while let last = name.last, !(last.isLetter || last.isNumber) { name.removeLast() }
            while let first = name.first, !(first.isLetter || first.isNumber) { name.removeFirst() }
            if !name.isEmpty { return String(name.prefix(56)) }
        }
        return "feed"
    }

    /// The feeds file of `subscriptions`, from `source` (its path, said in the header).
    package static func feedsFile(_ subscriptions: [Subscription], source: String) -> String {
        var text = """
            # feeds.yaml: the feeds `monitor run` watches, imported from \(TerminalText.sanitized(source)).
            # Check it with `monitor validate --online`; `monitor sources` lists every option with its default.

            settings:
              concurrency: 4      # HTTP requests in flight across all feeds
              interval: 15m       # how often a feed is polled, unless it says otherwise

            feeds:

            """
        var folders: [String] = []
        for subscription in subscriptions {
            if subscription.folders != folders {
                folders = subscription.folders
                if !folders.isEmpty { text += "  # \(TerminalText.sanitized(folders.joined(separator: " / ")))\n" }
            }
            let title = TerminalText.sanitized(subscription.title)
            // A name YAML would read as null, a boolean or a number is quoted.
            let plain =
                !["null", "true", "false", "yes", "no", "on", "off"].contains(subscription.name)
                && Double(subscription.name) == nil
            let name = plain ? subscription.name : "\"\(subscription.name)\""
            text += "  - name: \(name)\(title.isEmpty ? "" : "    # \(title)")\n"
            text += "    type: feed\n"
            text += "    url: \(quoted(subscription.url))\n"
        }
        return text
    }

    /// `text` as a double-quoted YAML scalar, its `${` kept literal.
    static func quoted(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: break
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"" + escaped.replacingOccurrences(of: "${", with: "$${") + "\""
    }
}

/// Why an OPML file cannot be imported.
package struct OPMLError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}

/// Collects the outlines with an `xmlUrl`, in order, with the titles of the outlines they are nested in.
private final class OutlineReader: NSObject, XMLParserDelegate {
    var root: String?
    var outlines: [(title: String, url: String, folders: [String])] = []
    /// The titles of the open outlines (nil for one with an `xmlUrl`), outermost first.
    private var open: [String?] = []

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if root == nil { root = name }
        guard name == "outline" else { return }
        let title = (attributes["title"] ?? attributes["text"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if let url = attributes["xmlUrl"]?.trimmingCharacters(in: .whitespacesAndNewlines), !url.isEmpty {
            if outlines.count < OPMLImport.maximumSubscriptions {
                outlines.append((String(title.prefix(200)), url, open.compactMap { $0 }))
            }
            open.append(nil)
        } else {
            open.append(String(title.prefix(200)))
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "outline", !open.isEmpty { open.removeLast() }
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? { nil }
}
