import Foundation

/// One version of a resource: its body and the validators a client sends back to ask whether it changed.
struct Representation: Sendable {
    /// The JSON body.
    var body: [UInt8]
    /// The `ETag`, quotes (and `W/`) included.
    var etag: String
    /// The `Last-Modified` date.
    var lastModified: Date

    /// A representation of `body`, its ETag made from its bytes (weak unless `strong`).
    init(body: [UInt8], lastModified: Date, strong: Bool) {
        self.body = body
        let tag = "\"\(String(SeededRandom.hash(bytes: body), radix: 16))\""
        etag = strong ? tag : "W/\(tag)"
        self.lastModified = lastModified
    }

    /// Whether a request with these conditional headers already has this version: `If-None-Match` matching the
    /// ETag byte for byte (one of a list, or `*`), else an `If-Modified-Since` not older than `lastModified`.
    func isNotModified(ifNoneMatch: String?, ifModifiedSince: String?) -> Bool {
        if let ifNoneMatch {
            let tags = ifNoneMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return tags.contains("*") || tags.contains(etag)
        }
        if let ifModifiedSince, let since = HTTPDate.date(ifModifiedSince) {
            return since >= lastModified.rounded()
        }
        return false
    }
}

extension Date {
    /// The date without its fraction of a second, as an HTTP date keeps it.
    fileprivate func rounded() -> Date {
        Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down))
    }
}
