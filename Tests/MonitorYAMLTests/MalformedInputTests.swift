import Testing

@testable import MonitorYAML

@Suite("Malformed input throws YAMLError with libyaml's position")
struct MalformedInputTests {
    /// One malformed input and the error libyaml 0.2.5 reports for it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var yaml: String
        var expected: String

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        .init(
            name: "tab as indentation", yaml: "key:\n\tnested: 1\n",
            expected: "2:1: found character that cannot start any token while scanning for the next token"),
        .init(
            name: "tab at start of document", yaml: "\tkey: 1\n",
            expected: "1:1: found character that cannot start any token while scanning for the next token"),
        .init(
            name: "unterminated double quote", yaml: "a: \"unterminated\n",
            expected: "2:1: found unexpected end of stream while scanning a quoted scalar"),
        .init(
            name: "unterminated single quote", yaml: "a: 'unterminated\nb: 2\n",
            expected: "3:1: found unexpected end of stream while scanning a quoted scalar"),
        .init(
            name: "lone quote", yaml: "\"",
            expected: "1:2: found unexpected end of stream while scanning a quoted scalar"),
        .init(
            name: "lone ]", yaml: "]", expected: "1:1: did not find expected node content while parsing a block node"),
        .init(
            name: "] as a value", yaml: "a: ]\n",
            expected: "1:4: did not find expected node content while parsing a block node"),
        .init(
            name: "extra ] after a flow sequence", yaml: "a: [1, 2]]\n",
            expected: "1:10: did not find expected key while parsing a block mapping"),
        .init(
            name: "unclosed [", yaml: "[1, 2",
            expected: "2:1: did not find expected ',' or ']' while parsing a flow sequence"),
        .init(
            name: "unclosed {", yaml: "{a: 1",
            expected: "2:1: did not find expected ',' or '}' while parsing a flow mapping"),
        .init(name: "lone [", yaml: "[", expected: "2:1: did not find expected node content while parsing a flow node"),
        .init(
            name: "& without a name", yaml: "&\n",
            expected: "1:2: did not find expected alphabetic or numeric character while scanning an anchor"),
        .init(
            name: "& followed by a space", yaml: "a: & x\n",
            expected: "1:5: did not find expected alphabetic or numeric character while scanning an anchor"),
        .init(
            name: "* without a name", yaml: "a: *\n",
            expected: "1:5: did not find expected alphabetic or numeric character while scanning an alias"),
        .init(name: "NUL byte in a key", yaml: "a\u{0}b: 1\n", expected: "1:2: control characters are not allowed: #0"),
        .init(
            name: "NUL byte at end of line", yaml: "a: 1\u{0}\n",
            expected: "1:5: control characters are not allowed: #0"),
        .init(name: "DEL character", yaml: "a: \u{7F}\n", expected: "1:4: control characters are not allowed: #7F"),
        .init(
            name: "noncharacter U+FFFE", yaml: "a: \u{FFFE}\n",
            expected: "1:4: control characters are not allowed: #FFFE"),
        .init(
            name: "only ...", yaml: "...",
            expected: "1:1: did not find expected node content while parsing a block node"),
        .init(
            name: "mapping value on the same line", yaml: "a: b: c\n",
            expected: "1:5: mapping values are not allowed in this context"),
        .init(
            name: "over-indented key", yaml: "a: 1\n b: 2\n",
            expected: "2:3: mapping values are not allowed in this context"),
        .init(
            name: "mapping key inside a sequence", yaml: "a:\n  - b\n  c: d\n",
            expected: "3:3: did not find expected '-' indicator while parsing a block collection"),
        .init(
            name: "mapping after a top-level sequence", yaml: "- a\nb: 1\n",
            expected: "2:1: did not find expected '-' indicator while parsing a block collection"),
        .init(
            name: "under-indented block scalar line", yaml: "a: |\n  x\n b\n",
            expected: "3:2: did not find expected key while parsing a block mapping"),
        .init(
            name: "unknown escape", yaml: "a: \"\\q\"\n",
            expected: "1:5: found unknown escape character while parsing a quoted scalar"),
        .init(
            name: "unterminated verbatim tag", yaml: "!<x",
            expected: "1:4: did not find the expected '>' while scanning a tag"),
        .init(
            name: "two tags on one node", yaml: "!!str !!int x", expected: "1:7: did not find expected <document start>"
        ),
        .init(
            name: "two anchors on one node", yaml: "&a &b x", expected: "1:4: did not find expected <document start>"),
        .init(
            name: "duplicate %YAML directive", yaml: "%YAML 1.1\n%YAML 1.1\n---\n",
            expected: "2:1: found duplicate %YAML directive"),
        .init(
            name: "unknown directive", yaml: "%FOO\n",
            expected: "1:5: found unknown directive name while scanning a directive"),
        .init(
            name: "reserved indicator @", yaml: "a: @b\n",
            expected: "1:4: found character that cannot start any token while scanning for the next token"),
        .init(
            name: "indentation indicator 0", yaml: "key: |0\n  x\n",
            expected: "1:7: found an indentation indicator equal to 0 while scanning a block scalar"),
        .init(
            name: "simple key without a colon", yaml: "a:\n  b\n c: 1\n",
            expected: "3:3: mapping values are not allowed in this context"),
        .init(
            name: "error in the third document", yaml: "a: 1\n--- x\n--- [\n",
            expected: "4:1: did not find expected node content while parsing a flow node"),
    ]

    @Test("malformed input", arguments: cases)
    func malformed(_ input: Case) {
        #expect(parseError(input.yaml)?.description == input.expected)
        #expect(throws: YAMLError.self) { try YAMLParser.parse(input.yaml) }
    }

    @Test("every prefix of a valid document parses or throws, never crashes")
    func prefixes() {
        let text = "a: &x [1, {b: \"c\\u00e9\"}]\nd: |\n  lit\ne: *x\nf: 'q'\n"
        var outcomes = (parsed: 0, failed: 0)
        for length in 0...text.unicodeScalars.count {
            var prefix = String.UnicodeScalarView()
            prefix.append(contentsOf: text.unicodeScalars.prefix(length))
            do {
                _ = try YAMLParser.parseAll(String(prefix))
                outcomes.parsed += 1
            } catch {
                outcomes.failed += 1
            }
        }
        #expect(outcomes.parsed + outcomes.failed == text.unicodeScalars.count + 1)
        #expect(outcomes.failed > 0)
    }
}
