/// A readable error a source throws: bad data, an unknown category, a response of the wrong shape.
public struct SourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for people.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
