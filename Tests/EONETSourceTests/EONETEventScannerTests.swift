import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import EONETSource
@testable import MonitorCore
@testable import MonitorJSON

/// `EONETEventScanner`, the fast reading of the usual events: it must read nearly every real event itself, give
/// exactly the items of the general reader (`EONETEvent(from:previous:)`, which `scanning: false` uses for every
/// event), and leave every unusual event to that reader, so that each refusal keeps its message and path.
@Suite("Reading the usual EONET events straight into their items, the others by the general reader")
struct EONETEventScannerTests {
    /// The items of `body` read with and without the scanner, as the response of `requested`.
    static func both(_ body: [UInt8], requested: String = "snow", selected: Set<String> = ["snow", "wildfires"])
        throws -> (
            scanned: (items: [Item], undated: [String], scanned: Int), general: (items: [Item], undated: [String])
        )
    {
        let scanned = try EONETJSON.items(in: body, requested: requested, selected: selected, scanning: true)
        let general = try EONETJSON.items(in: body, requested: requested, selected: selected, scanning: false)
        #expect(general.scanned == 0)
        return (scanned, (general.items, general.undated))
    }

    /// The message `body` is refused with through `EONETJSON.items` (the scanner on), or nil when it is read.
    static func refusal(_ body: [UInt8]) -> String? {
        do {
            _ = try EONETJSON.items(in: body, requested: "snow", selected: ["snow"], scanning: true)
            return nil
        } catch {
            return error.message
        }
    }

    @Test(
        "every event of every real capture is read by the scanner, but the one with raw UTF-8, into the same items",
        .enabled(
            if: SharedSamples.folder != nil, "../shared/realdata or ../shared/api-samples is absent: not compared"),
        arguments: EONETItemDigestTests.cases)
    func realCaptures(_ capture: EONETItemDigestTests.Case) throws {
        let body = try SharedSamples.bytes(capture.file)
        let (scanned, general) = try Self.both(
            body, requested: capture.requested, selected: Set(capture.selected))
        #expect(scanned.items.count == capture.items)
        #expect(scanned.items == general.items)
        #expect(scanned.undated == general.undated)
        // September 2025 has one event with raw UTF-8 (a title): the general reader reads that one.
        let expected = capture.file == "realdata/eonet-v3-events-2025-09.json" ? capture.items - 1 : capture.items
        #expect(scanned.scanned == expected)
    }

