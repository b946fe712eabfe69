/// A YAML syntax error reported by libyaml, or a structural error found while building the node tree.
public struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, e.g. "could not find expected ':' while scanning a simple key".
    public var message: String
    /// Where it went wrong: libyaml's problem position, or the offending node's mark.
    public var mark: Mark

    /// Creates an error with `message` at `mark`.
    public init(message: String, mark: Mark) {
        self.message = message
        self.mark = mark
    }

    /// The error as `LINE:COL: MESSAGE`.
    public var description: String { "\(mark): \(message)" }
}
