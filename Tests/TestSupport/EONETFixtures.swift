import Foundation
import Samples

@testable import MonitorCore

/// EONET v3 responses built from Swift data, so that every count a test expects is known by construction, and
/// a small stand-in for the server that answers `/categories` and `/events` from them.
///
/// The JSON is written the way the real server writes it: odd tab-and-space indentation, `35.00`-style
/// magnitudes, `null` descriptions, closing dates and magnitudes, `[lon, lat]` points and Polygon rings.
package enum EONETFixtures {
    /// The API root the fixtures' links use.
    package static let api = "http://eonet.test/api/v3"

    /// The moment the `planet` events are dated from: 2025-09-23T12:00:00Z.
    package static let now = Date(timeIntervalSince1970: 1_758_628_800)

    /// An EONET category.
    package struct Category: Sendable, Hashable {
        /// The slug (`wildfires`).
        package var id: String
        /// The title (`Wildfires`).
        package var title: String

        /// A category.
        package init(_ id: String, _ title: String) {
            self.id = id
            self.title = title
        }
    }

    /// Where an observation was, as GeoJSON writes it.
    package enum Shape: Sendable, Hashable {
        /// A point: `"coordinates": [lon, lat]`.
        case point(longitude: Double, latitude: Double)
        /// A polygon: `"coordinates": [[[lon, lat], …], …]`, each corner as `[lon, lat]`.
        case polygon([[[Double]]])
    }

    /// One observation of an event.
    package struct Geometry: Sendable, Hashable {
        /// The magnitude, nil for `null`.
        package var magnitude: Double?
        /// Its unit, nil for `null`.
        package var unit: String?
        /// When.
        package var date: Date
        /// Where.
        package var shape: Shape

        /// An observation.
        package init(magnitude: Double? = nil, unit: String? = nil, date: Date, shape: Shape) {
            self.magnitude = magnitude
            self.unit = unit
            self.date = date
            self.shape = shape
        }
    }

    /// One event.
    package struct Event: Sendable, Hashable {
        /// `EONET_9001`.
        package var id: String
        /// The title, written as given (odd whitespace included).
        package var title: String
        /// The description, nil for `null`.
        package var description: String?
        /// When it was closed, nil for `null` (open).
        package var closed: Date?
        /// Its category ids.
        package var categories: [String]
        /// Its sources' URLs, written as given (HTML entities included).
        package var sources: [String]
        /// Its observations, oldest first.
        package var geometry: [Geometry]

        /// An event.
        package init(
            id: String, title: String, description: String? = nil, closed: Date? = nil, categories: [String],
            sources: [String] = [], geometry: [Geometry]
        ) {
            self.id = id
            self.title = title
            self.description = description
            self.closed = closed
            self.categories = categories
            self.sources = sources
            self.geometry = geometry
        }

        /// Its newest activity: its last observation, or its closing when later.
        package var latest: Date {
            ([closed].compactMap(\.self) + geometry.map(\.date)).max() ?? .distantPast
        }

        /// Its first observation: the server lists events newest first by it.
        package var first: Date {
            geometry.map(\.date).min() ?? closed ?? .distantPast
        }
    }

    // MARK: - The data

    /// The 13 categories of EONET v3, in the server's order.
    package static let categories: [Category] = EONETTemplate.categories.map { Category($0.id, $0.title) }

    /// `days` days before `now`, plus `hours`.
    package static func daysAgo(_ days: Double, hours: Double = 0) -> Date {
        now.addingTimeInterval(-days * 86_400 + hours * 3600)
    }

    /// A planet's worth of events dated from `now`. Over the last 360 days (`status=all`): drought 0,
    /// dustHaze 1 (closed), earthquakes 0, floods 2, landslides 0, manmade 0, seaLakeIce 1, severeStorms 4
    /// (2 closed), snow 0, tempExtremes 0, volcanoes 2, waterColor 0, wildfires 4 (2 closed): 13 distinct
    /// events, EONET_9002 being in both severeStorms and floods. Over the last 30 days: dustHaze 1, floods 2,
    /// seaLakeIce 1, severeStorms 3, volcanoes 1, wildfires 2: 9 distinct events. EONET_9010 (wildfires) and
    /// EONET_9015 (earthquakes) are older than 360 days.
    package static let planet: [Event] = [
        Event(
            id: "EONET_9001", title: "Tropical Storm Alpha", categories: ["severeStorms"],
            sources: ["https://www.nhc.noaa.gov/text/alpha.shtml"],
            geometry: [
                Geometry(magnitude: 35, unit: "kts", date: daysAgo(2), shape: .point(longitude: -99.4, latitude: 14.4)),
                Geometry(
                    magnitude: 40, unit: "kts", date: daysAgo(2, hours: 6),
                    shape: .point(longitude: -100.1, latitude: 15.1)),
                Geometry(
                    magnitude: 45.5, unit: "kts", date: daysAgo(2, hours: 12),
                    shape: .point(longitude: -101, latitude: 15.2)),
            ]),
        Event(
            id: "EONET_9002", title: "Hurricane Bravo", description: "Landfall with river flooding",
            categories: ["severeStorms", "floods"], sources: ["https://www.metoc.navy.mil/jtwc/products/bravo.tcw"],
            geometry: [
                Geometry(magnitude: 80, unit: "kts", date: daysAgo(4), shape: .point(longitude: -88.5, latitude: 25.1)),
                Geometry(magnitude: 95, unit: "kts", date: daysAgo(3), shape: .point(longitude: -89.9, latitude: 28.7)),
            ]),
        Event(
            id: "EONET_9003", title: "Cyclone Charlie", closed: daysAgo(20), categories: ["severeStorms"],
            sources: ["https://www.gdacs.org/Cyclones/report.aspx?eventid=1000746&amp;eventtype=TC"],
            geometry: [
                Geometry(magnitude: 60, unit: "kts", date: daysAgo(24), shape: .point(longitude: 55.5, latitude: 10.8)),
                Geometry(magnitude: 40, unit: "kts", date: daysAgo(22), shape: .point(longitude: 49.3, latitude: 11.3)),
            ]),
        Event(
            id: "EONET_9004", title: "Storm Delta", closed: daysAgo(100), categories: ["severeStorms"],
            geometry: [
                Geometry(
                    magnitude: 50, unit: "kts", date: daysAgo(104), shape: .point(longitude: 140.2, latitude: 20.5))
            ]),
        Event(
            id: "EONET_9005", title: "Echo River Flood", categories: ["floods"],
            sources: ["https://floodobservatory.colorado.edu/Events/echo.html"],
            geometry: [Geometry(date: daysAgo(10), shape: .point(longitude: 31.2, latitude: -1.9))]),
        Event(
            id: "EONET_9006", title: "Foxtrot Fire, California", description: "5 miles NE of Altadena, CA",
            categories: ["wildfires"],
            sources: [
                "https://inciweb.wildfire.gov/incident?id=foxtrot&amp;state=CA", "https://irwin.doi.gov/observer/",
            ],
            geometry: [
                Geometry(
                    magnitude: 1250, unit: "acres", date: daysAgo(3),
                    shape: .point(longitude: -118.10544, latitude: 34.19163))
            ]),
        Event(
            id: "EONET_9007", title: "Golf Fire, Oregon", closed: daysAgo(5), categories: ["wildfires"],
            geometry: [
                Geometry(
                    magnitude: 300, unit: "acres", date: daysAgo(9),
                    shape: .point(longitude: -121.5, latitude: 44.06))
            ]),
        Event(
            id: "EONET_9008", title: "Wildfire in Australia 1023712", categories: ["wildfires"],
            geometry: [
                Geometry(date: daysAgo(45), shape: .point(longitude: 127.84730549567904, latitude: -17.140748126715739))
            ]
        ),
        Event(
            id: "EONET_9009", title: "India Fire, Alberta", closed: daysAgo(190), categories: ["wildfires"],
            geometry: [
                Geometry(
                    magnitude: 10600, unit: "acres", date: daysAgo(200),
                    shape: .point(longitude: -113.5, latitude: 55.2))
            ]),
        Event(
            id: "EONET_9010", title: "Juliett Fire", closed: daysAgo(380), categories: ["wildfires"],
            geometry: [Geometry(date: daysAgo(400), shape: .point(longitude: 10, latitude: 40))]),
        Event(
            id: "EONET_9011", title: "Kilo Volcano, Indonesia", description: "Ash plumes rose to 2.4 km",
            categories: ["volcanoes"], sources: ["https://volcano.si.edu/volcano.cfm?vn=268010"],
            geometry: [
                Geometry(
                    date: daysAgo(60),
                    shape: .polygon([[[127.8, 1.6], [127.8, 1.8], [128, 1.8], [128, 1.6], [127.8, 1.6]]]))
            ]),
        Event(
            id: "EONET_9012", title: "Lima Volcano, Chile", categories: ["volcanoes"],
            sources: ["https://volcano.si.edu/volcano.cfm?vn=357070"],
            geometry: [Geometry(date: daysAgo(8), shape: .point(longitude: -71.7, latitude: -38.4))]),
        Event(
            id: "EONET_9013", title: "Iceberg A23I", categories: ["seaLakeIce"],
            sources: ["https://usicecenter.gov/pub/Iceberg_Tabular.csv"],
            geometry: [
                Geometry(
                    magnitude: 209, unit: "NM^2", date: daysAgo(19), shape: .point(longitude: -36.94, latitude: -53)),
                Geometry(
                    magnitude: 100.25, unit: "NM^2", date: daysAgo(12),
                    shape: .point(longitude: -37.11, latitude: -52.37)),
            ]),
        Event(
            id: "EONET_9014", title: "Mike Dust Storm, Sahara", closed: daysAgo(1), categories: ["dustHaze"],
            geometry: [Geometry(date: daysAgo(2), shape: .point(longitude: 5.5, latitude: 23.1))]),
        Event(
            id: "EONET_9015", title: "November Earthquake", closed: daysAgo(499), categories: ["earthquakes"],
            geometry: [
                Geometry(
                    magnitude: 6.1, unit: "Mw", date: daysAgo(500), shape: .point(longitude: 142.4, latitude: 38.3))
            ]),
    ]

    // MARK: - Documents

    /// The body of `GET /categories` listing `categories`, tab-indented as EONET writes it.
    package static func categoriesDocument(_ categories: [Category] = categories, api: String = api) -> String {
        EONETTemplate.categoriesDocument(categories.map { ($0.id, $0.title) }, api: api)
    }

    /// The body of `GET /events` listing `events` in the given order, with the real responses' odd
    /// indentation and number formats. A category id not in `categories` gets its id as title.
    package static func eventsDocument(_ events: [Event], api: String = api) -> String {
        EONETTemplate.eventsDocument(events.map { event(json: $0, api: api) }, link: "\(api)/events")
    }

    private static func event(json event: Event, api: String) -> String {
        let titles = Dictionary(categories.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
        return EONETTemplate.event(
            id: event.id, title: event.title, description: event.description, link: "\(api)/events/\(event.id)",
            closed: event.closed, categories: event.categories.map { ($0, titles[$0] ?? $0) },
            sources: event.sources.enumerated().map { ("SRC\($0.offset + 1)", $0.element) },
            geometry: event.geometry.map { geometry in
                let shape: EONETTemplate.Shape =
                    switch geometry.shape {
                    case .point(let longitude, let latitude): .point(longitude: longitude, latitude: latitude)
                    case .polygon(let rings): .polygon(rings)
                    }
                return EONETTemplate.Observation(
                    magnitude: geometry.magnitude, unit: geometry.unit, date: geometry.date, shape: shape)
            })
    }

    // MARK: - The server

    /// The events of `events` that `GET /events` with these parameters lists, in the server's order (newest
    /// first by first observation): in any of `categories` (all when empty), of `status`, active within the
    /// last `days` days before `now` (by their newest activity), at most `limit`.
    package static func matching(
        _ events: [Event], categories: [String] = [], status: String = "all", days: Int? = nil, limit: Int? = nil,
        now: Date = now
    ) -> [Event] {
        var selected = events.filter { event in
            (categories.isEmpty || !Set(categories).isDisjoint(with: event.categories))
                && (status == "all" || (status == "open") == (event.closed == nil))
                && (days.map { event.latest >= now.addingTimeInterval(-Double($0) * 86_400) } ?? true)
        }
        selected.sort { ($0.first, $0.id) > ($1.first, $1.id) }
        return limit.map { Array(selected.prefix($0)) } ?? selected
    }

    /// What an EONET server holding `categories` and `events` answers to a GET of `url`: `/categories`, or
    /// `/events` with `category` (comma-separated, OR), `status` (default open), `days` and `limit`; 404 for
    /// anything else, 400 for a malformed number.
    package static func answer(
        _ url: String, categories: [Category] = categories, events: [Event] = planet, api: String = api,
        now: Date = now
    ) -> (status: Int, body: String) {
        guard let components = URLComponents(string: url) else { return (400, #"{"error":"bad URL"}"#) }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        if components.path.hasSuffix("/categories") {
            return (200, categoriesDocument(categories, api: api))
        }
        guard components.path.hasSuffix("/events") else { return (404, #"{"error":"not found"}"#) }
        let days = query["days"].map { Int($0) }
        let limit = query["limit"].map { Int($0) }
        if days == .some(nil) || limit == .some(nil) { return (400, #"{"error":"bad number"}"#) }
        let wanted = (query["category"] ?? "").split(separator: ",").map(String.init)
        let listed = matching(
            events, categories: wanted, status: query["status"] ?? "open", days: days ?? nil, limit: limit ?? nil,
            now: now)
        return (200, eventsDocument(listed, api: api))
    }

    /// `answer(_:…)` as an HTTP response, for a `StubTransport`.
    package static func response(
        to request: HTTPRequest, categories: [Category] = categories, events: [Event] = planet, api: String = api,
        now: Date = now
    ) -> HTTPResponse {
        let (status, body) = answer(request.url, categories: categories, events: events, api: api, now: now)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }
}
