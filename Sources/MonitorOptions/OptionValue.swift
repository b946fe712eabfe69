import MonitorText

/// A typed option value.
package enum OptionValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case boolean(Bool)
    case duration(Duration)
    case byteSize(Int)
    case list([String])
    /// Names and their text, from a YAML mapping.
    case mapping([String: String])

    /// The value as a user would write it in `feeds.yaml`.
    package var description: String {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .boolean(let value): String(value)
        case .duration(let value): DurationFormat.string(value)
        case .byteSize(let value): ByteSizeFormat.string(value)
        case .list(let values): "[" + values.joined(separator: ", ") + "]"
        case .mapping(let values):
            "{" + values.sorted { $0.key < $1.key }.map { "\($0): \($1)" }.joined(separator: ", ") + "}"
        }
    }
}
