import Testing

@testable import MonitorYAML

@Suite("Streams and documents")
struct DocumentTests {
    @Test("empty streams have no document", arguments: ["", "\n\n", "# only a comment\n", "  # indented\n# two\n"])
    func emptyStreams(yaml: String) throws {
        #expect(try YAMLParser.parse(yaml) == nil)
        #expect(try YAMLParser.parseAll(yaml) == [])
    }

    @Test("a document of only --- is a null scalar, placed where libyaml ends the stream")
    func onlyDocumentStart() throws {
        let root = try document("---")
        #expect(root.isNull)
        #expect(root.mark == Mark(line: 2, column: 1))
        #expect(try YAMLParser.parseAll("---\n") == [plain("", 2, 1)])
    }

    @Test("every document of a stream, with marks in the whole stream")
    func multipleDocuments() throws {
        let docs = try YAMLParser.parseAll("a: 1\n---\nb: 2\n...\n--- [x]\n---\n")
        #expect(docs.count == 4)
        #expect(docs[0]["a"]?.scalar == "1")
        #expect(docs[1]["b"]?.mark == Mark(line: 3, column: 4))
        #expect(docs[2].sequence == [plain("x", 5, 6)])
        #expect(docs[3].isNull)
    }

    @Test("parse returns the first document but still reads the whole stream")
    func parseFirst() throws {
        #expect(try YAMLParser.parse("first: 1\n---\nsecond: 2\n") == (try document("first: 1")))
        let error = #expect(throws: YAMLError.self) { try YAMLParser.parse("first: 1\n---\nsecond: [\n") }
        #expect(error?.mark == Mark(line: 4, column: 1))
        // libyaml ends the first document at the second tag, then fails to start another.
        #expect(throws: YAMLError.self) { try YAMLParser.parse("!!str !!int x") }
    }

    @Test("a whole document compares equal to the tree it describes")
    func wholeTree() throws {
        let list = Node(content: .sequence([plain("1", 1, 5)]), mark: Mark(line: 1, column: 4))
        let pair = Node.Pair(key: plain("k", 1, 1), value: list)
        let expected = Node(content: .mapping([pair]), mark: Mark(line: 1, column: 1))
        #expect(try YAMLParser.parse("k: [1]") == expected)
    }
}
