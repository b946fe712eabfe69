extension JSONReader {
    /// What `body` reads of `bytes`, which must hold nothing after it but white space.
    package static func document<Value>(
        _ bytes: [UInt8], _ body: (inout JSONReader) throws(JSONError) -> Value
    ) throws(JSONError) -> Value {
        var reader = JSONReader(bytes)
        let value = try body(&reader)
        try reader.end()
        return value
    }
}

extension JSONValue {
    /// The most values ``read(_:maximumValues:)`` builds by default: a body of tiny values would otherwise become a
    /// tree many times its size.
    package static let maximumValues = 2_000_000

    /// The document `bytes`, whole: objects keep their members in order, a whole number that fits an `Int` is an
    /// integer as written (an id past 2⁵³ keeps its digits), any other number a `Double`. A document of more than
    /// `maximumValues` values is refused.
    package static func read(_ bytes: [UInt8], maximumValues: Int = maximumValues) throws(JSONError) -> JSONValue {
        var reader = JSONReader(bytes)
        var budget = (left: maximumValues, limit: maximumValues)
        let value = try value(&reader, budget: &budget)
        try reader.end()
        return value
    }

    /// The value that comes next in `reader`, counted against `budget`.
    private static func value(_ reader: inout JSONReader, budget: inout (left: Int, limit: Int)) throws(JSONError)
        -> JSONValue
    {
        budget.left -= 1
        guard budget.left >= 0 else { throw .value("more than \(budget.limit) values: too large to read whole") }
        switch try reader.kind() {
        case .null:
            _ = try reader.null()
            return .null
        case .bool:
            return .bool(try reader.bool())
        case .string:
            return .string(try reader.string())
        case .number:
            let start = reader.offset
            let number = try reader.number()
            let written = String(decoding: reader.bytes[start..<reader.offset], as: UTF8.self)
            return Int(written).map(JSONValue.integer) ?? .number(number)
        case .array:
            var values: [JSONValue] = []
            try reader.elements { (reader) throws(JSONError) in values.append(try value(&reader, budget: &budget)) }
            return .array(values)
        case .object:
            var members: [(key: String, value: JSONValue)] = []
            try reader.members { (key, reader) throws(JSONError) in
                members.append((reader.string(key), try value(&reader, budget: &budget)))
            }
            return .object(members)
        }
    }
}
