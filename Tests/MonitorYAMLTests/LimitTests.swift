import Testing

@testable import MonitorYAML

@Suite("Limits on nesting and alias expansion")
struct LimitTests {
    @Test("256 nested collections parse")
    func deepestAccepted() throws {
        let root = try document(String(repeating: "[", count: 256) + String(repeating: "]", count: 256))
        var depth = 0
        var node: Node? = root
        while let items = node?.sequence {
            depth += 1
            node = items.first
        }
        #expect(depth == 256)
    }

    @Test("the 257th nested collection is an error at its bracket")
    func firstRejected() {
        let error = parseError(String(repeating: "[", count: 257) + String(repeating: "]", count: 257))
        #expect(error == YAMLError(message: "nesting deeper than 256 levels", mark: Mark(line: 1, column: 257)))
    }

    @Test("10,000 unclosed brackets throw instead of overflowing the stack")
    func veryDeep() {
        let brackets = parseError(String(repeating: "[", count: 10_000))
        #expect(brackets?.description == "1:257: nesting deeper than 256 levels")
        #expect(parseError(String(repeating: "{a: ", count: 10_000))?.mark == Mark(line: 1, column: 1025))
    }

    @Test("deep block nesting is counted the same way")
    func deepBlock() {
        let yaml = (0..<300).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n") + " v\n"
        #expect(parseError(yaml)?.description == "257:257: nesting deeper than 256 levels")
    }

    @Test("an alias cannot nest a deep anchored node deeper than the limit")
    func deepAlias() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let wrapped = String(repeating: "[", count: 100) + "*deep" + String(repeating: "]", count: 100)
        let yaml = "a: &deep \(deep)\nb: \(wrapped)"
        #expect(parseError(yaml)?.description == "2:104: nesting deeper than 256 levels")
    }

    @Test("billion laughs: alias expansion is bounded")
    func billionLaughs() {
        var lines = ["a: &a [" + Array(repeating: "\"lol\"", count: 9).joined(separator: ", ") + "]"]
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for (previous, name) in zip(names, names.dropFirst()) {
            let aliases = Array(repeating: "*\(previous)", count: 9).joined(separator: ", ")
            lines.append("\(name): &\(name) [\(aliases)]")
        }
        let error = parseError(lines.joined(separator: "\n") + "\n")
        #expect(error?.message == "document expands to more than 1000000 nodes (alias expansion)")
        // a…f materialize 672,610 nodes; the first *f on line g adds 597,871 more.
        #expect(error?.mark == Mark(line: 7, column: 8))
    }

    @Test("a large expansion under the limit is fine")
    func underTheLimit() throws {
        // 10 + 1 + 10·10 + 1 + 10·111 + … : five levels of ten stay far below a million.
        var lines = ["a: &a [" + Array(repeating: "x", count: 10).joined(separator: ", ") + "]"]
        let names = ["a", "b", "c", "d", "e"]
        for (previous, name) in zip(names, names.dropFirst()) {
            let aliases = Array(repeating: "*\(previous)", count: 10).joined(separator: ", ")
            lines.append("\(name): &\(name) [\(aliases)]")
        }
        let root = try document(lines.joined(separator: "\n"))
        #expect(root["e"]?.sequence?.first?.sequence?.count == 10)
    }
}