    /// Events, each with whether the scanner reads it (true) or leaves it to the general reader (false).
    static let events: [(String, Bool)] = [
        (#"{"id": "E1", "title": "Usual", "categories": [{"id": "snow", "title": "Snow"}], \#(point)}"#, true),
        (#"{"id": "E2", "title": "Quoted \"name\"", \#(point)}"#, false),
        (#"{"id": "E3", "title": "Türkiye", \#(point)}"#, false),
        (#"{"id": "E4", "title": "First", "title": "Second", \#(point)}"#, false),
        (
            #"{"id": "E5", "geometry": [{"date": "2025-09-01T00:00:00.250Z", "type": "Point", "coordinates": [1, 2]}]}"#,
            false
        ),
        (#"{"id": "E6", "extra": {"a": [1, {"b": null}], "c": "\u00e9"}, "title": "Extra", \#(point)}"#, true),
        (
            #"{"id": " E7 ", "categories": [{"id": null}, {"id": " wildfires ", "url": null, "x": [1]}, {"title": "no id"}], \#(point)}"#,
            true
        ),
        (
            #"{"id": "E8", "link": "  https://e/?a=1&amp;b=2 ", "sources": [{"url": " "}, {"url": null}], \#(point)}"#,
            true
        ),
        (
            #"{"id": "E9", "geometry": [{"date": "2025-09-02T00:00:00Z", "type": " Polygon ", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]]]}]}"#,
            true
        ),
        (
            #"{"id": "E10", "title": "No date", "closed": null, "geometry": null, "categories": null, "sources": null}"#,
            true
        ),
        (#"{"id": "E11", "closed": "2025-09-09T10:00:00Z", \#(point)}"#, true),
        (#"{"id": "E12", "ti\u0074le": "Escaped key", \#(point)}"#, false),
        (
            #"""
            {"id": "E13", "title": "T", "geometry": [
              {"magnitudeValue": 50, "magnitudeUnit": "kts", "date": "2025-09-03T00:00:00Z", "type": "Point", "coordinates": [3, 3]},
              {"magnitudeValue": 60.125, "magnitudeUnit": " kts ", "date": "2025-09-03T00:00:00Z", "type": "Point", "coordinates": [4, 4]},
              {"magnitudeValue": null, "date": "2025-09-05T00:00:00Z", "type": "Point", "coordinates": [5, 5]},
              {"magnitudeValue": 10, "magnitudeUnit": "kts", "date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": [1, 1]},
              {"date": "2025-09-05T00:00:00Z", "type": "Polygon", "coordinates": [[[6, 6], [8, 8], [6, 6]]]}
            ]}
            """#, true
        ),
        (
            #"{"id": "E14", "geometry": [{"date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": [-95.123456789012345, 30.5, 7]}]}"#,
            true
        ),
        (#"{"id": "E15", "title": "Danny&#039;s  Block &amp; 2", "description": "  ", \#(point)}"#, true),
        (#"{"id": "E16", "description": "a\tb", \#(point)}"#, false),
        (
            #"{"id": "E17", "sources": [{"id": "S", "url": " https://s/?x&amp;y "}, {"url": "https://t"}], \#(point)}"#,
            true
        ),
        (#"{"id": "E18", "title": "Unicode escape \u00e9", \#(point)}"#, false),
        (#"{"id": "E19", "closed": " 2025-09-09T10:00:00Z ", \#(point)}"#, false),
    ]

    static let point = #""geometry": [{"date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": [1, 2]}]"#

    @Test("events of an unusual shape are left to the general reader; both make the same items, the odd ones right")
    func unusualEvents() throws {
        let body = EONETDecodeTests.document(Self.events.map(\.0).joined(separator: ",\n"))
        let (scanned, general) = try Self.both(body)
        #expect(scanned.scanned == Self.events.filter(\.1).count)
        #expect(scanned.scanned == 11)
        #expect(scanned.items == general.items)
        #expect(scanned.undated == ["E10"])
        #expect(general.undated == ["E10"])
        let items = Dictionary(uniqueKeysWithValues: scanned.items.map { ($0.id, $0) })
        #expect(items.count == Self.events.count - 1)
        #expect(items["E4"]?.title == "Second")
        #expect(items["E7"]?.groups == ["wildfires", "snow"])
        #expect(items["E8"]?.url == "https://e/?a=1&b=2")
        #expect(
            items["E9"]?.details == [
                Detail("status", "open"), Detail("position", "lat 1, lon 1"), Detail("geometry", "Polygon"),
            ])
        #expect(items["E11"]?.date == ISO8601.date("2025-09-09T10:00:00Z"))
        #expect(
            items["E11"]?.details.map(\.name) == ["status", "closed", "position", "geometry"])
        #expect(
            items["E13"]?.details == [
                Detail("status", "open"), Detail("magnitude", "60.12 kts"), Detail("position", "lat 7, lon 7"),
                Detail("geometry", "Polygon"),
            ])
        #expect(items["E14"]?.detail("position") == "lat 30.5, lon -95.1235")
        #expect(items["E15"]?.title == "Danny's Block & 2")
        #expect(items["E15"]?.detail("description") == nil)
        #expect(items["E16"]?.detail("description") == "a b")
        #expect(items["E17"]?.url == "https://s/?x&y")
        #expect(items["E1"]?.url == nil)
    }

    @Test(
        "every refusal through the scanner is the general reader's, word for word", arguments: EONETDecodeTests.refusals
    )
    func refusals(body: String, message: String) {
        #expect(Self.refusal(Array(body.utf8)) == message)
    }

    @Test("hostile nesting through the scanner is refused, skipped or read without a position as by the general reader")
    func nesting() throws {
        let deep = EONETDecodeTests.twoHundred(
            #""geometry": [{"date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": \#(EONETDecodeTests.nested(500))}]"#
        )
        // Coordinates deeper than any GeoJSON: each event kept, without a position.
        let (deepScanned, deepGeneral) = try Self.both(deep)
        #expect(deepScanned.items == deepGeneral.items)
        #expect(deepScanned.items.map(\.id) == (0..<200).map { "E\($0)" })
        #expect(deepScanned.items.allSatisfy { $0.detail("position") == nil })
        #expect(
            Self.refusal(EONETDecodeTests.document(#"{"id": "E", "x": \#(EONETDecodeTests.nested(510))}"#))
                == "at events[0].x: lists and objects nested deeper than 512 levels")
        let skipped = EONETDecodeTests.twoHundred(
            #""extra": \#(EONETDecodeTests.nested(500, #"{"a": [1, {"b": null}]}"#)), \#(Self.point)"#)
        let (scanned, general) = try Self.both(skipped)
        #expect(scanned.scanned == 200)
        #expect(scanned.items == general.items)
        #expect(scanned.items.compactMap { $0.detail("position") } == Array(repeating: "lat 2, lon 1", count: 200))
    }
}
