extension JSONValue {
    /// The value that comes next in `reader`, whole: objects keep their members in order, a whole number that fits
    /// an `Int` is an integer as written (an id past 2⁵³ keeps its digits), any other number a `Double`.
    package init(reading reader: inout JSONReader) throws(JSONError) {
        switch try reader.kind() {
        case .null:
            _ = try reader.null()
            self = .null
        case .bool:
            self = .bool(try reader.bool())
        case .string:
            self = .string(try reader.string())
        case .number:
            let start = reader.offset
            let value = try reader.number()
            let written = String(decoding: reader.bytes[start..<reader.offset], as: UTF8.self)
            self = Int(written).map(JSONValue.integer) ?? .number(value)
        case .array:
            var values: [JSONValue] = []
            try reader.elements { (reader) throws(JSONError) in values.append(try JSONValue(reading: &reader)) }
            self = .array(values)
        case .object:
            var members: [(key: String, value: JSONValue)] = []
            try reader.members { (key, reader) throws(JSONError) in
                members.append((reader.string(key), try JSONValue(reading: &reader)))
            }
            self = .object(members)
        }
    }

    /// The document `bytes`, whole.
    package static func read(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        var reader = JSONReader(bytes)
        let value = try JSONValue(reading: &reader)
        try reader.end()
        return value
    }
}
