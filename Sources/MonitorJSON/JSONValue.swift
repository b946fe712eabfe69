import Foundation

/// A JSON value whose objects keep their keys in order, for output that scripts read and people skim.
package indirect enum JSONValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    case number(Double)
    case integer(Int)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int) { self = .integer(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(nilLiteral: ()) { self = .null }

    /// A string, or null.
    package static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    /// A date as ISO 8601 in UTC, `2026-11-22T04:10:00Z`.
    package static func date(_ date: Date) -> JSONValue { .string(ISO8601.string(date)) }

    /// The value as compact JSON text on one line.
    package var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .number(let value):
            output +=
                value.isFinite
                ? (value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)) : "null"
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let pairs):
            output += "{"
            for (index, pair) in pairs.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(pair.key, to: &output)
                output += ":"
                pair.value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _
            where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029:
                output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.text == rhs.text }
    package func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// ISO 8601 dates in UTC, as the APIs and the JSON output write them.
package enum ISO8601 {
    /// `2026-11-22T04:10:00Z`.
    package static func string(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// The date of `2026-11-22T04:10:00Z`, with or without fractional seconds or an offset; nil for another text
    /// or a date that does not exist (`parse(_:)` says why).
    package static func date(_ text: String) -> Date? {
        try? parse(text).get()
    }
}
