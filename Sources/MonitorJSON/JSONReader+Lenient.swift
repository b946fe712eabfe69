/// Reading JSON leniently, as `Decodable` conformances read it with `try?`: a value of another shape is skipped and
/// read as nil (`lenient…`), or marks the object it is in as unreadable (`strict…`).
extension JSONReader {
    /// The string that comes next; nil for any other value or a string that cannot be decoded.
    package mutating func lenientString() throws(JSONError) -> String? {
        guard try kind() == .string else {
            try skip()
            return nil
        }
        return lenient(try stringText())
    }

    /// The text of `span`; nil when it cannot be decoded.
    package func lenient(_ span: JSONText) -> String? {
        try? decoded(span)
    }

    /// The whole number that comes next; nil for any other value.
    package mutating func lenientInt() throws(JSONError) -> Int? {
        guard try kind() == .number else {
            try skip()
            return nil
        }
        return try integer().map { Int($0) }
    }

    /// The string that comes next; nil for a null; for any other value, nil with `valid` made false.
    package mutating func strictString(_ valid: inout Bool) throws(JSONError) -> String? {
        switch try kind() {
        case .null:
            try skip()
        case .string:
            if let text = lenient(try stringText()) { return text }
            valid = false
        default:
            try skip()
            valid = false
        }
        return nil
    }

    /// The whole number that comes next; nil for a null; for any other value, nil with `valid` made false.
    package mutating func strictInt(_ valid: inout Bool) throws(JSONError) -> Int? {
        switch try kind() {
        case .null:
            try skip()
        case .number:
            if let value = try integer() { return Int(value) }
            valid = false
        default:
            try skip()
            valid = false
        }
        return nil
    }

    /// The boolean that comes next; nil for a null; for any other value, nil with `valid` made false.
    package mutating func strictBool(_ valid: inout Bool) throws(JSONError) -> Bool? {
        switch try kind() {
        case .null:
            try skip()
        case .bool:
            return try bool()
        default:
            try skip()
            valid = false
        }
        return nil
    }

    /// Reads the object that comes next, handing each member to `member` with its key and whether the object is
    /// still readable (a member it leaves unread is skipped); false when it is not an object or a member made it
    /// unreadable.
    package mutating func strictObject(
        _ member: (JSONSnakeKey, inout JSONReader, inout Bool) throws(JSONError) -> Void
    ) throws(JSONError) -> Bool {
        guard try kind() == .object else {
            try skip()
            return false
        }
        var valid = true
        try members { (key, reader) throws(JSONError) in try member(JSONSnakeKey(key, in: reader), &reader, &valid) }
        return valid
    }
}
