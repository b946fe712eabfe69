/// Why the state could not be opened, read or written, said for people: no SQL, no error domains.
package struct StateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, naming the file.
    package var message: String
    /// Whether the state's database could not be reached or did not answer (no connection, a connection ended, no
    /// answer within the deadline): no fault of any feed, and over once the database answers again.
    package var isUnreachable: Bool

    package init(_ message: String) {
        self.message = message
        isUnreachable = false
    }

    /// The state's database could not be reached or did not answer: `message` says which and why.
    package static func unreachable(_ message: String) -> StateError {
        var error = StateError(message)
        error.isUnreachable = true
        return error
    }

    package var description: String { message }
}
