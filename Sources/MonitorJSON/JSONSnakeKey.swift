import Foundation

/// A member's key compared as `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` would compare it:
/// `created_at` and `createdAt` both name `createdAt`. Public for `@inlinable` (see `JSONReader`).
public struct JSONSnakeKey {
    /// The key as written (escapes decoded).
    @usableFromInline let raw: JSONText
    /// The key converted from snake case, for a key that is not plain lowercase snake case; nil for a plain key,
    /// which is compared byte for byte.
    @usableFromInline let converted: String?
    /// The document.
    @usableFromInline let reader: JSONReader

    /// The key `raw` of `reader`'s document.
    @inlinable
    public init(_ raw: JSONText, in reader: JSONReader) {
        self.raw = raw
        self.reader = reader
        switch raw.escaped || !raw.ascii ? .other : reader.withBytes(of: raw, Self.shape) {
        case .plain: converted = nil
        // No field's name converts to a key with other ASCII signs (`+1` of reactions): none to convert.
        case .foreign: converted = ""
        case .other: converted = Self.convertFromSnakeCase(reader.string(raw))
        }
    }

    /// What an ASCII key without escapes is like.
    @usableFromInline
    enum Shape {
        /// Plain lowercase snake case (`isPlain`).
        case plain
        /// With a byte that is not a letter, a digit or `_`, or with `_` first or last (`_links`): it names no
        /// field, as no field's name converts to a key with a sign or an underscore.
        case foreign
        /// Any other: compared once converted.
        case other
    }

    /// The shape of `bytes`, the key as written.
    @inlinable
    static func shape(_ bytes: UnsafeBufferPointer<UInt8>) -> Shape {
        if isPlain(bytes) { return .plain }
        if bytes.first == UInt8(ascii: "_") || bytes.last == UInt8(ascii: "_") { return .foreign }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                continue
            default:
                return .foreign
            }
        }
        return .other
    }

    /// Whether the key names the field whose snake-case name is `snake` (`created_at`).
    @inlinable
    public func `is`(_ snake: StaticString) -> Bool {
        guard let converted else { return raw.count == snake.utf8CodeUnitCount && reader.key(raw, is: snake) }
        return !converted.isEmpty && converted == Self.convertFromSnakeCase(snake.description)
    }

    /// Lowercase letters and digits, with single underscores between them.
    @inlinable
    static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last, first != UInt8(ascii: "_"), last != UInt8(ascii: "_")
        else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): break
            case UInt8(ascii: "_") where previous != UInt8(ascii: "_"): break
            default: return false
            }
            previous = byte
        }
        return true
    }

    /// Foundation's conversion: leading and trailing underscores kept, the words between them joined, the first
    /// lowercased and the others capitalized.
    @usableFromInline
    static func convertFromSnakeCase(_ key: String) -> String {
        guard !key.isEmpty, let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while last > first, key[last] == "_" { key.formIndex(before: &last) }
        let words = key[first...last].split(separator: "_")
        let joined =
            words.count == 1
            ? String(key[first...last])
            : ([words[0].lowercased()] + words[1...].map { $0.capitalized }).joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }
}
