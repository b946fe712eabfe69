import Foundation

/// The links of an HTTP `Link` header (RFC 8288): `<https://…?page=2>; rel="next", <…>; rel="last"`.
struct LinkHeader: Sendable, Hashable {
    /// One link: its target and its relation types.
    struct Link: Sendable, Hashable {
        var url: String
        var relations: [String]
    }

    /// The links, in order.
    var links: [Link]

    /// The links of a header value; a malformed part is skipped.
    init(_ value: String?) {
        links = []
        guard let value else { return }
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let url = String(rest[rest.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: close)...]
            // The parameters run to the next link (a comma followed by `<`) or the end.
            let end = rest.firstIndex(of: "<") ?? rest.endIndex
            let parameters = rest[..<end]
            rest = rest[end...]
            var relations: [String] = []
            for parameter in parameters.split(whereSeparator: { $0 == ";" || $0 == "," }) {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else {
                    continue
                }
                let quoted = pair[1].trimmingCharacters(in: .whitespaces)
                let bare = quoted.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                relations += bare.split(separator: " ").map { $0.lowercased() }
            }
            if !url.isEmpty { links.append(Link(url: url, relations: relations)) }
        }
    }

    /// The target of the first link with relation `relation`, resolved against `base` when relative.
    func url(_ relation: String, relativeTo base: String) -> String? {
        guard let link = links.first(where: { $0.relations.contains(relation) }) else { return nil }
        if link.url.hasPrefix("https://") || link.url.hasPrefix("http://") { return link.url }
        return URL(string: link.url, relativeTo: URL(string: base))?.absoluteString
    }
}
