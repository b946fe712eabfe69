import Testing

@testable import MonitorYAML

@Suite("Anchors, aliases and merge keys")
struct AliasTests {
    @Test("an alias is a copy of the anchored node, anchor and mark included")
    func aliasCopies() throws {
        let root = try document("a: &x {k: v}\nb: *x\nc: &s text\nd: [*s, *s]\n")
        let anchored = try #require(root["a"])
        #expect(anchored.anchor == "x")
        #expect(root["b"] == anchored)
        #expect(root["b"]?.mark == Mark(line: 1, column: 7))
        var text = plain("text", 3, 7)
        text.anchor = "s"
        #expect(root["d"]?.sequence == [text, text])
    }

    @Test("a later anchor with the same name replaces the earlier one")
    func redefinedAnchor() throws {
        let root = try document("- &a one\n- *a\n- &a two\n- *a\n")
        #expect(root.sequence?.map(\.scalar) == ["one", "one", "two", "two"])
    }

    @Test("an unknown alias is an error at the alias")
    func unknownAlias() {
        let error = parseError("a: 1\nb:\n  - *missing\n")
        #expect(error == YAMLError(message: "unknown alias 'missing'", mark: Mark(line: 3, column: 5)))
    }

    @Test("an alias to its own enclosing node is unknown, so no cycle can be built")
    func selfReference() {
        #expect(parseError("&a [1, *a]\n")?.description == "1:8: unknown alias 'a'")
    }

    @Test("anchors do not carry over from one document to the next")
    func anchorsPerDocument() {
        #expect(parseError("--- &a 1\n--- *a\n")?.description == "2:5: unknown alias 'a'")
    }

    @Test("merge: explicit keys win, merged pairs take the place of the << key")
    func mergeOverrides() throws {
        let root = try document(
            """
            base: &base
              interval: 60
              timeout: 5
              retries: 3
            source:
              name: first
              <<: *base
              timeout: 10
            """
        )
        let source = try #require(root["source"])
        #expect(source.mapping?.map(\.key.scalar) == ["name", "interval", "retries", "timeout"])
        #expect(source["timeout"]?.scalar == "10")
        #expect(source["interval"] == plain("60", 2, 13))
        #expect(source.mapping?.map(\.key.mark.line) == [6, 2, 4, 8])
    }

    @Test("merge: earlier mappings of a << sequence win over later ones")
    func mergeSequence() throws {
        let root = try document(
            """
            a: &a {k: from-a, only-a: 1}
            b: &b {k: from-b, only-b: 2, z: b}
            m:
              <<: [*a, *b, {k: inline, w: 3}]
              z: own
            """
        )
        let merged = try #require(root["m"]?.mapping)
        #expect(merged.map(\.key.scalar) == ["k", "only-a", "only-b", "w", "z"])
        #expect(merged.map(\.value.scalar) == ["from-a", "1", "2", "3", "own"])
    }

    @Test("merge: an inline mapping, and nested merges resolved before being merged again")
    func mergeNested() throws {
        let root = try document(
            """
            one: &one {a: 1}
            two: &two
              <<: *one
              b: 2
            three:
              <<: *two
              <<: {c: 3, a: ignored}
            """
        )
        let three = try #require(root["three"])
        #expect(three.mapping?.map(\.key.scalar) == ["a", "b", "c"])
        #expect(three.mapping?.map(\.value.scalar) == ["1", "2", "3"])
    }

    @Test("a quoted '<<' is an ordinary key")
    func quotedMergeKey() throws {
        let root = try document("a: &a {k: v}\nb:\n  '<<': *a\n")
        #expect(root["b"]?.mapping?.map(\.key.scalar) == ["<<"])
    }

    /// A merge whose value is not a mapping, and where the error must point.
    struct MergeErrorCase: Sendable, CustomTestStringConvertible {
        var name: String
        var yaml: String
        var mark: Mark
        var testDescription: String { name }
    }

    static let mergeErrorCases: [MergeErrorCase] = [
        MergeErrorCase(name: "alias of a scalar", yaml: "a: &s text\nm:\n  <<: *s\n", mark: Mark(line: 3, column: 7)),
        MergeErrorCase(name: "inline scalar", yaml: "m:\n  <<: text\n", mark: Mark(line: 2, column: 7)),
        MergeErrorCase(name: "empty value", yaml: "m:\n  <<:\n  k: v\n", mark: Mark(line: 2, column: 6)),
        MergeErrorCase(
            name: "sequence in a sequence",
            yaml: "a: &a {k: v}\nm:\n  <<: [*a, [1]]\n",
            mark: Mark(line: 3, column: 12)
        ),
        MergeErrorCase(
            name: "alias of a scalar in a sequence",
            yaml: "a: &a {k: v}\ns: &s str\nm:\n  <<:\n    - *a\n    - *s\n",
            mark: Mark(line: 6, column: 7)
        ),
    ]

    @Test("merge values that are not mappings are errors where they appear", arguments: mergeErrorCases)
    func mergeErrors(_ merge: MergeErrorCase) {
        let message = "the value of the merge key '<<' must be a mapping or a sequence of mappings"
        #expect(parseError(merge.yaml) == YAMLError(message: message, mark: merge.mark))
    }

    @Test("duplicate explicit keys are kept, in order")
    func duplicateKeys() throws {
        let root = try document("a: 1\nb: 2\na: 3\n")
        #expect(root.mapping?.map(\.key.scalar) == ["a", "b", "a"])
        #expect(root.mapping?.map(\.value.scalar) == ["1", "2", "3"])
        #expect(root["a"]?.scalar == "1")
    }
}
