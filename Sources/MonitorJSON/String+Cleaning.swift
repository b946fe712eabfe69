import Foundation

/// The clean-ups a text read from an API may need before it is shown: whitespace trimmed or collapsed, HTML character
/// references decoded. Each works on the UTF-8 bytes when the text is ASCII (nearly always) and returns the text
/// itself when it needs no change.
extension String {
    /// The text without leading and trailing whitespace (Unicode's whitespace and newlines); itself when it has none.
    package func trimmingAllWhitespace() -> String {
        if let first = utf8.first, let last = utf8.last, first < 0x80, last < 0x80, !TextBytes.isSpace(first),
            !TextBytes.isSpace(last)
        {
            return self
        }
        let scalars = unicodeScalars
        guard let first = scalars.first, let last = scalars.last, Self.isSpace(first) || Self.isSpace(last) else {
            return self
        }
        guard let start = scalars.firstIndex(where: { !Self.isSpace($0) }),
            let end = scalars.lastIndex(where: { !Self.isSpace($0) })
        else { return "" }
        return String(scalars[start...end])
    }

    /// The text trimmed, with every run of whitespace inside it (tabs, line breaks, no-break spaces) made one space.
    package func collapsingWhitespace() -> String {
        let ascii = utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            return TextBytes.isCollapsed(bytes)
        }
        guard case .some(.some(let clean)) = ascii else {
            return split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        if clean { return self }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count)
        var pendingSpace = false
        for byte in utf8 {
            if TextBytes.isSpace(byte) {
                pendingSpace = !output.isEmpty
            } else {
                if pendingSpace { output.append(0x20) }
                pendingSpace = false
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The text with its HTML character references decoded once: `&amp;` → `&`, `&#39;` → `'`, `&#x2F;` → `/`. An `&`
    /// that starts no known reference is left as it is, and so are references to control characters.
    package func decodingCharacterReferences() -> String {
        let decoded = utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard bytes.contains(UInt8(ascii: "&")) else { return nil }
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return Self.decodingReferencesByCharacter(self) }
            return TextBytes.decodingReferences(ascii: bytes)
        }
        guard let decoded else { return Self.decodingReferencesByCharacter(self) }
        return decoded ?? self
    }

    /// `decodingCharacterReferences()` on characters, for text that is not ASCII.
    private static func decodingReferencesByCharacter(_ text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            output += rest[..<ampersand]
            rest = rest[ampersand...]
            if let semicolon = rest.prefix(12).firstIndex(of: ";"),
                let decoded = TextBytes.character(named: rest[rest.index(after: rest.startIndex)..<semicolon])
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

    /// Whether `scalar` is whitespace or a newline, as `CharacterSet.whitespacesAndNewlines` says, without asking it
    /// for ASCII.
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? TextBytes.isSpace(UInt8(scalar.value)) : CharacterSet.whitespacesAndNewlines.contains(scalar)
    }
}

extension JSONReader {
    /// The string that must come next as its span, checked as `string()` checks it (its text is then made with
    /// `string(_:)`, which cannot fail).
    @inlinable
    public mutating func checkedStringText() throws(JSONError) -> JSONText {
        let span = try stringText()
        if !span.ascii || span.escaped { _ = try decoded(span) }
        return span
    }

    /// The string or null that must come next as its checked span (see `checkedStringText()`); nil for a null.
    @inlinable
    public mutating func optionalStringText() throws(JSONError) -> JSONText? {
        try null() ? nil : try checkedStringText()
    }

    /// `span` without the ASCII whitespace at either end, when it is ASCII without escapes; else `span` itself (its
    /// text is then trimmed as made).
    package func trimmed(_ span: JSONText) -> JSONText {
        guard span.ascii, !span.escaped else { return span }
        return withBytes(of: span) { bytes in
            var trimmed = span
            var start = 0
            var end = bytes.count
            while start < end, TextBytes.isSpace(bytes[start]) { start += 1 }
            while end > start, TextBytes.isSpace(bytes[end - 1]) { end -= 1 }
            trimmed.start = span.start + start
            trimmed.end = span.start + end
            return trimmed
        }
    }

