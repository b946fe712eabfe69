import MonitorYAML
import Testing

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
