import Foundation

/// A forward-only reader of JSON text, working on the response's bytes: the caller walks the document value by
/// value and builds only what it keeps; whatever it does not need is skipped, but still checked, so a body that
/// is not JSON is refused wherever the fault is.
///
/// Every value is read in linear time, nesting is bounded by `maximumDepth`, and strings are validated as
/// UTF-8 when they are read. Errors carry the path of the value they concern once the caller added it (see
/// `JSONError.at(_:)`).
///
/// Its steps are `public @inlinable`, not `package`: Swift 6.3 serializes the body of an `@inlinable package`
/// declaration only under package CMO (which needs library evolution), so the sources, other modules of this
/// package, would call every step out of line.
public struct JSONReader: Sendable {
    /// The deepest nesting of lists and objects accepted.
    public static let maximumDepth = 512

    /// The kind of the next value, from its first byte.
    public enum Kind: Sendable, Equatable {
        case object, array, string, number, bool, null
    }

    /// The document.
    @usableFromInline package let bytes: [UInt8]
    /// The offset of the next byte to read (set only to the end of a value read by other means, or its start).
    @usableFromInline package var offset: Int
    /// The lists and objects open around the offset.
    @usableFromInline package internal(set) var depth: Int

    /// A reader of the value at `offset` of `bytes` (its start, or one found before), as if nested `depth` deep.
    package init(_ bytes: [UInt8], at offset: Int = 0, depth: Int = 0) {
        self.bytes = bytes
        self.offset = offset
        self.depth = depth
    }

    // MARK: - Whitespace and structure

    /// Whether `byte` is JSON whitespace.
    @inlinable @inline(__always)
    public static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Skips whitespace.
    @inlinable @inline(__always)
    public mutating func skipWhitespace() {
        let start = offset
        offset = bytes.withUnsafeBufferPointer { Self.whitespaceEnd($0, from: start) }
    }

