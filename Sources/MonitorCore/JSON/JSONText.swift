/// Where a string is in a JSON document: its bytes between the quotes, as `JSONReader` found them.
package struct JSONText: Sendable, Hashable {
    /// The offset of its first byte, after the opening quote.
    package var start: Int
    /// The offset of its closing quote.
    package var end: Int
    /// Whether it has a backslash escape.
    package var escaped: Bool
    /// Whether all its bytes are ASCII.
    package var ascii: Bool

    /// Its length in bytes, as written.
    package var count: Int { end - start }
}
