import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import EONETSource
@testable import MonitorCore
@testable import MonitorJSON

@Suite("From an EONET event to an item: dates, groups, URL and details")
struct EONETItemTests {
    /// One event as JSON, the category it was listed under, and the item it must give.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var event: String
        var requested = "severeStorms"
        var selected: Set<String> = Set(EONETFixtures.categories.map(\.id))
        var item: Item
        var testDescription: String { name }
    }

    static let t0 = EONETFixtures.daysAgo(3)
    static let t1 = EONETFixtures.daysAgo(2)
    static let t2 = EONETFixtures.daysAgo(1)

    /// The JSON of one fixture event, as the server writes it.
    static func json(_ event: EONETFixtures.Event) -> String {
        let document = EONETFixtures.eventsDocument([event])
        let start = document.range(of: "\t\t{")!.lowerBound
        let end = document.range(of: "\n\t]\n}", options: .backwards)!.lowerBound
        return String(document[start..<end])
    }

    static let cases: [Case] = [
        Case(
            name: "a storm: its newest point, latest magnitude, latitude and longitude the right way round",
            event: json(
                .init(
                    id: "EONET_1", title: "Tropical Storm Narda", categories: ["severeStorms"],
                    sources: ["https://www.metoc.navy.mil/jtwc/products/ep1425.tcw"],
                    geometry: [
                        .init(magnitude: 35, unit: "kts", date: t0, shape: .point(longitude: -99.4, latitude: 14.4)),
                        .init(magnitude: 40, unit: "kts", date: t1, shape: .point(longitude: -100.1, latitude: 15.1)),
                        .init(magnitude: 45.5, unit: "kts", date: t2, shape: .point(longitude: -105.6, latitude: 15.7)),
                    ])),
            item: Item(
                id: "EONET_1", title: "Tropical Storm Narda", date: t2, groups: ["severeStorms"],
                url: "https://www.metoc.navy.mil/jtwc/products/ep1425.tcw",
                details: [
                    Detail("status", "open"), Detail("magnitude", "45.5 kts"),
                    Detail("position", "lat 15.7, lon -105.6"), Detail("geometry", "Point"),
                ])),
        Case(
            name: "null description, closed and magnitude; no source: the event's link",
            event: """
                {"id": "EONET_2", "title": "Dempo Volcano, Indonesia", "description": null,
                 "link": "https://eonet.gsfc.nasa.gov/api/v3/events/EONET_2", "closed": null,
                 "categories": [{"id": "volcanoes", "title": "Volcanoes"}], "sources": [],
                 "geometry": [{"magnitudeValue": null, "magnitudeUnit": null, "date": "2025-08-29T00:00:00Z",
                               "type": "Point", "coordinates": [103.121, -4.016]}]}
                """,
            requested: "volcanoes",
            item: Item(
                id: "EONET_2", title: "Dempo Volcano, Indonesia", date: ISO8601.date("2025-08-29T00:00:00Z")!,
                groups: ["volcanoes"], url: "https://eonet.gsfc.nasa.gov/api/v3/events/EONET_2",
                details: [
                    Detail("status", "open"), Detail("position", "lat -4.016, lon 103.121"),
                    Detail("geometry", "Point"),
                ])),
        Case(
            name: "a closed event is dated by its closing, later than its last point",
            event: json(
                .init(
                    id: "EONET_3", title: "Tropical Cyclone Gati", closed: t2, categories: ["severeStorms"],
                    sources: ["https://earthobservatory.nasa.gov/images/147576"],
                    geometry: [
                        .init(magnitude: 100, unit: "kts", date: t0, shape: .point(longitude: 52.5, latitude: 10.3)),
                        .init(magnitude: 40, unit: "kts", date: t1, shape: .point(longitude: 49.3, latitude: 11.3)),
                    ])),
            item: Item(
                id: "EONET_3", title: "Tropical Cyclone Gati", date: t2, groups: ["severeStorms"],
                url: "https://earthobservatory.nasa.gov/images/147576",
                details: [
                    Detail("status", "closed"), Detail("closed", ISO8601.string(t2)), Detail("magnitude", "40 kts"),
                    Detail("position", "lat 11.3, lon 49.3"), Detail("geometry", "Point"),
                ])),
        Case(
            name: "closed before its last point: dated by the point",
            event: json(
                .init(
                    id: "EONET_4", title: "Late report", closed: t0, categories: ["floods"],
                    geometry: [.init(date: t1, shape: .point(longitude: 1, latitude: 2))])),
            requested: "floods",
            item: Item(
                id: "EONET_4", title: "Late report", date: t1, groups: ["floods"],
                url: "http://eonet.test/api/v3/events/EONET_4",
                details: [
                    Detail("status", "closed"), Detail("closed", ISO8601.string(t0)),
                    Detail("position", "lat 2, lon 1"), Detail("geometry", "Point"),
                ])),
        Case(
            name: "a Polygon: the centre of its outer ring, the closing corner left out",
            event: json(
                .init(
                    id: "EONET_354", title: "Dukono Volcano, Indonesia", categories: ["volcanoes"],
                    geometry: [
                        .init(
                            date: t0,
                            shape: .polygon([
                                [
                                    [127.84286499023438, 1.6633016286241373], [127.84286499023438, 1.7379700300000804],
                                    [127.91641235351562, 1.7379700300000804], [127.91641235351562, 1.6633016286241373],
                                    [127.84286499023438, 1.6633016286241373],
                                ]
                            ]))
                    ])),
            requested: "volcanoes",
            item: Item(
                id: "EONET_354", title: "Dukono Volcano, Indonesia", date: t0, groups: ["volcanoes"],
                url: "http://eonet.test/api/v3/events/EONET_354",
                details: [
                    Detail("status", "open"), Detail("position", "lat 1.7006, lon 127.8796"),
                    Detail("geometry", "Polygon"),
                ])),
        Case(
            name: "a Polygon across the antimeridian is centred on it, not on the other side of the Earth",
            event: json(
                .init(
                    id: "EONET_5", title: "Fiji Ice", categories: ["seaLakeIce"],
                    geometry: [
                        .init(
                            date: t0,
                            shape: .polygon([[[179, -17], [-179, -17], [-179, -19], [179, -19], [179, -17]]]))
                    ])),
            requested: "seaLakeIce",
            item: Item(
                id: "EONET_5", title: "Fiji Ice", date: t0, groups: ["seaLakeIce"],
                url: "http://eonet.test/api/v3/events/EONET_5",
                details: [
                    Detail("status", "open"), Detail("position", "lat -18, lon 180"), Detail("geometry", "Polygon"),
                ])),
        Case(
            name: "HTML entities in source URLs are decoded; the first source wins",
            event: json(
                .init(
                    id: "EONET_6", title: "Gati", categories: ["severeStorms"],
                    sources: [
                        "https://www.gdacs.org/Cyclones/report.aspx?eventid=1000746&amp;eventtype=TC&#38;x=&#x2F;y",
                        "https://irwin.doi.gov/observer/",
                    ],
                    geometry: [.init(date: t0, shape: .point(longitude: 0, latitude: 0))])),
            item: Item(
                id: "EONET_6", title: "Gati", date: t0, groups: ["severeStorms"],
                url: "https://www.gdacs.org/Cyclones/report.aspx?eventid=1000746&eventtype=TC&x=/y",
                details: [Detail("status", "open"), Detail("position", "lat 0, lon 0"), Detail("geometry", "Point")])),
        Case(
            name: "odd whitespace in titles, descriptions, units and URLs is trimmed and collapsed",
            event: json(
                .init(
                    id: "EONET_7", title: "  Twin Plume Fire\tWildfire,\n  Palm Beach \u{A0}",
                    description: "\n 1 Miles SE\t\tfrom Arthur ",
                    categories: ["wildfires"], sources: ["  https://irwin.doi.gov/observer/incidents/11c2 \n"],
                    geometry: [
                        .init(
                            magnitude: 800, unit: " acres ", date: t0, shape: .point(longitude: -80.43, latitude: 26.51)
                        )
                    ])),
            requested: "wildfires",
            item: Item(
                id: "EONET_7", title: "Twin Plume Fire Wildfire, Palm Beach", date: t0, groups: ["wildfires"],
                url: "https://irwin.doi.gov/observer/incidents/11c2",
                details: [
                    Detail("status", "open"), Detail("magnitude", "800 acres"),
                    Detail("position", "lat 26.51, lon -80.43"),
                    Detail("geometry", "Point"), Detail("description", "1 Miles SE from Arthur"),
                ])),
        Case(
            name: "magnitudes without a trailing .0, a unit-less one, and the latest known when the newest has none",
            event: json(
                .init(
                    id: "EONET_8", title: "Iceberg A23I", categories: ["seaLakeIce"],
                    geometry: [
                        .init(magnitude: 209, unit: "NM^2", date: t0, shape: .point(longitude: -36.94, latitude: -53)),
                        .init(
                            magnitude: 100.25, unit: "NM^2", date: t1,
                            shape: .point(longitude: -37.11, latitude: -52.37)),
                        .init(date: t2, shape: .point(longitude: -37.2, latitude: -52.1)),
                    ])),
            requested: "seaLakeIce",
            item: Item(
                id: "EONET_8", title: "Iceberg A23I", date: t2, groups: ["seaLakeIce"],
                url: "http://eonet.test/api/v3/events/EONET_8",
                details: [
                    Detail("status", "open"), Detail("magnitude", "100.25 NM^2"),
                    Detail("position", "lat -52.1, lon -37.2"),
                    Detail("geometry", "Point"),
                ])),
        Case(
            name: "a magnitude without a unit is the number alone",
            event: json(
                .init(
                    id: "EONET_9", title: "Quake", categories: ["earthquakes"],
                    geometry: [.init(magnitude: 6.10, date: t0, shape: .point(longitude: 142.4, latitude: 38.3))])),
            requested: "earthquakes",
            item: Item(
                id: "EONET_9", title: "Quake", date: t0, groups: ["earthquakes"],
                url: "http://eonet.test/api/v3/events/EONET_9",
                details: [
                    Detail("status", "open"), Detail("magnitude", "6.1"), Detail("position", "lat 38.3, lon 142.4"),
                    Detail("geometry", "Point"),
                ])),
        Case(
            name: "an event in two categories carries both, whichever response it came in",
            event: json(
                .init(
                    id: "EONET_10", title: "Hurricane Bravo", categories: ["severeStorms", "floods"],
                    geometry: [.init(date: t0, shape: .point(longitude: -89.9, latitude: 28.7))])),
            requested: "floods",
            item: Item(
                id: "EONET_10", title: "Hurricane Bravo", date: t0, groups: ["severeStorms", "floods"],
                url: "http://eonet.test/api/v3/events/EONET_10",
                details: [
                    Detail("status", "open"), Detail("position", "lat 28.7, lon -89.9"), Detail("geometry", "Point"),
                ])),
        Case(
            name: "categories not polled are left out; the one asked is added when the event does not name it",
            event: json(
                .init(
                    id: "EONET_11", title: "Mislabelled", categories: ["severeStorms", "snow", "severeStorms"],
                    geometry: [.init(date: t0, shape: .point(longitude: 1, latitude: 1))])),
            requested: "floods", selected: ["floods", "snow"],
            item: Item(
                id: "EONET_11", title: "Mislabelled", date: t0, groups: ["snow", "floods"],
                url: "http://eonet.test/api/v3/events/EONET_11",
                details: [Detail("status", "open"), Detail("position", "lat 1, lon 1"), Detail("geometry", "Point")])),
        Case(
            name: "dates with fractional seconds, keys missing, an empty title",
            event: """
                {"id": " EONET_12 ", "title": " ", "categories": [{"id": "snow"}],
                 "geometry": [{"date": "2025-09-21T18:00:00.500Z", "type": "Point", "coordinates": [ 7.5, 46 ]}]}
                """,
            requested: "snow",
            item: Item(
                id: "EONET_12", title: "EONET_12", date: Date(timeIntervalSince1970: 1_758_477_600.5), groups: ["snow"],
                details: [Detail("status", "open"), Detail("position", "lat 46, lon 7.5"), Detail("geometry", "Point")])
        ),
    ]

    @Test("an event becomes the item it must", arguments: cases)
    func item(_ example: Case) throws {
        let list = try EONETJSON.decode(EONETEventList.self, from: Array("{\"events\": [\(example.event)]}".utf8))
        let event = try #require(list.events.first)
        #expect(event.item(requested: example.requested, selected: example.selected) == example.item)
    }

    @Test("an event without any date gives no item")
    func undated() throws {
        let list = try EONETJSON.decode(
            EONETEventList.self, from: Array(#"{"events": [{"id": "E", "title": "T", "closed": null}]}"#.utf8))
        #expect(list.events.first?.item(requested: "snow", selected: ["snow"]) == nil)
    }

    @Test(
        "a response of the wrong shape is refused with where and why",
        arguments: [
            ("", "not valid JSON: the body is empty"),
            ("[]", "expected an object"),
            (#"{"title": "EONET Events"}"#, "missing 'events'"),
            (#"{"events": [{"title": "no id"}]}"#, "at events[0]: missing 'id'"),
            (
                #"{"events": [{"id": "E", "geometry": [{"date": "yesterday", "type": "Point", "coordinates": [0, 0]}]}]}"#,
                "at events[0].geometry[0].date: not an ISO-8601 date: 'yesterday'"
            ),
            (#"{"events": [{"id": "E", "closed": "soon"}]}"#, "at events[0].closed: not an ISO-8601 date: 'soon'"),
            (
                #"{"events": [{"id": "E", "geometry": [{"magnitudeValue": "big", "date": "2025-01-01T00:00:00Z"}]}]}"#,
                "at events[0].geometry[0].magnitudeValue: expected a number"
            ),
            (#"{"events": [{"id": 7}]}"#, "at events[0].id: expected a string"),
        ])
    func refused(body: String, message: String) {
        #expect(throws: SourceError(message)) {
            try EONETJSON.decode(EONETEventList.self, from: Array(body.utf8))
        }
    }

    @Test(
        "numbers are written without trailing zeros",
        arguments: [
            (35.0, 2, "35"), (100.25, 2, "100.25"), (10600, 2, "10600"), (45.5, 2, "45.5"), (0.004, 2, "0"),
            (-0.00001, 4, "0"), (-17.140748126715739, 4, "-17.1407"), (127.84730549567904, 4, "127.8473"),
            (-53, 4, "-53"), (6.1, 2, "6.1"),
        ])
    func numbers(value: Double, digits: Int, text: String) {
        #expect(DecimalText.number(value, fractionDigits: digits) == text)
    }

    @Test(
        "a magnitude is its number and its unit; a long or non-ASCII unit, a huge number are written the same",
        arguments: [
            (35.0, "kts", "35 kts"), (100.254, "NM^2", "100.25 NM^2"), (0.125, nil, "0.12"), (-2.5, "°C", "-2.5 °C"),
            (7, String(repeating: "u", count: 45), "7 " + String(repeating: "u", count: 45)),
            (1e12, "acres", "1000000000000 acres"),
        ] as [(Double, String?, String)])
    func magnitudes(value: Double, unit: String?, text: String) {
        let observation = EONETGeometry(magnitudeValue: value, magnitudeUnit: unit, date: Date(), type: "Point")
        #expect(observation.magnitude == text)
    }

    @Test(
        "HTML character references are decoded once, anything else is left alone",
        arguments: [
            ("a=1&amp;b=2", "a=1&b=2"), ("&lt;&gt;&quot;&apos;&#39;", "<>\"''"), ("&#x2F;&#X41;&#65;", "/AA"),
            ("&amp;amp;", "&amp;"), ("AT&T & co", "AT&T & co"), ("&unknown;", "&unknown;"), ("&#27;[31m", "&#27;[31m"),
            ("&#xD800;", "&#xD800;"), ("end&", "end&"), ("&amp", "&amp"),
        ])
    func entities(text: String, decoded: String) {
        #expect(text.decodingCharacterReferences() == decoded)
    }
}
