/// Where a string is in a JSON document: its bytes between the quotes, as `JSONReader` found them.
public struct JSONText: Sendable, Hashable {
    /// The offset of its first byte, after the opening quote.
    public var start: Int
    /// The offset of its closing quote.
    public var end: Int
    /// Whether it has a backslash escape.
    public var escaped: Bool
    /// Whether all its bytes are ASCII.
    public var ascii: Bool

    /// A span of the document.
    @usableFromInline
    init(start: Int, end: Int, escaped: Bool, ascii: Bool) {
        self.start = start
        self.end = end
        self.escaped = escaped
        self.ascii = ascii
    }

    /// Its length in bytes, as written.
    public var count: Int { end - start }
}
