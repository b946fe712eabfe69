import Testing

@testable import MonitorYAML

/// Parses `text`, requiring a document.
func document(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Node {
    try #require(try YAMLParser.parse(text), sourceLocation: sourceLocation)
}

/// The error parsing all of `text` throws, recording an issue if it throws none.
func parseError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> YAMLError? {
    #expect(throws: YAMLError.self, sourceLocation: sourceLocation) { try YAMLParser.parseAll(text) }
}

/// A plain scalar node, for comparing whole trees.
func plain(_ value: String, _ line: Int, _ column: Int) -> Node {
    Node(content: .scalar(value, .plain), mark: Mark(line: line, column: column))
}

extension Node {
    /// The string value if this is a scalar, else nil.
    var scalar: String? {
        if case .scalar(let value, _) = content { return value }
        return nil
    }

    /// The items if this is a sequence, else nil.
    var sequence: [Node]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// The value of the first pair whose key is the scalar `key`; nil if none or if this is not a mapping.
    subscript(key: String) -> Node? {
        mapping?.first { $0.key.scalar == key }?.value
    }
}

extension YAMLParser {
    /// Parses every document of the stream.
    static func parseAll(_ text: String) throws(YAMLError) -> [Node] {
        try compose(utf8: Array(text.utf8))
    }
}
