/// How a scalar was written in the source.
package enum ScalarStyle: Sendable, Hashable {
    /// Unquoted: `key: value`.
    case plain
    /// Single-quoted: `'value'`.
    case singleQuoted
    /// Double-quoted: `"value"`.
    case doubleQuoted
    /// A literal block scalar: `|`.
    case literal
    /// A folded block scalar: `>`.
    case folded
}
