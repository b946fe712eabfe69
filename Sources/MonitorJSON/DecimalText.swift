import Foundation

/// Decimal numbers written for people: `35`, `100.25`, `-95.1234`, as `printf`'s `%.Nf` writes them, then trimmed;
/// straight into a buffer without `printf` for the usual values.
package enum DecimalText {
    /// `35`, `100.25`, `-95.1234`: at most `fractionDigits` decimals (rounded as `printf` does), no trailing
    /// zeros, no `-0`.
    package static func number(_ value: Double, fractionDigits: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            guard let count = write(value, fractionDigits: fractionDigits, into: buffer) else {
                return printed(value, fractionDigits: fractionDigits)
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }

    /// `number(_:fractionDigits:)` written into `buffer` (24 bytes at least): the count of bytes; nil when the
    /// value needs `printf` (not finite, or 10⁹ units of the last digit or more).
    package static func write(_ value: Double, fractionDigits: Int, into buffer: UnsafeMutableBufferPointer<UInt8>)
        -> Int?
    {
        guard value.isFinite, (0...9).contains(fractionDigits) else { return nil }
        let scale = UInt64(powersOfTen[fractionDigits])
        // The value's magnitude times the scale is exactly `product + error` (a fused multiply-add gives the
        // product's rounding error exactly), so the nearest integer to it is found exactly, as printf finds it:
        // an exact tie goes to the even neighbour. No guess near a tie, no printf.
        let product = value.magnitude * Double(scale)
        guard product < 1e9 else { return nil }
        let error = (-product).addingProduct(value.magnitude, Double(scale))
        let below = product.rounded(.down)
        // Sign of (exact product − below − ½): `product − below − ½` is exact this close to a tie.
        let beyondHalf = ((product - below) - 0.5) + error
        var rounded = UInt64(below)
        if beyondHalf > 0 || (beyondHalf == 0 && rounded % 2 == 1) { rounded += 1 }
        let units = value < 0 ? -Int64(rounded) : Int64(rounded)
        var count = 0
        if units < 0 {
            buffer[0] = UInt8(ascii: "-")
            count = 1
        }
        let magnitude = units.magnitude
        count += writeDigits(magnitude / scale, into: UnsafeMutableBufferPointer(rebasing: buffer[count...]))
        var fraction = magnitude % scale
        if fraction != 0 {
            var digits = fractionDigits
            while fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            buffer[count] = UInt8(ascii: ".")
            for index in stride(from: count + digits, to: count, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
            }
            count += 1 + digits
        }
        if units == 0 { return writeDigits(0, into: buffer) }
        return count
    }

    /// The decimal digits of `value` at the start of `buffer`; their count.
    private static func writeDigits(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        var value = value
        for index in stride(from: count - 1, through: 0, by: -1) {
            buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
        }
        return count
    }

    /// `number(_:fractionDigits:)` through `printf`'s `%.Nf`.
    private static func printed(_ value: Double, fractionDigits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var text = String(format: "%.\(fractionDigits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    private static let powersOfTen: [Int64] = [
        1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
    ]
}
