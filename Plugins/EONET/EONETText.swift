import Foundation

/// The text clean-ups EONET's responses need: odd whitespace, HTML entities in URLs, `35.00`-style numbers.
enum EONETText {
    /// `text` without leading and trailing whitespace.
    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `text` trimmed, with every run of whitespace inside it (tabs, line breaks, no-break spaces) made one space.
    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `text` with its HTML character references decoded once: `&amp;` → `&`, `&#39;` → `'`, `&#x2F;` → `/`.
    /// An `&` that starts no known reference is left as it is.
    static func decodingEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            rest = rest[ampersand...]
            if let semicolon = rest.prefix(12).firstIndex(of: ";"),
                let decoded = character(named: rest[rest.index(after: rest.startIndex)..<semicolon])
            {
                output.append(decoded)
                rest = rest[rest.index(after: semicolon)...]
            } else {
                output.append("&")
                rest = rest.dropFirst()
            }
        }
        return output + rest
    }

    private static let named: [Substring: Character] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
    ]

    private static func character(named name: Substring) -> Character? {
        if let character = named[name] { return character }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let value =
            digits.hasPrefix("x") || digits.hasPrefix("X")
            ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        // Control characters are not decoded: they stay as written and cannot reach a terminal raw.
        guard let value, value >= 0x20, value != 0x7F, !(0x80..<0xA0).contains(value),
            let scalar = Unicode.Scalar(value)
        else { return nil }
        return Character(scalar)
    }

    /// `35`, `100.25`, `-95.1234`: at most `fractionDigits` decimals, no trailing zeros, no `-0`.
    static func number(_ value: Double, fractionDigits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var text = String(format: "%.\(fractionDigits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
