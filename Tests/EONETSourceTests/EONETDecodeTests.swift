import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import EONETSource
@testable import MonitorCore
@testable import MonitorJSON

/// The events decoder on the response's bytes: the real captures beside the package, every odd case they and a
/// hostile server have, and the errors it gives.
@Suite("Decoding EONET events from the response's bytes")
struct EONETDecodeTests {
    /// The events response `{"events": [events]}`.
    static func document(_ events: String) -> [UInt8] {
        Array(#"{"title": "EONET Events", "events": [\#(events)]}"#.utf8)
    }

    /// The one event of `document(event)`, decoded.
    static func event(_ event: String) throws -> EONETEvent {
        try #require(try EONETJSON.decode(EONETEventList.self, from: document(event)).events.first)
    }

    /// The message `body` is refused with, or nil when it decodes.
    static func refusal(_ body: [UInt8]) -> String? {
        do {
            _ = try EONETJSON.decode(EONETEventList.self, from: body)
            return nil
        } catch {
            return error.message
        }
    }

    static let point = #""geometry": [{"date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": [1, 2]}]"#

    @Test("escapes: \\r\\n, \\t, \\/, \\u with a surrogate pair; raw UTF-8 and emoji; titles collapsed")
    func escapes() throws {
        let event = try Self.event(
            #"{"id": "E\u0031", "title": "Line\r\nbreak\tt\u00e9t\u00E9 \ud83d\udd25 fire \/ Türkiye 🌋", "#
                + #""description": "a\\b \"q\"", \#(Self.point)}"#)
        #expect(event.id == "E1")
        #expect(event.title == "Line break tété 🔥 fire / Türkiye 🌋")
        #expect(event.description == #"a\b "q""#)
    }

    @Test("HTML character references are decoded once in titles and descriptions, before whitespace is collapsed")
    func entitiesInText() throws {
        let event = try Self.event(
            #"{"id": "E", "title": "Danny&#039;s Block 1&amp; 2 &amp;amp; &nbsp;x&#10;y AT&T &#27;", "#
                + #""description": "NC 210 &amp;amp; NC117 &lt;b&gt;", \#(Self.point)}"#)
        #expect(event.title == "Danny's Block 1& 2 &amp; x&#10;y AT&T &#27;")
        #expect(event.description == "NC 210 &amp; NC117 <b>")
        let item = try #require(event.item(requested: "wildfires", selected: ["wildfires"]))
        #expect(item.title == "Danny's Block 1& 2 &amp; x&#10;y AT&T &#27;")
        #expect(item.detail("description") == "NC 210 &amp; NC117 <b>")
    }

    @Test("null, empty and missing descriptions, titles and links")
    func nulls() throws {
        let event = try Self.event(
            #"{"id": "E", "title": null, "description": "  ", "link": null, "closed": null, "categories": null, "#
                + #""sources": null, "geometry": null}"#)
        #expect(event == EONETEvent(id: "E", title: ""))
        let described = try Self.event(#"{"id": "E", "title": "T", "description": null, \#(Self.point)}"#)
        #expect(described.description == nil)
    }

    @Test(
        "integer and 17-digit coordinates, and a MultiPolygon four lists deep",
        arguments: [
            (#""type": "Point", "coordinates": [ -95, 30 ]"#, "lat 30, lon -95"),
            (
                #""type": "Point", "coordinates": [127.84730549567904, -17.14074812671574]"#,
                "lat -17.1407, lon 127.8473"
            ),
            (#""type": "Point", "coordinates": [1e1, -2.5E-1]"#, "lat -0.25, lon 10"),
            (#""type": "MultiPolygon", "coordinates": [[[[5, 6], [7, 8]]], [[[9, 9]]]]"#, "lat 6, lon 5"),
            (#""type": "Polygon", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]]]"#, "lat 1, lon 1"),
            (#""type": "Polygon", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2]]]"#, "lat 1, lon 1"),
            (#""type": "Polygon", "coordinates": [[[4, 6]]]"#, "lat 6, lon 4"),
            (
                #""type": "Polygon", "coordinates": [[[179, 0], [-179, 0], [-179, 2], [179, 2], [179, 0]]]"#,
                "lat 1, lon 180"
            ),
            (#""type": "Polygon", "coordinates": [[[170, 0], [-178, 0], [-178, 3], [170, 3]]]"#, "lat 1.5, lon 176"),
            (#""type": "Polygon", "coordinates": [[[0, 0, 9], [2, 0, 9], [1, 3, 9]]]"#, "lat 1, lon 1"),
            (#""type": "Polygon", "coordinates": [[[0, 0], [2, [0]], [4, 4]]]"#, "lat 2, lon 2"),
            (#""type": "Polygon", "coordinates": [[]]"#, nil),
            (#""type": "Point", "coordinates": [-95, 30, [1]]"#, "lat 30, lon -95"),
            (#""type": "Point", "coordinates": [1]"#, nil),
            (#""type": "Point", "coordinates": 5"#, nil),
            (#""type": "Point", "coordinates": null"#, nil),
            // Coordinates of another shape: the event is kept, without a position.
            (#""type": "Point", "coordinates": ["-118.2", "34.1"]"#, nil),
            (#""type": "Point", "coordinates": [1, "2"]"#, nil),
            (#""type": "Point", "coordinates": [[1, 2], [3, null]]"#, nil),
            (#""type": "Point", "coordinates": [[[[[1]]]]]"#, nil),
            (#""type": "Point", "coordinates": {}"#, nil),
        ] as [(String, String?)])
    func coordinates(geometry: String, position: String?) throws {
        let event = try Self.event(
            #"{"id": "E", "title": "T", "geometry": [{"date": "2025-09-01T00:00:00Z", \#(geometry)}]}"#)
        #expect(event.item(requested: "snow", selected: ["snow"])?.detail("position") == position)
    }

    @Test("of several observations the newest is shown, the last listed of equal dates, and the newest magnitude")
    func newest() throws {
        let event = try Self.event(
            #"""
            {"id": "E", "title": "T", "geometry": [
              {"magnitudeValue": 50, "magnitudeUnit": "kts", "date": "2025-09-03T00:00:00Z", "type": "Point", "coordinates": [3, 3]},
              {"magnitudeValue": 60, "magnitudeUnit": "kts", "date": "2025-09-03T00:00:00Z", "type": "Point", "coordinates": [4, 4]},
              {"magnitudeValue": null, "date": "2025-09-05T00:00:00Z", "type": "Point", "coordinates": [5, 5]},
              {"magnitudeValue": 10, "magnitudeUnit": "kts", "date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": [1, 1]},
              {"date": "2025-09-05T00:00:00Z", "type": "Polygon", "coordinates": [[[6, 6], [8, 8], [6, 6]]]}
            ]}
            """#)
        #expect(event.observations == 5)
        let item = try #require(event.item(requested: "snow", selected: ["snow"]))
        #expect(item.date == ISO8601.date("2025-09-05T00:00:00Z"))
        #expect(
            item.details == [
                Detail("status", "open"), Detail("magnitude", "60 kts"), Detail("position", "lat 7, lon 7"),
                Detail("geometry", "Polygon"),
            ])
    }

    /// Bodies that are not an events response, and the message each is refused with.
    static let refusals: [(String, String)] = [
        ("", "not valid JSON: the body is empty"),
        ("<html>", "not valid JSON: unexpected '<' at byte 1"),
        (#"{"events": []} x"#, "not valid JSON: unexpected 'x' after the document at byte 16"),
        (
            #"{"events": [{"id": "E", "title": "cut"#,
            "at events[0].title: not valid JSON: the body ends inside a value, after 37 bytes"
        ),
        (#"{"events": [{"id": "E"}"#, "at events: not valid JSON: the body ends inside a value, after 23 bytes"),
        (#"{"events": [{"id": "E",}]}"#, "at events[0]: not valid JSON: expected a key in quotes at byte 24"),
        (#"{"events": [{"id": "E"} {"id": "F"}]}"#, "at events: not valid JSON: expected ',' or ']' at byte 25"),
        (
            #"{"events": [{"id": "\ud800"}]}"#,
            #"at events[0].id: not valid JSON: a \u escape of a lone surrogate at byte 21"#
        ),
        (#"{"events": [{"id": "a\qb"}]}"#, #"at events[0].id: not valid JSON: unknown escape '\q' at byte 22"#),
        (
            "{\"events\": [{\"id\": \"a\tb\"}]}",
            "at events[0].id: not valid JSON: a control character inside a string at byte 22"
        ),
        (#"{"events": [{"id": "E", "x": 01}]}"#, "at events[0]: not valid JSON: expected ',' or '}' at byte 31"),
        (#"{"events": [{"id": "E", "x": -}]}"#, "at events[0].x: not valid JSON: a malformed number at byte 30"),
        (#"{"events": [{"id": "E", "x": tru}]}"#, "at events[0].x: not valid JSON: unexpected 't' at byte 30"),
        ("[]", "expected an object"),
        (#"{"title": "EONET Events"}"#, "missing 'events'"),
        (#"{"events": null}"#, "at events: null where a value is needed"),
        (#"{"events": {}}"#, "at events: expected a list"),
        (#"{"events": [{"title": "no id"}]}"#, "at events[0]: missing 'id'"),
        (#"{"events": [{"id": 7}]}"#, "at events[0].id: expected a string"),
        (
            #"{"events": [{"id": "E", "categories": [null]}]}"#,
            "at events[0].categories[0]: null where a value is needed"
        ),
        (#"{"events": [{"id": "E", "sources": [{"url": 5}]}]}"#, "at events[0].sources[0].url: expected a string"),
        (#"{"events": [{"id": "E", "closed": "soon"}]}"#, "at events[0].closed: not an ISO-8601 date: 'soon'"),
        (
            #"{"events": [{"id": "E", "closed": "2025-02-30T00:00:00Z"}]}"#,
            "at events[0].closed: not a date of the calendar (February 2025 has 28 days): '2025-02-30T00:00:00Z'"
        ),
        (
            #"{"events": [{"id": "E", "geometry": [{"date": "2025-04-31T12:00:00Z"}]}]}"#,
            "at events[0].geometry[0].date: not a date of the calendar (April 2025 has 30 days): '2025-04-31T12:00:00Z'"
        ),
        (
            #"{"events": [{"id": "E", "geometry": [{"type": "Point"}]}]}"#,
            "at events[0].geometry[0]: missing 'date'"
        ),
        (
            #"{"events": [{"id": "E", "geometry": [{"magnitudeValue": "big", "date": "2025-01-01T00:00:00Z"}]}]}"#,
            "at events[0].geometry[0].magnitudeValue: expected a number"
        ),
        // Coordinates skipped in one pass, and step by step when that finds a fault: the messages of before.
        (
            #"{"events": [{"id": "E", "geometry": [{"date": "2025-01-01T00:00:00Z", "coordinates": [[1, 2], [3, 4],]}]}]}"#,
            "at events[0].geometry[0].coordinates: not valid JSON: unexpected ']' at byte 102"
        ),
        (
            #"{"events": [{"id": "E", "geometry": [{"date": "2025-01-01T00:00:00Z", "coordinates": [[1, 2] [3, 4]]}]}]}"#,
            "at events[0].geometry[0].coordinates: not valid JSON: expected ',' or ']' at byte 94"
        ),
        (
            #"{"events": [{"id": "E", "geometry": [{"date": "2025-01-01T00:00:00Z", "coordinates": [[1, 2], [3, 1.]]}]}]}"#,
            "at events[0].geometry[0].coordinates: not valid JSON: a malformed number at byte 99"
        ),
        (
            #"{"events": [{"id": "E", "geometry": [{"date": "2025-01-01T00:00:00Z", "coordinates": [[1, 2], [3, 4]"#,
            "at events[0].geometry[0].coordinates: not valid JSON: the body ends inside a value, after 100 bytes"
        ),
        // The sources after the first are checked, not made; the categories of the event before are compared.
        (
            #"{"events": [{"id": "E", "sources": [{"url": "https://a.example/"}, {"id": "X", "url": 5}]}]}"#,
            "at events[0].sources[1].url: expected a string"
        ),
        (
            #"{"events": [{"id": "E", "sources": [{"url": "https://a.example/"}, {"url": "\ud800"}]}]}"#,
            #"at events[0].sources[1].url: not valid JSON: a \u escape of a lone surrogate at byte 77"#
        ),
        (
            #"{"events": [{"id": "E", "categories": [{"id": "wildfires"}]}, {"id": "F", "categories": [{"id": "wildfires"}, {"id": 3}]}]}"#,
            "at events[1].categories[1].id: expected a string"
        ),
    ]

    @Test("a body that is not an events response is refused with what and where", arguments: refusals)
    func refused(body: String, message: String) {
        #expect(Self.refusal(Array(body.utf8)) == message)
    }

    @Test("a string that is not UTF-8 is refused where it is")
    func invalidUTF8() {
        let body = Array(#"{"events": [{"id": "E", "title": "a"#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8)
        #expect(Self.refusal(body) == "at events[0].title: not valid JSON: a string that is not valid UTF-8 at byte 35")
        // The link is checked even when a source stands for it on the item.
        let link =
            Array(#"{"events": [{"id": "E", "sources": [{"id": "S", "url": "https://s"}], "link": "a"#.utf8) + [
                0xC3, 0x28,
            ]
            + Array(#""}]}"#.utf8)
        #expect(Self.refusal(link) == "at events[0].link: not valid JSON: a string that is not valid UTF-8 at byte 80")
        let source =
            Array(#"{"events": [{"id": "E", "sources": [{"id": "\ud800", "url": "https://s"}]}]}"#.utf8)
        #expect(
            Self.refusal(source)
                == #"at events[0].sources[0].id: not valid JSON: a \u escape of a lone surrogate at byte 45"#)
    }

    @Test("the item's URL is the first source's that is not null or blank; categories are shared with the event before")
    func firstSourceAndCategories() throws {
        let sources =
            #"[{"url": null}, {"id": "A", "url": "  "}, {"url": "https://b.example/?a=1&amp;b=2"}, {"url": "https://c.example/"}]"#
        let body = Self.document(
            [
                #"{"id": "E1", "categories": [{"id": "wildfires"}], "sources": \#(sources)}"#,
                #"{"id": "E2", "categories": [{"id": "wildfires", "title": "Wildfires"}]}"#,
                #"{"id": "E3", "categories": [{"id": "wildfires"}, {"id": " floods "}]}"#,
                #"{"id": "E4", "categories": [{"id": "wildfires"}]}"#,
                #"{"id": "E5", "categories": [{"id": null}, {"id": "snow", "url": null}]}"#,
                #"{"id": "E6", "categories": [{"id": "snow", "id": "drought"}, {"url": "x"}]}"#,
                #"{"id": "E7", "categories": null, "sources": [{"url": "https://c.example/"}, {"url": "https://d.example/"}]}"#,
            ].joined(separator: ", "))
        let events = try EONETJSON.decode(EONETEventList.self, from: body).events
        #expect(events.map(\.source) == ["https://b.example/?a=1&b=2", nil, nil, nil, nil, nil, "https://c.example/"])
        #expect(
            events.map(\.categories) == [
                ["wildfires"], ["wildfires"], ["wildfires", "floods"], ["wildfires"], ["snow"], ["drought"], [],
            ])
    }

    @Test("the link is the item's URL only without a source, cleaned as a source is")
    func link() throws {
        let linked = try Self.event(#"{"id": "E", "link": "  https://e/?a=1&amp;b=2 ", \#(Self.point)}"#)
        #expect(linked.item(requested: "snow", selected: ["snow"])?.url == "https://e/?a=1&b=2")
        let sourced = try Self.event(
            #"{"id": "E", "link": "https://e", "sources": [{"id": "S", "url": " https://s/?x&amp;y "}], \#(Self.point)}"#
        )
        #expect(sourced.item(requested: "snow", selected: ["snow"])?.url == "https://s/?x&y")
    }

    // MARK: - Nesting

    /// `depth` lists around `inner`.
    static func nested(_ depth: Int, _ inner: String = "0") -> String {
        String(repeating: "[", count: depth) + inner + String(repeating: "]", count: depth)
    }

    /// 200 events, each with `member`.
    static func twoHundred(_ member: String) -> [UInt8] {
        document(
            (0..<200).map { #"{"id": "E\#($0)", "title": "T", \#(member)}"# }.joined(separator: ",\n"))
    }

    @Test("200 events whose coordinates nest 500 deep, deeper than any GeoJSON, are kept without a position")
    func deepCoordinates() throws {
        let body = Self.twoHundred(
            #""geometry": [{"date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": \#(Self.nested(500))}]"#)
        let list = try EONETJSON.decode(EONETEventList.self, from: body)
        #expect(list.events.map(\.id) == (0..<200).map { "E\($0)" })
        #expect(list.events.allSatisfy { $0.latest != nil && $0.latest?.position == nil })
    }

    @Test("200 events with a member of no interest nested 500 deep decode, the member skipped")
    func deepSkipped() throws {
        let body = Self.twoHundred(#""extra": \#(Self.nested(500, #"{"a": [1, {"b": null}]}"#)), \#(Self.point)"#)
        let list = try EONETJSON.decode(EONETEventList.self, from: body)
        #expect(list.events.map(\.id) == (0..<200).map { "E\($0)" })
        #expect(list.events.allSatisfy { $0.latest?.position == EONETGeometry.Position(latitude: 2, longitude: 1) })
    }

    @Test("nesting deeper than 512 lists and objects is refused")
    func tooDeep() {
        // The document's object, the events list and the event are three levels: 509 more are allowed, 510 not.
        #expect(Self.refusal(Self.document(#"{"id": "E", "x": \#(Self.nested(509))}"#)) == nil)
        #expect(
            Self.refusal(Self.document(#"{"id": "E", "x": \#(Self.nested(510))}"#))
                == "at events[0].x: lists and objects nested deeper than 512 levels")
        #expect(
            Self.refusal(Self.document(#"{"id": "E", "x": \#(Self.nested(100_000))}"#))
                == "at events[0].x: lists and objects nested deeper than 512 levels")
    }

    // MARK: - Numbers

    @Test("numbers are written as printf's %.Nf would, then trimmed, for 20,000 values, all without printf")
    func numbersAsPrintf() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var mismatches: [String] = []
        var unwritten: [String] = []
        for index in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Double(state >> 11) / Double(1 << 53)
            // Coordinates, magnitudes and exact ties (n + 0.5 at the last digit).
            let value: Double
            switch index % 4 {
            case 0: value = unit * 360 - 180
            case 1: value = (unit * 1_000_000).rounded() / 100
            case 2: value = ((unit * 20_000).rounded() + 0.5) / 10_000 - 1
            default: value = Double(Int(unit * 2_000) - 1_000) / 8
            }
            for digits in [2, 4] {
                var text = String(format: "%.\(digits)f", value)
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
                if text == "-0" { text = "0" }
                if DecimalText.number(value, fractionDigits: digits) != text { mismatches.append("\(value) \(digits)") }
                // Written without printf (the fallback), ties included.
                let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
                    DecimalText.write(value, fractionDigits: digits, into: buffer).map {
                        String(decoding: UnsafeBufferPointer(rebasing: buffer[..<$0]), as: UTF8.self)
                    }
                }
                if written != text { unwritten.append("\(value) \(digits)") }
            }
        }
        #expect(mismatches == [])
        #expect(unwritten == [])
    }
}
