import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import EONETSource
@testable import MonitorCore
@testable import MonitorJSON

/// A response's events read into their items by `EONETJSON.items`: each the item of the event read alone (the tests'
/// `EONETEventList`, which shares no categories or groups between events), odd events read right field by field, and
/// each refusal with its message and path.
@Suite("Reading a response's events into their items, odd ones among them")
struct EONETResponseItemsTests {
    /// The items of `body` as the response of `requested`, and those of its events read one by one.
    static func both(_ body: [UInt8], requested: String = "snow", selected: Set<String> = ["snow", "wildfires"])
        throws -> (response: (items: [Item], undated: [String]), events: (items: [Item], undated: [String]))
    {
        let response = try EONETJSON.items(in: body, requested: requested, selected: selected)
        let events = try EONETJSON.decode(EONETEventList.self, from: body).events
        let items = events.compactMap { $0.item(requested: requested, selected: selected) }
        let undated = events.filter { $0.latestDate == nil }.map(\.id)
        return (response, (items, undated))
    }

    /// The message `body` is refused with through `EONETJSON.items`, or nil when it is read.
    static func refusal(_ body: [UInt8]) -> String? {
        do {
            _ = try EONETJSON.items(in: body, requested: "snow", selected: ["snow"])
            return nil
        } catch {
            return error.message
        }
    }

    @Test(
        "every event of every real capture is read into the item it makes alone",
        .enabled(
            if: SharedSamples.folder != nil, "../shared/realdata or ../shared/api-samples is absent: not compared"),
        arguments: EONETItemDigestTests.cases)
    func realCaptures(_ capture: EONETItemDigestTests.Case) throws {
        let body = try SharedSamples.bytes(capture.file)
        let (response, events) = try Self.both(
            body, requested: capture.requested, selected: Set(capture.selected))
        #expect(response.items.count == capture.items)
        #expect(response.items == events.items)
        #expect(response.undated == events.undated)
    }