    /// The text of the checked `span` trimmed (see `String.trimmingAllWhitespace()`).
    package func trimmedString(_ span: JSONText) -> String {
        let trimmed = trimmed(span)
        let text = string(trimmed)
        return trimmed.ascii && !trimmed.escaped ? text : text.trimmingAllWhitespace()
    }

    /// Whether the text of the checked `span`, trimmed (see `trimmedString(_:)`), is `text`: compared in place when
    /// both are ASCII.
    package func trimmedString(_ span: JSONText, is text: String) -> Bool {
        guard span.ascii, !span.escaped else { return trimmedString(span) == text }
        let trimmed = trimmed(span)
        var text = text
        let same = text.withUTF8 { other in
            guard other.count == trimmed.count else { return false }
            guard other.count > 0 else { return true }
            return withBytes(of: trimmed) { memoryEqual($0.baseAddress!, other.baseAddress!, other.count) }
        }
        // A text that is not ASCII can still be the same characters (a Kelvin sign is a K).
        return same || (!text.utf8.allSatisfy { $0 < 0x80 } && string(trimmed) == text)
    }

    /// The string that must come next, its HTML character references decoded once and then its whitespace collapsed
    /// (a title for people); made from the bytes at once when it is ASCII with nothing to clean.
    package mutating func cleanedString() throws(JSONError) -> String {
        try cleanedString(stringText())
    }

    /// The string of `span` cleaned as `cleanedString()` cleans it.
    package func cleanedString(_ span: JSONText) throws(JSONError) -> String {
        guard span.ascii, !span.escaped else {
            return try decoded(span).decodingCharacterReferences().collapsingWhitespace()
        }
        let text = string(span)
        return withBytes(of: span, TextBytes.isClean) ? text : text.decodingCharacterReferences().collapsingWhitespace()
    }

    /// The string or null that must come next as a URL: trimmed, its HTML character references decoded once; nil when
    /// null or empty. Made from the bytes in one pass when it is ASCII without escapes.
    package mutating func referenceURL() throws(JSONError) -> String? {
        guard try !null() else { return nil }
        return try referenceURL(stringText())
    }

    /// The string of `span` as a URL (see `referenceURL()`).
    package func referenceURL(_ span: JSONText) throws(JSONError) -> String? {
        guard span.ascii, !span.escaped else {
            let text = try decoded(span).trimmingAllWhitespace()
            return text.isEmpty ? nil : text.decodingCharacterReferences()
        }
        let trimmed = trimmed(span)
        guard trimmed.count > 0 else { return nil }
        return withBytes(of: trimmed) { bytes in
            bytes.contains(UInt8(ascii: "&"))
                ? TextBytes.decodingReferences(ascii: bytes) : String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// The byte work of the clean-ups, on ASCII text.
enum TextBytes {
    /// Whitespace as `String.trimmingAllWhitespace()` takes it in ASCII text.
    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// Whether ASCII `bytes` are collapsed: no whitespace but single spaces between words.
    static func isCollapsed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var previous: UInt8 = 0x20
        for byte in bytes {
            if (0x09...0x0D).contains(byte) || (byte == 0x20 && previous == 0x20) { return false }
            previous = byte
        }
        return previous != 0x20 || bytes.isEmpty
    }

    /// Whether ASCII `bytes` need no clean-up: collapsed, without an `&`.
    static func isClean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.contains(UInt8(ascii: "&")) && isCollapsed(bytes)
    }

    /// `String.decodingCharacterReferences()` of ASCII `bytes`, written straight into the string (a reference never
    /// takes more bytes decoded than written).
    static func decodingReferences(ascii bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { output in
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
                let window = bytes[index..<Swift.min(index + 12, bytes.count)]
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

    /// The character of a reference's name (no table: a dictionary's first use in a process costs more than all the
    /// lookups of a response).
    static func character(named name: Substring) -> Character? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return "\u{A0}"
        default: break
        }
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
}
