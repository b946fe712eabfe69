import Foundation
import MonitorCore
import MonitorJSON

/// The text clean-ups EONET's responses need: odd whitespace, HTML character references, dates. Each works on the
/// UTF-8 bytes when the text is ASCII (nearly always) and leaves text that needs no change as it is.
enum EONETText {
    /// `text` without leading and trailing whitespace (Unicode's whitespace and newlines); `text` itself when it
    /// has none.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last, isSpace(first) || isSpace(last) else { return text }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }),
            let end = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[start...end])
    }

    /// Whether `scalar` is whitespace or a newline, as `CharacterSet.whitespacesAndNewlines` says, without asking
    /// it for ASCII.
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            ? scalar == " " || (0x09...0x0D).contains(scalar.value)
            : CharacterSet.whitespacesAndNewlines.contains(scalar)
    }

    /// `text` trimmed, with every run of whitespace inside it (tabs, line breaks, no-break spaces) made one space.
    static func collapsed(_ text: String) -> String {
        guard isASCII(text) else { return text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        // Already collapsed: no whitespace but single spaces between words.
        var previousSpace = true
        var clean = true
        for byte in text.utf8 {
            if isSpace(byte) {
                if previousSpace || byte != 0x20 {
                    clean = false
                    break
                }
                previousSpace = true
            } else {
                previousSpace = false
            }
        }
        if clean, !previousSpace || text.isEmpty { return text }
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
            if isSpace(byte) {
                pendingSpace = !output.isEmpty
            } else {
                if pendingSpace { output.append(0x20) }
                pendingSpace = false
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A title or a description: its HTML character references decoded once, then its whitespace collapsed.
    static func cleaned(_ text: String) -> String {
        collapsed(decodingEntities(text))
    }

    /// The string that must come next, cleaned as a title (see `cleaned(_:)`); read straight from the bytes when
    /// it is ASCII with nothing to clean.
    static func cleaned(_ reader: inout JSONReader) throws(JSONError) -> String {
        let span = try reader.stringText()
        guard span.ascii, !span.escaped else { return cleaned(try reader.decoded(span)) }
        return cleaned(ascii: span, reader)
    }

    /// The string `span` of `reader`'s document, ASCII without escapes, cleaned as a title.
    static func cleaned(ascii span: JSONText, _ reader: JSONReader) -> String {
        let text = reader.string(span)
        return reader.withBytes(of: span, isClean) ? text : cleaned(text)
    }

    /// Whether ASCII `bytes` need no clean-up: no `&`, no whitespace but single spaces between words.
    static func isClean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var previous: UInt8 = 0x20
        for byte in bytes {
            if byte == UInt8(ascii: "&") || (0x09...0x0D).contains(byte) || (byte == 0x20 && previous == 0x20) {
                return false
            }
            previous = byte
        }
        return previous != 0x20 || bytes.isEmpty
    }

    /// A source's or a link's URL that must come next (or null): trimmed, its HTML character references decoded
    /// once; nil when null or empty. Made from the bytes in one pass when it is ASCII without escapes.
    static func url(_ reader: inout JSONReader) throws(JSONError) -> String? {
        guard try !reader.null() else { return nil }
        let span = try reader.stringText()
        guard span.ascii, !span.escaped else {
            let text = trimmed(try reader.decoded(span))
            return text.isEmpty ? nil : decodingEntities(text)
        }
        return reader.withBytes(of: span) { bytes in
            var start = 0
            var end = bytes.count
            while start < end, isSpace(bytes[start]) { start += 1 }
            while end > start, isSpace(bytes[end - 1]) { end -= 1 }
            guard start < end else { return nil }
            return decodingEntities(ascii: UnsafeBufferPointer(rebasing: bytes[start..<end]))
        }
    }

    /// `text` with its HTML character references decoded once: `&amp;` → `&`, `&#39;` → `'`, `&#x2F;` → `/`.
    /// An `&` that starts no known reference is left as it is.
    static func decodingEntities(_ text: String) -> String {
        let ampersand =
            text.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "&")) }
            ?? text.utf8.contains(UInt8(ascii: "&"))
        guard ampersand else { return text }
        guard isASCII(text) else { return decodingEntitiesByCharacter(text) }
        var text = text
        return text.withUTF8(decodingEntities(ascii:))
    }

    /// `decodingEntities(_:)` of ASCII `bytes`, written straight into the string (a reference never takes more
    /// bytes decoded than written).
    static func decodingEntities(ascii bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count) { output in
            var count = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "&") else {
                    output[count] = byte
                    count += 1
                    index += 1
                    continue
                }
                // `&amp;`, the commonest, without a lookup.
                if index + 4 < bytes.count, bytes[index + 1] == UInt8(ascii: "a"),
                    bytes[index + 2] == UInt8(ascii: "m"), bytes[index + 3] == UInt8(ascii: "p"),
                    bytes[index + 4] == UInt8(ascii: ";")
                {
                    output[count] = byte
                    count += 1
                    index += 5
                    continue
                }
                // The `;` must be within 12 characters of the `&`, the `&` included.
                let window = bytes[index..<min(index + 12, bytes.count)]
                if let semicolon = window.firstIndex(of: UInt8(ascii: ";")),
                    let decoded = character(
                        named: Substring(
                            decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<semicolon]), as: UTF8.self))
                {
                    for unit in String(decoded).utf8 {
                        output[count] = unit
                        count += 1
                    }
                    index = semicolon + 1
                } else {
                    output[count] = byte
                    count += 1
                    index += 1
                }
            }
            return count
        }
    }

    /// `decodingEntities` on characters, for text that is not ASCII.
    private static func decodingEntitiesByCharacter(_ text: String) -> String {
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

    /// The character of a named reference (no table: a dictionary's first use in a process costs more than all the
    /// lookups of a response).
    private static func named(_ name: Substring) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return "\u{A0}"
        default: return nil
        }
    }

    private static func character(named name: Substring) -> Character? {
        if let character = named(name) { return character }
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

    /// The ISO-8601 date that must come next as a string (with or without fractional seconds), whitespace
    /// around it ignored.
    static func date(_ reader: inout JSONReader) throws(JSONError) -> Date {
        let span = try reader.stringText()
        if !span.escaped, let date = reader.withBytes(of: span, ISO8601.fixedDate) { return date }
        let text = trimmed(try reader.decoded(span))
        switch ISO8601.parse(text) {
        case .success(let date): return date
        case .failure(.shape): throw .value("not an ISO-8601 date: '\(text)'")
        case .failure(.impossible(let reason)): throw .value("not a date of the calendar (\(reason)): '\(text)'")
        }
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func isASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? text.utf8.allSatisfy { $0 < 0x80 }
    }
}
