import Testing

@testable import MonitorYAML

/// A `String` is always valid UTF-8, so invalid bytes are fed through the internal byte entry point.
@Suite("Invalid UTF-8 bytes")
struct InvalidUTF8Tests {
    /// Bytes that are not valid UTF-8 and the error libyaml's reader reports for them.
    struct BytesCase: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var expected: String
        var testDescription: String { name }
    }

    static let cases: [BytesCase] = [
        BytesCase(
            name: "invalid leading byte",
            bytes: Array("a: ".utf8) + [0xFF, 0xFE],
            expected: "1:4: invalid leading UTF-8 octet: #FF"
        ),
        BytesCase(
            name: "truncated sequence at end of input",
            bytes: Array("é: ".utf8) + [0xC3],
            expected: "1:4: incomplete UTF-8 octet sequence"
        ),
        BytesCase(
            name: "bad continuation byte, reported at that byte",
            bytes: Array("k: 1\né日: ".utf8) + [0xE6, 0x41, 0x0A],
            expected: "2:6: invalid trailing UTF-8 octet: #41"
        ),
        BytesCase(
            name: "overlong encoding",
            bytes: Array("x: ".utf8) + [0xC0, 0xAF],
            expected: "1:4: invalid length of a UTF-8 sequence"
        ),
        BytesCase(
            name: "surrogate code point",
            bytes: Array("x: ".utf8) + [0xED, 0xA0, 0x80],
            expected: "1:4: invalid Unicode character: #D800"
        ),
    ]

    @Test("invalid bytes are reader errors at their position", arguments: cases)
    func invalidBytes(_ input: BytesCase) {
        let error = #expect(throws: YAMLError.self) { try YAMLParser.compose(utf8: input.bytes) }
        #expect(error?.description == input.expected)
    }

    @Test("a String made from invalid bytes carries U+FFFD, which is valid YAML")
    func repairedString() throws {
        let text = String(decoding: Array("a: ".utf8) + [0xFF], as: UTF8.self)
        #expect(try YAMLParser.parse(text)?["a"]?.scalar == "\u{FFFD}")
    }
}
