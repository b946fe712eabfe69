import Foundation

/// An HTTP `Link` header (RFC 8288): `<https://…?page=2>; rel="next", <…>; rel="last"`.
enum LinkHeader {
    /// The target of the first link of `value` with relation `relation` (a malformed part is skipped), resolved
    /// against `base` when relative.
    static func url(_ relation: String, in value: String?, relativeTo base: String) -> String? {
        guard let value else { return nil }
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let url = String(rest[rest.index(after: open)..<close]).trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: close)...]
            // The parameters run to the next link (a comma followed by `<`) or the end.
            let end = rest.firstIndex(of: "<") ?? rest.endIndex
            let parameters = rest[..<end]
            rest = rest[end...]
            let related = parameters.split(whereSeparator: { $0 == ";" || $0 == "," }).contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else {
                    return false
                }
                let quoted = pair[1].trimmingCharacters(in: .whitespaces)
                let bare = quoted.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return bare.split(separator: " ").contains { $0.lowercased() == relation }
            }
            guard related, !url.isEmpty else { continue }
            if url.hasPrefix("https://") || url.hasPrefix("http://") { return url }
            return URL(string: url, relativeTo: URL(string: base))?.absoluteString
        }
        return nil
    }
}
