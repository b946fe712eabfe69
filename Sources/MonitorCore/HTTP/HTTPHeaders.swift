/// HTTP header fields in order, looked up without regard to case.
package struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    private(set) var fields: [Field]

    package struct Field: Sendable, Hashable {
        package var name: String
        package var value: String
    }

    /// Headers from name–value pairs, in order.
    package init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// What is wrong with `name` as a header a user sets: not an HTTP token, or one of `reserved` (lower-case), which
    /// monitor sets itself; nil when nothing is.
    package static func problem(name: String, reserved: [String]) -> String? {
        let token = Set("!#$%&'*+-.^_`|~")
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || token.contains($0)) })
        else { return "a header name has letters, digits and !#$%&'*+-.^_`|~" }
        return reserved.contains(name.lowercased()) ? "monitor sets this header itself" : nil
    }

    /// The first value of `name`, compared without regard to case.
    package subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    package mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` by one with `value`.
    mutating func set(_ name: String, _ value: String) {
        let lowered = name.lowercased()
        fields.removeAll { $0.name.lowercased() == lowered }
        add(name, value)
    }

    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}