    /// Events as EONET writes them and odd ones: escapes, raw UTF-8, a member twice, a date with fractions, an escaped
    /// key (which the key expected there does not match in place), blanks around a date.
    static let events: [String] = [
        #"{"id": "E1", "title": "Usual", "categories": [{"id": "snow", "title": "Snow"}], \#(point)}"#,
        #"{"id": "E2", "title": "Quoted \"name\"", \#(point)}"#,
        #"{"id": "E3", "title": "Türkiye", \#(point)}"#,
        #"{"id": "E4", "title": "First", "title": "Second", \#(point)}"#,
        #"{"id": "E5", "geometry": [{"date": "2025-09-01T00:00:00.250Z", "type": "Point", "coordinates": [1, 2]}]}"#,
        #"{"id": "E6", "extra": {"a": [1, {"b": null}], "c": "\u00e9"}, "title": "Extra", \#(point)}"#,
        #"{"id": " E7 ", "categories": [{"id": null}, {"id": " wildfires ", "url": null, "x": [1]}, {"title": "no id"}], \#(point)}"#,
        #"{"id": "E8", "link": "  https://e/?a=1&amp;b=2 ", "sources": [{"url": " "}, {"url": null}], \#(point)}"#,
        #"{"id": "E9", "geometry": [{"date": "2025-09-02T00:00:00Z", "type": " Polygon ", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]]]}]}"#,
        #"{"id": "E10", "title": "No date", "closed": null, "geometry": null, "categories": null, "sources": null}"#,
        #"{"id": "E11", "closed": "2025-09-09T10:00:00Z", \#(point)}"#,
        #"{"id": "E12", "ti\u0074le": "Escaped key", \#(point)}"#,
        #"""
        {"id": "E13", "title": "T", "geometry": [
          {"magnitudeValue": 50, "magnitudeUnit": "kts", "date": "2025-09-03T00:00:00Z", "type": "Point", "coordinates": [3, 3]},
          {"magnitudeValue": 60.125, "magnitudeUnit": " kts ", "date": "2025-09-03T00:00:00Z", "type": "Point", "coordinates": [4, 4]},
          {"magnitudeValue": null, "date": "2025-09-05T00:00:00Z", "type": "Point", "coordinates": [5, 5]},
          {"magnitudeValue": 10, "magnitudeUnit": "kts", "date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": [1, 1]},
          {"date": "2025-09-05T00:00:00Z", "type": "Polygon", "coordinates": [[[6, 6], [8, 8], [6, 6]]]}
        ]}
        """#,
        #"{"id": "E14", "geometry": [{"date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": [-95.123456789012345, 30.5, 7]}]}"#,
        #"{"id": "E15", "title": "Danny&#039;s  Block &amp; 2", "description": "  ", \#(point)}"#,
        #"{"id": "E16", "description": "a\tb", \#(point)}"#,
        #"{"id": "E17", "sources": [{"id": "S", "url": " https://s/?x&amp;y "}, {"url": "https://t"}], \#(point)}"#,
        #"{"id": "E18", "title": "Unicode escape \u00e9", \#(point)}"#,
        #"{"id": "E19", "closed": " 2025-09-09T10:00:00Z ", \#(point)}"#,
    ]

    static let point = #""geometry": [{"date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": [1, 2]}]"#

    @Test("odd events among the usual ones make the items they make alone, each field right")
    func unusualEvents() throws {
        let body = EONETDecodeTests.document(Self.events.joined(separator: ",\n"))
        let (response, events) = try Self.both(body)
        #expect(response.items == events.items)
        // `==` leaves out an item's numbers: they are compared too.
        #expect(response.items.map(\.location) == events.items.map(\.location))
        #expect(response.items.map(\.magnitude) == events.items.map(\.magnitude))
        #expect(response.undated == ["E10"])
        #expect(events.undated == ["E10"])
        let items = Dictionary(uniqueKeysWithValues: response.items.map { ($0.id, $0) })
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
        #expect(items["E2"]?.title == #"Quoted "name""#)
        #expect(items["E3"]?.title == "Türkiye")
        #expect(items["E5"]?.date == Date(timeIntervalSince1970: 1_756_684_800.25))
        #expect(items["E6"]?.title == "Extra")
        #expect(items["E12"]?.title == "Escaped key")
        #expect(items["E13"]?.location == Item.Position(latitude: 7, longitude: 7))
        #expect(items["E13"]?.magnitude == Item.Magnitude(value: 60.125, unit: "kts"))
        #expect(items["E18"]?.title == "Unicode escape é")
        #expect(items["E19"]?.date == ISO8601.date("2025-09-09T10:00:00Z"))
        #expect(items["E19"]?.detail("closed") == "2025-09-09T10:00:00Z")
    }

    @Test(
        "every refusal of a response is that of its event read alone, word for word",
        arguments: EONETDecodeTests.refusals
    )
    func refusals(body: String, message: String) {
        #expect(Self.refusal(Array(body.utf8)) == message)
    }

    @Test("hostile nesting in a response is refused, skipped or read without a position as in an event read alone")
    func nesting() throws {
        let deep = EONETDecodeTests.twoHundred(
            #""geometry": [{"date": "2025-09-01T00:00:00Z", "type": "Point", "coordinates": \#(EONETDecodeTests.nested(500))}]"#
        )
        // Coordinates deeper than any GeoJSON: each event kept, without a position.
        let (deepResponse, deepEvents) = try Self.both(deep)
        #expect(deepResponse.items == deepEvents.items)
        #expect(deepResponse.items.map(\.id) == (0..<200).map { "E\($0)" })
        #expect(deepResponse.items.allSatisfy { $0.detail("position") == nil })
        #expect(
            Self.refusal(EONETDecodeTests.document(#"{"id": "E", "x": \#(EONETDecodeTests.nested(510))}"#))
                == "at events[0].x: lists and objects nested deeper than 512 levels")
        let skipped = EONETDecodeTests.twoHundred(
            #""extra": \#(EONETDecodeTests.nested(500, #"{"a": [1, {"b": null}]}"#)), \#(Self.point)"#)
        let (response, events) = try Self.both(skipped)
        #expect(response.items == events.items)
        #expect(response.items.compactMap { $0.detail("position") } == Array(repeating: "lat 2, lon 1", count: 200))
    }
}
