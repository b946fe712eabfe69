/// A readable error a source throws: bad data, an unknown category, a response of the wrong shape.
package struct SourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for people.
    package var message: String

    /// An error saying `message`.
    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
