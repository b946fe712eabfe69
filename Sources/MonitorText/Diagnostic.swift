/// A problem found in a configuration file, pointing at the text that causes it: an error (there are no warnings).
package struct Diagnostic: Sendable, Hashable, Error, CustomStringConvertible {
    /// What is wrong, in one sentence without a trailing period.
    var message: String
    /// Where; nil for a problem of the whole file.
    package var location: SourceLocation?
    /// True when the problem is that something is missing: such problems are dropped when a syntax error
    /// may have removed the missing text.
    package var isAbsence: Bool

    package static func error(_ message: String, at location: SourceLocation?, isAbsence: Bool = false) -> Diagnostic {
        Diagnostic(message: message, location: location, isAbsence: isAbsence)
    }

    /// `LINE:COL: error: MESSAGE`.
    package var description: String {
        let place = location.map { "\($0): " } ?? ""
        return "\(place)error: \(message)"
    }
}
