/// A position in the source text; line and column count from 1.
///
/// Column counts Unicode scalars (characters as libyaml counts them), not bytes: in `é: x` the `x` is at column 4.
package struct Mark: Sendable, Hashable, CustomStringConvertible {
    /// The line, counting from 1.
    package var line: Int
    /// The column, counting from 1, in Unicode scalars.
    package var column: Int

    /// The mark as `LINE:COL`.
    package var description: String { "\(line):\(column)" }
}