    /// The end of the whitespace at `start` of `buffer` (`start` itself when none is there); a run longer than a byte
    /// (indentation) is read eight bytes at a time.
    @inlinable @inline(__always)
    public static func whitespaceEnd(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        let count = buffer.count
        if littleEndian, index + 9 <= count, isWhitespace(buffer[index]), isWhitespace(buffer[index + 1]) {
            while index + 8 <= count {
                let word = UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self)
                let other = nonWhitespace(word)
                if other != 0 { return index + other.trailingZeroBitCount / 8 }
                index += 8
            }
        }
        while index < count, isWhitespace(buffer[index]) { index += 1 }
        return index
    }

    /// The kind of the next value (whitespace skipped); a syntax error at the end of the body or on a byte that
    /// starts no value.
    @inlinable @inline(__always)
    public mutating func kind() throws(JSONError) -> Kind {
        skipWhitespace()
        guard offset < bytes.count else { throw .truncated(bytes.count) }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: throw .syntax("unexpected '\(Self.describe(bytes[offset]))'", offset)
        }
    }

    /// Checks that only whitespace follows the document's value.
    package mutating func end() throws(JSONError) {
        skipWhitespace()
        guard offset == bytes.count else {
            throw .syntax("unexpected '\(Self.describe(bytes[offset]))' after the document", offset)
        }
    }

    /// Enters the object that must come next.
    @inlinable @inline(__always)
    public mutating func enterObject() throws(JSONError) {
        let found = try kind()
        guard found == .object else { throw .mismatch("an object", found) }
        try descend()
    }

    /// Enters the list that must come next.
    @inlinable @inline(__always)
    public mutating func enterArray() throws(JSONError) {
        let found = try kind()
        guard found == .array else { throw .mismatch("a list", found) }
        try descend()
    }

    @inlinable @inline(__always)
    mutating func descend() throws(JSONError) {
        guard depth < Self.maximumDepth else { throw .tooDeep }
        depth += 1
        offset += 1
    }

    /// The key of the object's next member, its `:` read; nil at the object's end (its `}` read). `index`
    /// counts the members read before. A key that is `likely` (ASCII letters: the member that usually comes next) is
    /// compared in place instead of scanned.
    @inlinable @inline(__always)
    public mutating func nextKey(_ index: Int, likely: StaticString = "") throws(JSONError) -> JSONText? {
        skipWhitespace()
        guard offset < bytes.count else { throw .truncated(bytes.count) }
        if bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return nil
        }
        if index > 0 {
            guard bytes[offset] == UInt8(ascii: ",") else { throw .syntax("expected ',' or '}'", offset) }
            offset += 1
            skipWhitespace()
            guard offset < bytes.count else { throw .truncated(bytes.count) }
        }
        guard bytes[offset] == UInt8(ascii: "\"") else { throw .syntax("expected a key in quotes", offset) }
        let length = likely.utf8CodeUnitCount
        let key: JSONText
        if offset + length + 1 < bytes.count, bytes[offset + length + 1] == UInt8(ascii: "\""),
            bytes.withUnsafeBufferPointer({ memoryEqual($0.baseAddress! + offset + 1, likely.utf8Start, length) })
        {
            key = JSONText(start: offset + 1, end: offset + 1 + length, escaped: false, ascii: true)
            offset += length + 2
        } else {
            key = try scanString()
        }
        skipWhitespace()
        guard offset < bytes.count else { throw .truncated(bytes.count) }
        guard bytes[offset] == UInt8(ascii: ":") else { throw .syntax("expected ':'", offset) }
        offset += 1
        return key
    }

    /// Whether the list has another element (its `,` read); false at the list's end (its `]` read). `index`
    /// counts the elements read before.
    @inlinable @inline(__always)
    public mutating func nextElement(_ index: Int) throws(JSONError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw .truncated(bytes.count) }
        if bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return false
        }
        if index > 0 {
            guard bytes[offset] == UInt8(ascii: ",") else { throw .syntax("expected ',' or ']'", offset) }
            offset += 1
        }
        return true
    }

    /// Whether `key` is `name`, byte for byte once unescaped.
    @inlinable @inline(__always)
    public func key(_ key: JSONText, is name: StaticString) -> Bool {
        guard !key.escaped else { return escapedKey(key, is: name) }
        guard key.count == name.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            memoryEqual(buffer.baseAddress! + key.start, name.utf8Start, key.count)
        }
    }

    /// `key(_:is:)` for a key with escapes.
    @usableFromInline
    func escapedKey(_ key: JSONText, is name: StaticString) -> Bool {
        string(key).utf8.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    // MARK: - Scalars

    /// Reads a null if one comes next; true when it did.
    @inlinable @inline(__always)
    public mutating func null() throws(JSONError) -> Bool {
        guard try kind() == .null else { return false }
        try literal("null")
        return true
    }

    /// The string that must come next, unescaped and checked.
    package mutating func string() throws(JSONError) -> String {
        try decoded(stringText())
    }

    /// The string that must come next as its span in the document (to be decoded with `string(_:)` if kept).
    @inlinable
    public mutating func stringText() throws(JSONError) -> JSONText {
        let found = try kind()
        guard found == .string else { throw .mismatch("a string", found) }
        return try scanString()
    }

    /// The number that must come next.
    package mutating func number() throws(JSONError) -> Double {
        let found = try kind()
        guard found == .number else { throw .mismatch("a number", found) }
        let start = offset
        let plain = bytes.withUnsafeBufferPointer { Self.plainDecimal($0, from: start) }
        if plain.end >= 0 {
            offset = plain.end
            return plain.value
        }
        try scanNumber()
        let value = bytes.withUnsafeBufferPointer { Self.double($0, from: start, to: offset) }
        guard value.isFinite else {
            throw .value("the number \(String(decoding: bytes[start..<offset], as: UTF8.self)) is out of range")
        }
        return value
    }

    /// The value of the JSON number at `start..<end` of `buffer` that ``plainDecimal(_:from:)`` does not read (an
    /// exponent, more than 19 significant digits), by `strtod` from a copy ended by a NUL, without making a `String`.
    static func double(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Double {
        let count = end - start
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { text in
            for offset in 0..<count { text[offset] = CChar(bitPattern: buffer[start + offset]) }
            text[count] = 0
            return strtod(text.baseAddress!, nil)
        }
    }

    /// The usual number at `start` of `buffer` read in one pass, its grammar checked as `numberEnd` checks it: a
    /// decimal without an exponent of at most 19 significant digits, correctly rounded. One whose digits make an
    /// integer of at most 2⁵³ and that has at most 22 decimals (16 and 17-digit coordinates nearly always) is that
    /// integer, exact as a `Double`, divided by an exact power of ten: one rounding, as `strtod` rounds (Clinger's fast
    /// path); one of up to 19 digits goes through `Float80` on x86-64 (see `quotient`). Its end is -1 for any other
    /// number, malformed or not, which `number()` reads again the general way (`double`).
    @inline(__always)
    private static func plainDecimal(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> (value: Double, end: Int)
    {
        let count = buffer.count
        var index = start
        let negative = index < count && buffer[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < count else { return (0, -1) }
        var mantissa: UInt64 = 0
        // Significant digits (those from the first that is not zero), and decimals (-1: no point).
        var digits = 0
        var fraction = -1
        if buffer[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard buffer[index] &- UInt8(ascii: "0") < 10 else { return (0, -1) }
            while index < count, case let digit = buffer[index] &- UInt8(ascii: "0"), digit < 10 {
                guard digits < 19 else { return (0, -1) }
                mantissa = mantissa * 10 + UInt64(digit)
                if mantissa != 0 { digits += 1 }
                index += 1
            }
        }
        if index < count, buffer[index] == UInt8(ascii: ".") {
            index += 1
            fraction = 0
            while index < count, case let digit = buffer[index] &- UInt8(ascii: "0"), digit < 10 {
                guard digits < 19 else { return (0, -1) }
                mantissa = mantissa * 10 + UInt64(digit)
                if mantissa != 0 { digits += 1 }
                fraction += 1
                index += 1
            }
            guard fraction > 0 else { return (0, -1) }
        }
        if index < count, buffer[index] | 0x20 == UInt8(ascii: "e") { return (0, -1) }
        guard let value = quotient(mantissa, decimals: fraction, negative: negative) else { return (0, -1) }
        return (value, index)
    }

    /// `mantissa` (at most 19 digits) divided by 10 to the power `decimals` (-1: none), negated when `negative`,
    /// correctly rounded: an integer of at most 2⁵³, exact as a `Double`, divided by an exact power of ten is one
    /// rounding, as `strtod` rounds (Clinger's fast path); a larger one goes through `Float80` on x86-64 (see below).
    /// Nil when neither applies (more than 22 decimals, or halfway): `strtod` decides.
    @inline(__always)
    private static func quotient(_ mantissa: UInt64, decimals: Int, negative: Bool) -> Double? {
        guard decimals <= 22 else { return nil }
        if mantissa <= 1 << 53 {
            let value = Double(mantissa) / powersOfTen[max(0, decimals)]
            return negative ? -value : value
        }
        #if arch(x86_64) && !os(Windows)
            // Up to 19 digits (17-digit coordinates): the integer, exact as a `Float80` (64 bits of significand), divided
            // by the exact power of ten is rounded once to 64 bits, then to a `Double`. That is the correctly rounded
            // value unless the first rounding lands exactly halfway between two doubles (the 11 bits below a double's
            // last one are 100…0): any double halfway point between the exact quotient and the `Float80` one would be
            // nearer to the quotient than the `Float80`. Halfway, `strtod` decides.
            let quotient = Float80(mantissa) / Float80(powersOfTen[max(0, decimals)])
            if quotient.significandBitPattern & 0x7FF != 0x400 {
                let value = Double(quotient)
                return negative ? -value : value
            }
        #endif
        return nil
    }

    /// 10⁰ … 10²², each exact.
    private static let powersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }

    /// The number that must come next, when it is a whole number that fits in an `Int64`; nil for another
    /// number (it is read all the same).
    package mutating func integer() throws(JSONError) -> Int64? {
        let found = try kind()
        guard found == .number else { throw .mismatch("a number", found) }
        let start = offset
        try scanNumber()
        let text = bytes.withUnsafeBufferPointer { String(decoding: $0[start..<offset], as: UTF8.self) }
        if let value = Int64(text) { return value }
        guard let value = Double(text), value.rounded() == value, abs(value) < 9.2e18 else { return nil }
        return Int64(value)
    }

    /// The boolean that must come next.
    package mutating func bool() throws(JSONError) -> Bool {
        let found = try kind()
        guard found == .bool else { throw .mismatch("a boolean", found) }
        if bytes[offset] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// The string that must come next, or nil for a null.
    package mutating func optionalString() throws(JSONError) -> String? {
        try null() ? nil : try string()
    }

    /// What `body` reads of the value that comes next; an error it throws gets `step` put before its path.
    @inlinable
    public mutating func member<T>(_ step: JSONError.Step, _ body: (inout JSONReader) throws(JSONError) -> T)
        throws(JSONError) -> T
    {
        do throws(JSONError) {
            return try body(&self)
        } catch {
            throw error.at(step)
        }
    }

    /// Reads the object that must come next, handing `body` each member's key with the reader at its value; a value
    /// `body` leaves unread is skipped. An error gets the member's key put before its path. `likely`: the keys (ASCII
    /// letters) in the order they are usually written, each compared in place before it is scanned (see
    /// `nextKey(_:likely:)`); a key elsewhere, or escaped, is read as any other.
    @inlinable @inline(__always)
    public mutating func members(
        likely: [StaticString] = [], _ body: (JSONText, inout JSONReader) throws(JSONError) -> Void
    ) throws(JSONError) {
        try enterObject()
        var index = 0
        while let key = try nextKey(index, likely: index < likely.count ? likely[index] : "") {
            index += 1
            skipWhitespace()
            let start = offset
            do throws(JSONError) {
                try body(key, &self)
                if offset == start { try skip() }
            } catch {
                throw error.at(.key(string(key)))
            }
        }
    }

    /// Reads the list that must come next, `body` reading each element; an error gets the element's index put
    /// before its path.
    @inlinable @inline(__always)
    public mutating func elements(_ body: (inout JSONReader) throws(JSONError) -> Void) throws(JSONError) {
        try enterArray()
        var index = 0
        while try nextElement(index) {
            do throws(JSONError) {
                try body(&self)
            } catch {
                throw error.at(.index(index))
            }
            index += 1
        }
    }

    /// `body` on the bytes of `span`, as written (escapes not decoded).
    @inlinable
    public func withBytes<R>(of span: JSONText, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[span.start..<span.end])) }
    }

    /// Skips the next value, whatever it is, checking its syntax; in time linear in its size.
    @usableFromInline
    package mutating func skip() throws(JSONError) {
        // Whether each list or object opened here is an object, innermost last.
        var objects = Nesting()
        repeat {
            switch try kind() {
            case .string:
                try skipString()
            case .number:
                try scanNumber()
            case .bool:
                try literal(bytes[offset] == UInt8(ascii: "t") ? "true" : "false")
            case .null:
                try literal("null")
            case .object:
                try descend()
                skipWhitespace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                    offset += 1
                    depth -= 1
                } else {
                    objects.push(true)
                    try memberKey()
                    continue
                }
            case .array:
                try descend()
                skipWhitespace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                    offset += 1
                    depth -= 1
                } else {
                    objects.push(false)
                    continue
                }
            }
            // After a value: close what ends here, then go on with the next member or element.
            while let isObject = objects.last {
                skipWhitespace()
                guard offset < bytes.count else { throw .truncated(bytes.count) }
                let byte = bytes[offset]
                if byte == UInt8(ascii: ",") {
                    offset += 1
                    if isObject { try memberKey() }
                    break
                }
                let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                guard byte == closer else { throw .syntax("expected ',' or '\(Self.describe(closer))'", offset) }
                offset += 1
                depth -= 1
                objects.pop()
            }
        } while !objects.isEmpty
    }

    /// Skips the number, or the lists of numbers at most `lists` deep (GeoJSON coordinates), that comes next,
    /// checked as `skip()` checks it, in one pass without a path; false, with nothing read, when it is any other
    /// value or not valid JSON: the caller then reads it step by step, for the error and its path.
    package mutating func skipNumbers(lists: Int) -> Bool {
        let start = offset
        let startDepth = depth
        var open = 0
        value: while true {
            skipWhitespace()
            guard offset < bytes.count else { break }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "[") {
                guard open < lists, depth < Self.maximumDepth else { break }
                open += 1
                depth += 1
                offset += 1
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "]") else { continue value }
                offset += 1
                open -= 1
                depth -= 1
            } else if byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10 {
                do throws(JSONError) { try scanNumber() } catch { break }
            } else {
                break
            }
            // After a value: close the lists that end here, then go on with the next element.
            while open > 0 {
                skipWhitespace()
                guard offset < bytes.count else { break value }
                if bytes[offset] == UInt8(ascii: ",") {
                    offset += 1
                    continue value
                }
                guard bytes[offset] == UInt8(ascii: "]") else { break value }
                offset += 1
                open -= 1
                depth -= 1
            }
            return true
        }
        offset = start
        depth = startDepth
        return false
    }

    /// Reads the `"key":` of a member while skipping.
    private mutating func memberKey() throws(JSONError) {
        skipWhitespace()
        guard offset < bytes.count else { throw .truncated(bytes.count) }
        guard bytes[offset] == UInt8(ascii: "\"") else { throw .syntax("expected a key in quotes", offset) }
        try skipString()
        skipWhitespace()
        guard offset < bytes.count else { throw .truncated(bytes.count) }
        guard bytes[offset] == UInt8(ascii: ":") else { throw .syntax("expected ':'", offset) }
        offset += 1
    }

    // MARK: - Scanning

    /// Reads `word` (`true`, `false`, `null`).
    @usableFromInline
    mutating func literal(_ word: StaticString) throws(JSONError) {
        let length = word.utf8CodeUnitCount
        guard offset + length <= bytes.count else { throw .truncated(bytes.count) }
        let same = bytes.withUnsafeBufferPointer { buffer in
            memoryEqual(buffer.baseAddress! + offset, word.utf8Start, length)
        }
        guard same else { throw .syntax("unexpected '\(Self.describe(bytes[offset]))'", offset) }
        offset += length
    }

    /// Reads the string at the offset (its opening quote), checking its escapes; its span, quotes excluded.
    @usableFromInline
    mutating func scanString() throws(JSONError) -> JSONText {
        try scanString(tracking: true)
    }

    /// `scanString()` for a string only skipped: whether it is ASCII is not worked out (`ascii` is false).
    private mutating func skipString() throws(JSONError) {
        _ = try scanString(tracking: false)
    }

    /// `scanString()`, working out whether the string is ASCII only when `tracking`.
    @inline(__always)
    private mutating func scanString(tracking: Bool) throws(JSONError) -> JSONText {
        let start = offset + 1
        var failure: (String, Int)?
        var escaped = false
        var ascii = true
        let end: Int = bytes.withUnsafeBufferPointer { buffer in
            var index = start
            let count = buffer.count
            while index < count {
                // Eight bytes at a time up to the first that is a quote, a backslash or a control character.
                var highBits: UInt64 = 0
                while Self.littleEndian, index + 8 <= count {
                    let word = UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: UInt64.self)
                    let special = Self.stringStops(word)
                    if special != 0 {
                        let plain = special.trailingZeroBitCount / 8
                        if tracking, plain > 0 { highBits |= word & (UInt64.max >> UInt64(64 - 8 * plain)) }
                        index += plain
                        break
                    }
                    if tracking { highBits |= word }
                    index += 8
                }
                if highBits & 0x8080_8080_8080_8080 != 0 { ascii = false }
                guard index < count else { break }
                let byte = buffer[index]
                if byte == UInt8(ascii: "\"") { return index }
                if byte == UInt8(ascii: "\\") {
                    escaped = true
                    index += 1
                    guard index < count else { return -1 }
                    switch buffer[index] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                        UInt8(ascii: "f"),
                        UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 1
                    case UInt8(ascii: "u"):
                        guard index + 4 < count else { return -1 }
                        for digit in buffer[(index + 1)...(index + 4)] where digit.hexValue == nil {
                            failure = ("a \\u escape needs four hex digits", index - 1)
                            return -1
                        }
                        index += 5
                    default:
                        failure = ("unknown escape '\\\(Self.describe(buffer[index]))'", index - 1)
                        return -1
                    }
                } else if byte < 0x20 {
                    failure = ("a control character inside a string", index)
                    return -1
                } else {
                    if byte >= 0x80 { ascii = false }
                    index += 1
                }
            }
            return -1
        }
        if let failure { throw .syntax(failure.0, failure.1) }
        guard end >= 0 else { throw .truncated(bytes.count) }
        offset = end + 1
        return JSONText(start: start, end: end, escaped: escaped, ascii: tracking && ascii)
    }

    /// Whether words are read least significant byte first, as the scans that read eight bytes at a time need.
    @inlinable
    public static var littleEndian: Bool {
        #if _endian(little)
            true
        #else
            false
        #endif
    }

    /// The high bit of each byte of `word` that is not JSON whitespace; zero when all eight are.
    @inlinable @inline(__always)
    public static func nonWhitespace(_ word: UInt64) -> UInt64 {
        let whitespace =
            zeroBytes(word ^ 0x2020_2020_2020_2020) | zeroBytes(word ^ 0x0A0A_0A0A_0A0A_0A0A)
            | zeroBytes(word ^ 0x0D0D_0D0D_0D0D_0D0D) | zeroBytes(word ^ 0x0909_0909_0909_0909)
        return ~whitespace & 0x8080_8080_8080_8080
    }

    /// The high bit of the first byte of `word` (in memory order, least significant first) that ends a run of plain
    /// string bytes — a quote, a backslash or a control character — and maybe of bytes after it; zero when there is
    /// none. Subtracting one from each byte that must be zero (or 0x20 from each, for the control characters) sets
    /// its high bit only when it underflows; a borrow goes up into the bytes after the first that does, never below
    /// it, so the lowest bit set is exact. Bytes of 0x80 and above, which stop nothing, are masked out by `~word`.
    @inlinable @inline(__always)
    public static func stringStops(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let borrows =
            ((word ^ 0x2222_2222_2222_2222) &- ones) | ((word ^ 0x5C5C_5C5C_5C5C_5C5C) &- ones)
            | (word &- 0x2020_2020_2020_2020)
        return borrows & ~word & 0x8080_8080_8080_8080
    }

    /// The high bit of each zero byte of `word`, exactly (no borrow from one byte into the next).
    @inlinable @inline(__always)
    public static func zeroBytes(_ word: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((word & low) &+ low) | word | low)
    }

    /// Reads the number at the offset, checking JSON's grammar: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private mutating func scanNumber() throws(JSONError) {
        let start = offset
        let end = bytes.withUnsafeBufferPointer { Self.numberEnd($0, from: start) }
        if end == -1 { throw .truncated(bytes.count) }
        if end == -2 { throw .syntax("a malformed number", start) }
        offset = end
    }

    /// The end of the JSON number at `start` of `buffer`, its grammar checked
    /// (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`); -1 when the buffer ends inside it, -2 when it is malformed.
    @inlinable @inline(__always)
    public static func numberEnd(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let count = buffer.count
        var index = start
        @inline(__always) func digits() -> Int {
            let first = index
            while index < count, buffer[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            return index - first
        }
        if index < count, buffer[index] == UInt8(ascii: "-") { index += 1 }
        guard index < count else { return -1 }
        if buffer[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return -2
        }
        if index < count, buffer[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return index < count ? -2 : -1 }
        }
        if index < count, buffer[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < count, buffer[index] == UInt8(ascii: "+") || buffer[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { return index < count ? -2 : -1 }
        }
        return index
    }

    // MARK: - Decoding strings

    /// The text of `span`, unescaped; a syntax error when it is not valid UTF-8 or has a lone surrogate.
    @usableFromInline
    package func decoded(_ span: JSONText) throws(JSONError) -> String {
        if !span.escaped {
            let text: String? = bytes.withUnsafeBufferPointer { buffer in
                let slice = UnsafeBufferPointer(rebasing: buffer[span.start..<span.end])
                return span.ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
            }
            guard let text else { throw .syntax("a string that is not valid UTF-8", span.start) }
            return text
        }
        var output: [UInt8] = []
        output.reserveCapacity(span.count)
        var index = span.start
        while index < span.end {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var value = hex4(at: index)
                index += 4
                if (0xD800..<0xDC00).contains(value) {
                    guard index + 6 <= span.end, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw .syntax("a \\u escape of a lone surrogate", index - 6) }
                    let low = hex4(at: index + 2)
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw .syntax("a \\u escape of a lone surrogate", index - 6)
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                } else if (0xDC00..<0xE000).contains(value) {
                    throw .syntax("a \\u escape of a lone surrogate", index - 6)
                }
                // Checked above: not a surrogate, at most 0x10FFFF.
                output.append(contentsOf: String(Character(Unicode.Scalar(value)!)).utf8)
            default: output.append(escape)  // " \ /
            }
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw .syntax("a string that is not valid UTF-8", span.start)
        }
        return text
    }

    /// The text of `span` (see `decoded(_:)`), with any fault replaced: for keys compared after the document
    /// was checked, and texts known to be ASCII without escapes (made from the bytes at once).
    @inlinable
    public func string(_ span: JSONText) -> String {
        guard span.ascii, !span.escaped else {
            return (try? decoded(span)) ?? String(decoding: bytes[span.start..<span.end], as: UTF8.self)
        }
        return withBytes(of: span) { String(decoding: $0, as: UTF8.self) }
    }

    private func hex4(at index: Int) -> UInt32 {
        var value: UInt32 = 0
        for byte in bytes[index..<(index + 4)] { value = value << 4 | UInt32(byte.hexValue ?? 0) }
        return value
    }

    /// A byte as shown in a message: itself when printable ASCII, else `\u{…}`.
    @usableFromInline
    static func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }
}

