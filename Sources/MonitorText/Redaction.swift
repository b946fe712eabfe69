import Foundation
import MonitorJSON

/// What must never show of a notifier's secrets, and text with all of it hidden: a receiver's answer or a program's
/// standard error becomes a message through ``message(_:limit:keeping:cutBefore:cutAfter:)`` before it is shown or
/// stored.
///
/// It is built from a URL whose part after the host is secret (a webhook's) and from secret values (header values,
/// a signing secret, a program's `env` values), and hides, wherever it appears and whatever its ASCII case:
/// - whatever its length: each value, the URL, the URL's part after the host and its path;
/// - from ``shortestPart`` characters on: each path segment, the query, each query item and value, the fragment and
///   each word of a value; each of these and of the above percent-decoded, percent-encoded and escaped as in a JSON
///   or Swift string; and their base64 (standard and URL-safe, with and without padding, at each of the three byte
///   offsets it can have inside longer data);
/// - a prefix of ``shortestPrefix`` characters or more of any of them but the whole URL (whose start is the origin a
///   message shows);
/// - where the text was cut (`cutBefore`, `cutAfter`), any end of one that the cut left at its edge.
package struct Redaction: Sendable {
    /// The fewest characters a part of a secret (a segment, a query value, a word, a base64 form) needs to be hidden on
    /// its own. One to three characters (`v1`, `api`, a query value `1`) tell nothing of a secret and occur in every
    /// text (`HTTP/1.1`, a status, a count): hiding them everywhere would leave no message readable.
    static let shortestPart = 4

    /// The fewest characters of a secret's start hidden as a prefix (a token echoed cut short): 8 letters and digits are
    /// about 48 bits, which no other text shares by chance, and a token shown as its start is shown with more. Shorter
    /// starts are everyday words (`hook` of a segment `hooks`, `Bear` of `Bearer …`), and an answer saying "Unknown
    /// Webhook" must stay readable.
    static let shortestPrefix = 8

    /// One text to hide: its bytes, ASCII lower-cased, and from how many bytes a prefix of it is hidden (nil: only
    /// whole).
    private struct Pattern: Sendable {
        var bytes: [UInt8]
        var prefix: Int?
    }

    /// The patterns, by their first byte.
    private let patterns: [[Pattern]]

    /// The length in bytes of the longest text hidden: a reader keeping the end of a long output keeps this many
    /// bytes more, so that the part it shows is whole once a secret cut at its start is hidden.
    package let longest: Int

    /// The secrets of a notifier: the part after the host of `url` (nil: none) and `values`.
    package init(url: String? = nil, values: [String]) {
        var always: [String] = []
        var parts: [String] = []
        var whole: [String] = []
        if let url, !url.isEmpty {
            whole += [url, url.percentDecoded()]
            let rest = Self.afterHost(url)
            let path = String(rest.prefix { $0 != "?" && $0 != "#" })
            always += [rest, path].filter { $0 != "/" && !$0.isEmpty }
            parts += path.split(separator: "/").map(String.init)
            if let fragment = rest.firstIndex(of: "#") { parts.append(String(rest[rest.index(after: fragment)...])) }
            if let mark = rest.firstIndex(of: "?") {
                let query = rest[rest.index(after: mark)...].prefix { $0 != "#" }
                parts.append(String(query))
                for item in query.split(separator: "&") {
                    parts.append(String(item))
                    if let equals = item.firstIndex(of: "=") {
                        parts.append(String(item[item.index(after: equals)...]))
                    }
                }
            }
        }
        for value in values where !value.isEmpty {
            always.append(value)
            parts += value.split(whereSeparator: { $0.isWhitespace || ",;=".contains($0) }).map(String.init)
        }
        var found: [[UInt8]: Int?] = [:]
        func add(_ text: String, prefixes: Bool = true) {
            let bytes = text.utf8.map(Self.lowered)
            guard !bytes.isEmpty else { return }
            let scalars = bytes.indices.filter { !Self.isContinuation(bytes[$0]) }
            let prefix = prefixes && scalars.count > Self.shortestPrefix ? scalars[Self.shortestPrefix] : nil
            if let known = found[bytes], known != nil || prefix == nil { return }
            found[bytes] = prefix
        }
        for text in whole { add(text, prefixes: false) }
        for (text, isAlways) in always.map({ ($0, true) }) + parts.map({ ($0, false) }) {
            let forms = Self.forms(of: text).filter { isAlways || $0.unicodeScalars.count >= Self.shortestPart }
            for form in forms { add(form) }
            for encoded in Set([text, text.percentDecoded()]).intersection(forms).flatMap(Self.base64Forms)
            where encoded.count >= Self.shortestPart {
                add(encoded)
            }
        }
        var patterns = [[Pattern]](repeating: [], count: 256)
        for (bytes, prefix) in found { patterns[Int(bytes[0])].append(Pattern(bytes: bytes, prefix: prefix)) }
        self.patterns = patterns
        longest = found.keys.map(\.count).max() ?? 0
    }

    /// Whether there is nothing to hide.
    var isEmpty: Bool { longest == 0 }

    /// `text` with every secret hidden: each stretch of it that shows one, or several that touch, becomes one `…`.
    /// `cutBefore`: text was cut off before it, so that it may start with the end of a secret; `cutAfter`: after it.
    package func redacted(_ text: String, cutBefore: Bool = false, cutAfter: Bool = false) -> String {
        guard !isEmpty, !text.isEmpty else { return text }
        let original = Array(text.utf8)
        let bytes = original.map(Self.lowered)
        var hidden = [Bool](repeating: false, count: bytes.count)
        for start in bytes.indices {
            var reach = 0
            for pattern in patterns[Int(bytes[start])] {
                var common = 0
                while common < pattern.bytes.count, start + common < bytes.count,
                    bytes[start + common] == pattern.bytes[common]
                {
                    common += 1
                }
                if common == pattern.bytes.count || common >= (pattern.prefix ?? Int.max)
                    || (cutAfter && start + common == bytes.count)
                {
                    reach = max(reach, common)
                }
            }
            for index in start..<(start + reach) { hidden[index] = true }
        }
        if cutBefore {
            for pattern in patterns.joined() {
                let end = (1...min(pattern.bytes.count, bytes.count)).last { count in
                    bytes[..<count].elementsEqual(pattern.bytes.suffix(count))
                }
                for index in 0..<(end ?? 0) { hidden[index] = true }
            }
        }
        var output: [UInt8] = []
        output.reserveCapacity(original.count)
        var index = 0
        while index < original.count {
            guard hidden[index] else {
                output.append(original[index])
                index += 1
                continue
            }
            // The whole stretch, and the rest of a character it ends inside.
            while index < original.count, hidden[index] || Self.isContinuation(original[index]) { index += 1 }
            output += Array("…".utf8)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Which end of a text a message keeps.
    package enum End: Sendable {
        case first, last
    }

    /// `text` (a receiver's answer, a program's standard error) as a message may show it: its secrets hidden in all
    /// of it, again once its control characters are taken out (they could have split one), and only then cut to its
    /// first or last `limit` characters, so that no secret the cut straddles shows a part.
    package func message(
        _ text: String, limit: Int, keeping end: End = .first, cutBefore: Bool = false, cutAfter: Bool = false
    ) -> String {
        let hidden = redacted(text, cutBefore: cutBefore, cutAfter: cutAfter)
        let clean = redacted(TerminalText.sanitized(hidden), cutBefore: cutBefore, cutAfter: cutAfter)
        let kept = end == .first ? clean.prefix(limit) : clean.suffix(limit)
        return kept.trimmingCharacters(in: .whitespaces)
    }

    // MARK: - Forms of a secret

    /// The part of `url` after its scheme and authority: its path, query and fragment.
    static func afterHost(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        return String(url[scheme.upperBound...].drop { !"/?#".contains($0) })
    }

    /// `text` as it may be written elsewhere: percent-decoded (a `+` of a query as a space too), percent-encoded,
    /// escaped in a JSON string (as a Swift string too, for quotes, backslashes and line breaks; with `/` as `\/`).
    private static func forms(of text: String) -> Set<String> {
        var forms: Set<String> = [
            text, text.percentDecoded(), text.percentEncoded(), text.percentEncoded(keeping: "/"),
        ]
        if text.contains("+") { forms.insert(text.replacingOccurrences(of: "+", with: " ").percentDecoded()) }
        for form in forms {
            let escaped = String(JSONValue.string(form).text.dropFirst().dropLast())
            forms.insert(escaped)
            forms.insert(escaped.replacingOccurrences(of: "/", with: "\\/"))
        }
        return forms
    }

    /// `text` in base64, standard and URL-safe: as its UTF-8 bytes encode alone (with and without padding), and the
    /// characters that encode only its bytes wherever it stands in longer data (zero, one or two bytes before it).
    private static func base64Forms(of text: String) -> [String] {
        let bytes = Array(text.utf8)
        var forms: [String] = []
        for offset in 0..<3 {
            let encoded = Data(Array(repeating: 0, count: offset) + bytes).base64EncodedString()
            // The first characters carry bits of the bytes before it; a last one cut short, of the bytes after.
            let whole = (offset + bytes.count) * 8 / 6
            forms.append(String(encoded.prefix(whole).dropFirst(offset == 0 ? 0 : offset + 1)))
            if offset == 0 { forms += [encoded, String(encoded.prefix { $0 != "=" })] }
        }
        return forms
            + forms.map {
                $0.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }
}
