import Testing

@testable import MonitorYAML

@Suite("Scalars: block strings, styles, tags and nulls")
struct ScalarTests {
    /// A block scalar and the value and style it must give.
    struct BlockCase: Sendable, CustomTestStringConvertible {
        var name: String
        var yaml: String
        var value: String
        var style: ScalarStyle
        var testDescription: String { name }
    }

    static let blockCases: [BlockCase] = [
        BlockCase(name: "literal |", yaml: "v: |\n  one\n  two\n\n\nk: x\n", value: "one\ntwo\n", style: .literal),
        BlockCase(name: "literal |-", yaml: "v: |-\n  one\n  two\n\n\nk: x\n", value: "one\ntwo", style: .literal),
        BlockCase(
            name: "literal |+",
            yaml: "v: |+\n  one\n  two\n\n\nk: x\n",
            value: "one\ntwo\n\n\n",
            style: .literal
        ),
        BlockCase(
            name: "literal |2",
            yaml: "v: |2\n    indented\n  base\n",
            value: "  indented\nbase\n",
            style: .literal
        ),
        BlockCase(
            name: "literal | at end of input without a line break",
            yaml: "v: |\n  last",
            value: "last",
            style: .literal
        ),
        BlockCase(
            name: "folded >",
            yaml: "v: >\n  one\n  two\n\n  three\n    more\n",
            value: "one two\nthree\n  more\n",
            style: .folded
        ),
        BlockCase(name: "folded >-", yaml: "v: >-\n  one\n  two\n\n", value: "one two", style: .folded),
        BlockCase(name: "folded >+", yaml: "v: >+\n  one\n  two\n\n", value: "one two\n\n", style: .folded),
    ]

    @Test("block scalars with chomping", arguments: blockCases)
    func blockScalars(_ block: BlockCase) throws {
        let node = try #require(try document(block.yaml)["v"])
        #expect(node.content == .scalar(block.value, block.style))
    }

    @Test("flow scalar styles and escapes")
    func styles() throws {
        let root = try document(
            """
            plain: some text
            single: 'it''s'
            double: "tab\\there \\u00e9 \\x41"
            nul: "a\\0b"
            multi: first
              second
            """
        )
        #expect(root["plain"]?.content == .scalar("some text", .plain))
        #expect(root["single"]?.content == .scalar("it's", .singleQuoted))
        #expect(root["double"]?.content == .scalar("tab\there é A", .doubleQuoted))
        #expect(root["nul"]?.content == .scalar("a\u{0}b", .doubleQuoted))
        #expect(root["multi"]?.content == .scalar("first second", .plain))
    }

    @Test("tags: resolved through their handles; none and the non-specific ! are nil")
    func tags() throws {
        let root = try document(
            """
            %TAG !e! tag:example.com,2024:
            ---
            str: !!str 123
            none: 123
            bang: ! 123
            local: !thing x
            custom: !e!widget x
            verbatim: !<tag:yaml.org,2002:int> 7
            seq: !!seq [a]
            map: !!map {a: b}
            """
        )
        #expect(root["str"]?.tag == "tag:yaml.org,2002:str")
        #expect(root["str"]?.scalar == "123")
        #expect(root["none"]?.tag == nil)
        #expect(root["bang"]?.tag == nil)
        #expect(root["local"]?.tag == "!thing")
        #expect(root["custom"]?.tag == "tag:example.com,2024:widget")
        #expect(root["verbatim"]?.tag == "tag:yaml.org,2002:int")
        #expect(root["seq"]?.tag == "tag:yaml.org,2002:seq")
        #expect(root["map"]?.tag == "tag:yaml.org,2002:map")
        #expect(root.tag == nil)
    }

    @Test("null values", arguments: ["k:", "k: ~", "k: null", "k: Null", "k: NULL", "k: !!null x"])
    func nulls(yaml: String) throws {
        #expect(try #require(try document(yaml)["k"]).isNull)
    }

    @Test(
        "values that are not null",
        arguments: ["k: nULL", "k: 'null'", "k: \"\"", "k: !!str null", "k: !!str", "k: []", "k: {}", "k: 0"]
    )
    func notNulls(yaml: String) throws {
        #expect(try #require(try document(yaml)["k"]).isNull == false)
    }

    @Test("conveniences answer nil for the wrong kind of node")
    func conveniences() throws {
        let root = try document("s: x\nq: [1]\nm: {a: b}\n")
        #expect(root["s"]?.scalar == "x")
        #expect(root["s"]?.sequence == nil)
        #expect(root["s"]?.mapping == nil)
        #expect(root["s"]?["a"] == nil)
        #expect(root["q"]?.sequence?.count == 1)
        #expect(root["q"]?.scalar == nil)
        #expect(root["m"]?["a"]?.scalar == "b")
        #expect(root["missing"] == nil)
        #expect(root.scalar == nil)
    }

    @Test("non-scalar keys and subscript matching any scalar style")
    func keys() throws {
        let root = try document("? [a, b]\n: seq\n'quoted': q\n")
        #expect(root.mapping?.first?.key.sequence?.map(\.scalar) == ["a", "b"])
        #expect(root["quoted"]?.scalar == "q")
    }
}
