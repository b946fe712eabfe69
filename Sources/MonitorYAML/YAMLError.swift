/// A YAML syntax error reported by libyaml, or a structural error found while building the node tree.
package struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, e.g. "could not find expected ':' while scanning a simple key".
    package var message: String
    /// Where it went wrong: libyaml's problem position, or the offending node's mark.
    package var mark: Mark

    /// The error as `LINE:COL: MESSAGE`.
    package var description: String { "\(mark): \(message)" }
}
