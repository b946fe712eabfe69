import Foundation
import Testing

@testable import MonitorCore
@testable import MonitorJSON

@Suite("The JSON reader: what it accepts, what it skips, and the dates it reads")
struct JSONReaderTests {
    /// Skips the whole document, checking it; nil when it is JSON, else the error's message.
    static func check(_ text: String) -> String? {
        var reader = JSONReader(Array(text.utf8))
        do throws(JSONError) {
            try reader.skip()
            try reader.end()
            return nil
        } catch {
            return error.description
        }
    }

    @Test(
        "valid JSON is skipped whole, as JSONSerialization accepts it",
        arguments: [
            "0", "-0", "1.5e+3", "-12.25E-2", "true", "false", "null", #""""#,
            #""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#,
            "[]", "{}", " [ 1 , [ ] , { } ] ", #"{"a": {"b": [null, {"c": "d"}]}, "e": -1}"#, "\t\n\r [\"é🌋\"]",
        ])
    func valid(_ text: String) throws {
        #expect(Self.check(text) == nil)
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) is Any)
    }

    @Test(
        "what is not JSON is refused, as JSONSerialization refuses it",
        arguments: [
            ("", "not valid JSON: the body is empty"),
            ("01", "not valid JSON: unexpected '1' after the document at byte 2"),
            ("1.", "not valid JSON: the body ends inside a value, after 2 bytes"),
            ("1.e5", "not valid JSON: a malformed number at byte 1"),
            ("+1", "not valid JSON: unexpected '+' at byte 1"),
            (".5", "not valid JSON: unexpected '.' at byte 1"),
            ("[1 2]", "not valid JSON: expected ',' or ']' at byte 4"),
            (#"{"a" 1}"#, "not valid JSON: expected ':' at byte 6"),
            ("{1: 2}", "not valid JSON: expected a key in quotes at byte 2"),
            (#"{"a": 1]"#, "not valid JSON: expected ',' or '}' at byte 8"),
            ("[1}", "not valid JSON: expected ',' or ']' at byte 3"),
            ("nul", "not valid JSON: the body ends inside a value, after 3 bytes"),
            ("True", "not valid JSON: unexpected 'T' at byte 1"),
            (#""\x""#, #"not valid JSON: unknown escape '\x' at byte 2"#),
            (#""\u12g4""#, #"not valid JSON: a \u escape needs four hex digits at byte 2"#),
            ("\"a\nb\"", "not valid JSON: a control character inside a string at byte 3"),
            (#""abc"#, "not valid JSON: the body ends inside a value, after 4 bytes"),
            ("[[[", "not valid JSON: the body ends inside a value, after 3 bytes"),
            ("[] []", "not valid JSON: unexpected '[' after the document at byte 4"),
        ])
    func invalid(text: String, message: String) {
        #expect(Self.check(text) == message)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) == nil)
    }

    /// The keys and string values of the object `text` read with `members(likely:)`, in order, or the error.
    static func members(_ text: String, likely: [StaticString]) -> String {
        var reader = JSONReader(Array(text.utf8))
        var read: [String] = []
        do throws(JSONError) {
            try reader.members(likely: likely) { (key, reader) throws(JSONError) in
                read.append("\(reader.string(key))=\(try reader.string())")
            }
            try reader.end()
            return read.joined(separator: " ")
        } catch {
            return error.description
        }
    }

    @Test("members with likely keys read every key, in the usual order or not, escaped, empty or more than expected")
    func likelyKeys() {
        let likely: [StaticString] = ["id", "title"]
        #expect(Self.members(#"{"id": "1", "title": "T"}"#, likely: likely) == "id=1 title=T")
        #expect(Self.members(#"{"title": "T", "id": "1"}"#, likely: likely) == "title=T id=1")
        #expect(
            Self.members(#"{"i\u0064": "1", "titles": "S", "": "E", "x": "X"}"#, likely: likely)
                == "id=1 titles=S =E x=X")
        #expect(Self.members(#"{"id"}"#, likely: likely) == "not valid JSON: expected ':' at byte 6")
        #expect(Self.members(#"{"id": 1}"#, likely: likely) == "at id: expected a string")
    }

    @Test("numbers read as Swift's Double(String) reads them, bit for bit, for 30,000 decimals and the odd shapes")
    func numbers() throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var texts = [
            "0", "-0", "0.0", "35.00", "144.65", "-105.995532", "46.531524000000005", "127.84730549567904",
            "0.000000000000000001", "123456789012345", "1234567890123456", "99999999999999999999", "1e1", "-2.5E-1",
            "1.7976931348623157e308", "5e-324", "0.1", "0.30000000000000004", "100000000000000000000000",
        ]
        for index in 0..<30_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // A whole part of 0 to 9 digits and a fraction of 0 to 15 digits (leading zeros kept).
            let whole = String((state >> 8) % [1, 10, 1_000, 1_000_000, 1_000_000_000][Int(state >> 60) % 5])
            let fractionDigits = Int(state >> 56 & 0xF)
            let fraction = String(String((state >> 4) % 1_000_000_000_000_000).reversed().prefix(fractionDigits))
            let text = fraction.isEmpty ? whole : "\(whole).\(fraction)"
            texts.append(index % 2 == 0 ? text : "-" + text)
        }
        var mismatches: [String] = []
        for text in texts {
            var reader = JSONReader(Array(text.utf8))
            let value = try reader.number()
            let expected = try #require(Double(text), "\(text)")
            if value.bitPattern != expected.bitPattern { mismatches.append(text) }
        }
        #expect(mismatches == [])
    }

    @Test(
        "a number read as a value ends, and is refused, where skipping it does, in one pass or the general way",
        arguments: [
            "0", "-0", "7", "-7", "0.5", "35.00", "-105.995532", "127.84730549567904", "9007199254740993",
            "1234567890123456789", "12345678901234567890", "0.0000000000000000000001", "0.00000000000000000000001",
            "1e5", "1.5E-3", "-0.0e0", "01", "-01.5", "1.", "-", "-a", "1.e5", "1.5e", "1.5x", "0x10", "2.",
        ])
    func numberEnds(_ text: String) throws {
        var reader = JSONReader(Array(text.utf8))
        let read: String?
        do throws(JSONError) {
            let value = try reader.number()
            try reader.end()
            read = nil
            #expect(value.bitPattern == Double(text)?.bitPattern)
        } catch {
            read = error.description
        }
        #expect(read == Self.check(text))
    }

    @Test("16 to 19-digit decimals (EONET's coordinates) read as Double(String) reads them, bit for bit, for 60,000")
    func longDecimals() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        // Around 2⁵³, where the exact path ends and `strtod` takes over, and 22 decimals, the most it takes.
        var texts = [
            "9007199254740992", "9007199254740993", "9007199254740991", "900719925474099.2", "9.007199254740993",
            "0.9007199254740992", "0.9007199254740993", "-47.24184642775646", "-9.605919889910073",
            "0.0000001234567890123456", "0.00000012345678901234567", "1.2345678901234567890", "12345678901234567.5",
        ]
        for index in 0..<60_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // 16 to 19 significant digits, the point anywhere among them (or before them, after zeros).
            let digitCount = 16 + Int(state >> 62)
            var digits = String(1 + (state >> 8) % 9)
            var next = state
            while digits.count < digitCount {
                next = next &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                digits.append(String((next >> 33) % 10))
            }
            let point = Int(state >> 32 & 0x1F) % (digitCount + 4)
            let text: String
            if point >= digitCount {
                text = "0." + String(repeating: "0", count: point - digitCount) + digits
            } else {
                text = "\(digits.prefix(point == 0 ? 1 : point)).\(digits.dropFirst(point == 0 ? 1 : point))"
            }
            texts.append(index % 2 == 0 ? text : "-" + text)
        }
        var mismatches: [String] = []
        for text in texts {
            var reader = JSONReader(Array(text.utf8))
            let value = try reader.number()
            let expected = try #require(Double(text), "\(text)")
            if value.bitPattern != expected.bitPattern { mismatches.append(text) }
        }
        #expect(mismatches == [])
    }

    @Test("strings and whitespace are scanned eight bytes at a time: every position of a stop is found exactly")
    func wordScans() throws {
        for length in 0..<40 {
            let plain = String(repeating: "a", count: length)
            // The closing quote at each position: the span ends there, ASCII, no escape.
            var reader = JSONReader(Array("\"\(plain)\" ".utf8))
            let span = try reader.stringText()
            #expect(span == JSONText(start: 1, end: 1 + length, escaped: false, ascii: true))
            #expect(reader.offset == length + 2)
            // Skipped: the same end, whatever its position in a block of 16 or 8.
            var skipping = JSONReader(Array("[\"\(plain)\", {\"\(plain)\": \"\(plain)\"}] ".utf8))
            try skipping.skip()
            #expect(skipping.offset == 3 * length + 14)
            for position in 0..<max(length, 1) {
                var characters = Array(plain.utf8)
                if characters.isEmpty { characters = [0x61] }
                // A non-ASCII character at `position`: not ASCII, read whole.
                var accented = characters
                accented.replaceSubrange(position...position, with: Array("é".utf8))
                var reader = JSONReader([0x22] + accented + [0x22])
                let span = try reader.stringText()
                #expect(!span.ascii && !span.escaped)
                #expect(try reader.decoded(span) == String(decoding: accented, as: UTF8.self))
                // A control character at `position`: refused at its byte.
                var control = characters
                control[position] = 0x09
                #expect(
                    Self.check(String(decoding: [0x22] + control + [0x22], as: UTF8.self))
                        == "not valid JSON: a control character inside a string at byte \(position + 2)")
                // An escape at `position`: unescaped.
                var escaped = characters
                escaped.replaceSubrange(position...position, with: Array(#"\n"#.utf8))
                var unescaped = characters
                unescaped[position] = 0x0A
                var escapedReader = JSONReader([0x22] + escaped + [0x22])
                #expect(try escapedReader.string() == String(decoding: unescaped, as: UTF8.self))
            }
            // Whitespace runs of every length before a value and between elements.
            let spaces = String(repeating: " \t\r\n", count: 5).prefix(length)
            var list = JSONReader(Array("[\(spaces)1\(spaces),\(spaces)2\(spaces)]\(spaces)".utf8))
            try list.enterArray()
            #expect(try list.nextElement(0))
            #expect(try list.number() == 1)
            #expect(try list.nextElement(1))
            #expect(try list.number() == 2)
            #expect(!(try list.nextElement(2)))
            try list.end()
        }
    }

    @Test("a string's scan stops at its first quote or control character, whatever bytes surround it (20,000 strings)")
    func stringStops() throws {
        // Bytes next to those that stop a run (0x1F, 0x20, 0x21, 0x22, 0x23), and high ones that carry or borrow.
        let alphabet: [UInt8] = [
            0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x41, 0x5B, 0x5D, 0x7E, 0x7F, 0x80, 0xC3, 0xFF,
        ]
        var state: UInt64 = 0x1234_5678_9ABC_DEF1
        var mismatches: [[UInt8]] = []
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var content: [UInt8] = []
            var next = state
            // Up to 63 bytes, mostly plain ones, so that most strings run several words before their stop.
            for _ in 0..<Int(state >> 58) {
                next = next &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let pick = Int(next >> 56)
                content.append(pick < 200 ? 0x61 : alphabet[pick % alphabet.count])
            }
            let stop = content.firstIndex { $0 == 0x22 || $0 < 0x20 }
            var reader = JSONReader([0x22] + content + [0x22])
            if let stop, content[stop] < 0x20 {
                do {
                    _ = try reader.stringText()
                    mismatches.append(content)
                } catch {
                    if error != JSONError(.syntax("a control character inside a string", stop + 1)) {
                        mismatches.append(content)
                    }
                }
            } else {
                let end = stop ?? content.count
                let span = try reader.stringText()
                if span.end != 1 + end || span.ascii != !content[..<end].contains(where: { $0 >= 0x80 }) {
                    mismatches.append(content)
                }
            }
        }
        #expect(mismatches == [])
    }

    @Test("a trailing comma is refused, as RFC 8259 says (Foundation's parsers accept it)")
    func trailingComma() {
        #expect(Self.check("[1,]") == "not valid JSON: unexpected ']' at byte 4")
        #expect(Self.check(#"{"a": 1,}"#) == "not valid JSON: expected a key in quotes at byte 9")
    }

    @Test("512 nested lists and objects are read, 513 are not, and a million are refused at the 513th")
    func depth() {
        func nested(_ depth: Int) -> String {
            (0..<depth).map { $0 % 2 == 0 ? "[" : #"{"k":"# }.joined() + "1"
                + (0..<depth).reversed().map { $0 % 2 == 0 ? "]" : "}" }.joined()
        }
        #expect(Self.check(nested(512)) == nil)
        #expect(Self.check(nested(513)) == "lists and objects nested deeper than 512 levels")
        #expect(
            Self.check(String(repeating: "[", count: 1_000_000)) == "lists and objects nested deeper than 512 levels")
    }

    @Test("strings are unescaped, with surrogate pairs, and checked as UTF-8")
    func strings() throws {
        var reader = JSONReader(Array(#"["a\r\nb\t\"\\\/ \u00e9\u00C9 \ud83d\ude00 é🌋", "\udc00", "\ud800x"]"#.utf8))
        try reader.enterArray()
        #expect(try reader.nextElement(0))
        #expect(try reader.string() == "a\r\nb\t\"\\/ éÉ 😀 é🌋")
        #expect(try reader.nextElement(1))
        #expect(throws: JSONError(.syntax(#"a \u escape of a lone surrogate"#, 53))) { try reader.string() }
        var invalid = JSONReader([0x22, 0xC3, 0x28, 0x22])
        #expect(throws: JSONError(.syntax("a string that is not valid UTF-8", 1))) { try invalid.string() }
    }

    @Test("a date of the fixed shape reads as Foundation reads it; other shapes are left to it")
    func fixedDates() {
        var mismatches: [String] = []
        var seconds = -2_208_988_800  // 1900-01-01
        while seconds < 4_102_444_800 {  // 2100-01-01
            let date = Date(timeIntervalSince1970: Double(seconds))
            let text = ISO8601.string(date)
            let fixed = Array(text.utf8).withUnsafeBufferPointer { ISO8601.fixedDate($0) }
            if fixed != date || ISO8601.date(text) != date || ISO8601.fixedString(date) != text {
                mismatches.append(text)
            }
            seconds += 86_399 * 3 + 7_777
        }
        #expect(mismatches == [])
        for text in [
            "2025-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:60Z",
            "2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00+01:00", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00z",
        ] {
            #expect(Array(text.utf8).withUnsafeBufferPointer { ISO8601.fixedDate($0) } == nil, "\(text)")
        }
        #expect(
            ISO8601.fixedString(Date(timeIntervalSince1970: 0.5)) == ISO8601.string(Date(timeIntervalSince1970: 0.5)))
    }

    @Test("texts for people: cleaned, as URLs, trimmed and compared in place, each as the String clean-ups make it")
    func cleanedTexts() throws {
        var reader = JSONReader(
            Array(
                #"[" Danny&#039;s  Block &amp;\t2 ", "Clean title", " https://s/?x&amp;y ", "  ", null, " K ", "\u212a", "\u00e9 ", "Türkiye"]"#
                    .utf8))
        try reader.enterArray()
        #expect(try reader.nextElement(0))
        #expect(try reader.cleanedString() == "Danny's Block & 2")
        #expect(try reader.nextElement(1))
        #expect(try reader.cleanedString() == "Clean title")
        #expect(try reader.nextElement(2))
        #expect(try reader.referenceURL() == "https://s/?x&y")
        #expect(try reader.nextElement(3))
        #expect(try reader.referenceURL() == nil)
        #expect(try reader.nextElement(4))
        #expect(try reader.referenceURL() == nil)
        #expect(try reader.nextElement(5))
        let k = try reader.checkedStringText()
        #expect(reader.trimmedString(k) == "K")
        #expect(reader.trimmedString(k, is: "K"))
        #expect(reader.trimmedString(k, is: "\u{212A}"))
        #expect(!reader.trimmedString(k, is: " K"))
        #expect(try reader.nextElement(6))
        let kelvin = try reader.checkedStringText()
        #expect(reader.trimmedString(kelvin, is: "K"))
        #expect(try reader.nextElement(7))
        let escaped = try reader.checkedStringText()
        #expect(reader.trimmedString(escaped) == "é")
        #expect(reader.trimmedString(escaped, is: "é"))
        #expect(try reader.nextElement(8))
        #expect(reader.trimmedString(try reader.checkedStringText()) == "Türkiye")
        #expect(try !reader.nextElement(9))
        var invalid = JSONReader([0x22, 0xC3, 0x28, 0x22])
        #expect(throws: JSONError(.syntax("a string that is not valid UTF-8", 1))) { try invalid.checkedStringText() }
        #expect(" \u{A0}a\tb  c\n".collapsingWhitespace() == "a b c")
        #expect("\u{A0} x \u{2003}".trimmingAllWhitespace() == "x")
        #expect("plain".trimmingAllWhitespace() == "plain")
    }
}
