import Testing

@testable import MonitorYAML

@Suite("Marks: exact line and column of every kind of node")
struct MarkTests {
    @Test("Mark and error descriptions are LINE:COL")
    func descriptions() {
        #expect(Mark(line: 3, column: 14).description == "3:14")
        #expect(YAMLError(message: "boom", mark: Mark(line: 2, column: 5)).description == "2:5: boom")
    }

    @Test("keys, values, sequence items and nested mappings")
    func blockStructure() throws {
        let root = try document(
            """
            name: monitor
            sources:
              - kind: github
                repos: [a/b, "c/d"]
              - kind: eonet
            limits:
              depth:   3
            """
        )
        #expect(root.mark == Mark(line: 1, column: 1))
        let pairs = try #require(root.mapping)
        #expect(pairs.map(\.key.mark) == [1, 2, 6].map { Mark(line: $0, column: 1) })
        #expect(root["name"]?.mark == Mark(line: 1, column: 7))

        let sources = try #require(root["sources"])
        #expect(sources.mark == Mark(line: 3, column: 3))
        let items = try #require(sources.sequence)
        #expect(items.map(\.mark) == [Mark(line: 3, column: 5), Mark(line: 5, column: 5)])
        #expect(items[0].mapping?.map(\.key.mark) == [Mark(line: 3, column: 5), Mark(line: 4, column: 5)])
        #expect(items[0]["kind"]?.mark == Mark(line: 3, column: 11))

        let repos = try #require(items[0]["repos"])
        #expect(repos.mark == Mark(line: 4, column: 12))
        #expect(repos.sequence?.map(\.mark) == [Mark(line: 4, column: 13), Mark(line: 4, column: 18)])

        let limits = try #require(root["limits"])
        #expect(limits.mark == Mark(line: 7, column: 3))
        #expect(limits["depth"]?.mark == Mark(line: 7, column: 12))
    }

    @Test("a sequence indented like its parent's keys starts at its first dash")
    func indentlessSequence() throws {
        let root = try document("list:\n- a\n- b\n")
        #expect(root["list"]?.mark == Mark(line: 2, column: 1))
        #expect(root["list"]?.sequence?.map(\.mark) == [Mark(line: 2, column: 3), Mark(line: 3, column: 3)])
    }

    @Test("flow mappings start at the brace, their keys where they are")
    func flowMapping() throws {
        let root = try document("point: { x: 1,  y: 22 }\n")
        let point = try #require(root["point"])
        #expect(point.mark == Mark(line: 1, column: 8))
        #expect(point.mapping?.map(\.key.mark) == [Mark(line: 1, column: 10), Mark(line: 1, column: 17)])
        #expect(point["y"]?.mark == Mark(line: 1, column: 20))
    }

    @Test("quoted scalars start at the quote, block scalars at the indicator")
    func scalarStarts() throws {
        let root = try document("a: 'single'\nb: \"double\"\nc: |\n  text\nd: >-\n  text\n")
        #expect(root["a"]?.mark == Mark(line: 1, column: 4))
        #expect(root["b"]?.mark == Mark(line: 2, column: 4))
        #expect(root["c"]?.mark == Mark(line: 3, column: 4))
        #expect(root["d"]?.mark == Mark(line: 5, column: 4))
    }

    @Test("an empty value is where libyaml puts it: just after the colon")
    func emptyValue() throws {
        let root = try document("a:\nb: 1\n")
        #expect(root["a"]?.mark == Mark(line: 1, column: 3))
        #expect(root["a"]?.isNull == true)
    }

    @Test("columns count Unicode scalars, not bytes or grapheme clusters")
    func unicodeColumns() throws {
        // é is 2 UTF-8 bytes, 日 and 本 3 each, 😀 4: libyaml counts each as one column.
        let root = try document("é: x\n日本: [a, b]\n😀😀: 'q'\nk: é日😀 v\ne\u{301}: y\n")
        let pairs = try #require(root.mapping)
        #expect(pairs[0].value.mark == Mark(line: 1, column: 4))
        #expect(pairs[1].value.mark == Mark(line: 2, column: 5))
        #expect(pairs[1].value.sequence?.map(\.mark) == [Mark(line: 2, column: 6), Mark(line: 2, column: 9)])
        #expect(pairs[2].value.mark == Mark(line: 3, column: 5))
        #expect(pairs[3].value.scalar == "é日😀 v")
        // "e" followed by a combining acute accent is one character on screen but two Unicode scalars.
        #expect(pairs[4].key.scalar == "e\u{301}")
        #expect(pairs[4].value.mark == Mark(line: 5, column: 5))
    }

    @Test("errors after multi-byte characters on the same line")
    func unicodeErrorColumns() {
        #expect(parseError("é日本: a: b\n")?.description == "1:7: mapping values are not allowed in this context")
        #expect(parseError("😀: [1, 2]]\n")?.mark == Mark(line: 1, column: 10))
        #expect(parseError("k: \"é\\q\"\n")?.mark == Mark(line: 1, column: 6))
        #expect(parseError("a: é\u{0}\n")?.description == "1:5: control characters are not allowed: #0")
    }

    @Test("CRLF line endings count as one line break")
    func crlf() throws {
        let root = try document("a: 1\r\nb: é\r\nc: 3\r\n")
        #expect(root.mapping?.map(\.key.mark) == [1, 2, 3].map { Mark(line: $0, column: 1) })
        #expect(root["c"]?.mark == Mark(line: 3, column: 4))
    }

    @Test("a leading byte order mark does not shift columns")
    func byteOrderMark() throws {
        let root = try document("\u{FEFF}a: 1\n")
        #expect(root.mapping?.first?.key.mark == Mark(line: 1, column: 1))
        #expect(root["a"]?.mark == Mark(line: 1, column: 4))
    }

    @Test("an anchor or tag in front of a node is not part of it")
    func properties() throws {
        let root = try document(
            """
            a: &m
              x: 1
            b: &s
            - 1
            c:
              &t
              - 2
            d: &q [1]
            e: !!str
              # comment
              val
            f: &h !!map {x: 1}
            g: &e
            h: &a "quoted"
            """
        )
        #expect(root["a"]?.mark == Mark(line: 2, column: 3))
        #expect(root["b"]?.mark == Mark(line: 4, column: 1))
        #expect(root["c"]?.mark == Mark(line: 7, column: 3))
        #expect(root["d"]?.mark == Mark(line: 8, column: 7))
        #expect(root["e"]?.mark == Mark(line: 11, column: 3))
        #expect(root["f"]?.mark == Mark(line: 12, column: 13))
        // An empty scalar has no content of its own: its mark is its anchor.
        #expect(root["g"]?.mark == Mark(line: 13, column: 4))
        #expect(root["h"]?.mark == Mark(line: 14, column: 7))
    }
}