/// Whether `count` bytes at `a` and `b` are equal, compared eight at a time (no call into libc for a key).
@inlinable @inline(__always)
package func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    guard count >= 8 else {
        for index in 0..<count where a[index] != b[index] { return false }
        return true
    }
    @inline(__always) func word(_ pointer: UnsafePointer<UInt8>, _ index: Int) -> UInt64 {
        UnsafeRawPointer(pointer + index).loadUnaligned(as: UInt64.self)
    }
    var index = 0
    while index + 8 <= count {
        guard word(a, index) == word(b, index) else { return false }
        index += 8
    }
    return index == count || word(a, count - 8) == word(b, count - 8)
}

/// Whether each list or object open while skipping is an object, innermost last: the first 64 levels in the bits of
/// a word, so that skipping a value allocates nothing unless it nests deeper.
private struct Nesting {
    private var bits: UInt64 = 0
    private var deeper: [Bool] = []
    private var count = 0

    var isEmpty: Bool { count == 0 }

    /// Whether the innermost is an object; nil when none is open.
    var last: Bool? {
        guard count > 0 else { return nil }
        return count > 64 ? deeper[deeper.count - 1] : bits & (1 << UInt64(count - 1)) != 0
    }

    mutating func push(_ isObject: Bool) {
        if count >= 64 {
            deeper.append(isObject)
        } else if isObject {
            bits |= 1 << UInt64(count)
        } else {
            bits &= ~(1 << UInt64(count))
        }
        count += 1
    }

    mutating func pop() {
        count -= 1
        if count >= 64 { deeper.removeLast() }
    }
}
