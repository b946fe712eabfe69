import Foundation
import MonitorCore
import Samples

/// Generated EONET v3 data: the 13 real categories and `count` events spread over them, each event's JSON
/// written once by the template the test fixtures use (`EONETTemplate`: the real server's layout), with `&amp;`
/// in source URLs.
struct EONETData: Sendable {
    /// One event: what the server filters on, and its JSON.
    struct Event: Sendable {
        /// `EONET_20001`.
        var id: String
        /// Its first observation: the server lists events newest first by it.
        var first: Date
        /// Its newest activity (last observation, or closing when later): what `days` filters on.
        var latest: Date
        /// Whether it is closed.
        var closed: Bool
        /// Its category ids.
        var categories: [String]
        /// Its JSON object, indented as an element of `"events"`.
        var json: [UInt8]
    }

    /// The 13 categories of EONET v3, in the server's order.
    static let categories = EONETTemplate.categories

    /// How often each category is an event's first one, roughly as on the real service.
    private static let weights: [(String, Int)] = [
        ("wildfires", 46), ("severeStorms", 14), ("volcanoes", 7), ("seaLakeIce", 6), ("floods", 6), ("dustHaze", 4),
        ("earthquakes", 3), ("landslides", 3), ("drought", 2), ("manmade", 2), ("snow", 2), ("tempExtremes", 2),
        ("waterColor", 1),
    ]

    /// The API root the documents' links name, `http://127.0.0.1:PORT/api/v3`.
    let api: String
    /// The events, newest first by their first observation (the server's order).
    let events: [Event]
    /// How many events each category has (an event in two categories counts in both).
    let counts: [String: Int]
    /// The moment the data is dated back from.
    let now: Date

    /// `count` events made from `seed`, their activity in the 300 days before `now`; one in ten is in two
    /// categories and about a third are closed.
    init(count: Int, seed: UInt64, now: Date, api: String) {
        self.api = api
        self.now = now
        let titles = Dictionary(uniqueKeysWithValues: Self.categories.map { ($0.id, $0.title) })
        var events: [Event] = []
        events.reserveCapacity(count)
        var counts = Dictionary(uniqueKeysWithValues: Self.categories.map { ($0.id, 0) })
        for index in 0..<count {
            let event = Self.event(index, seed: seed, now: now, api: api, titles: titles)
            for category in event.categories { counts[category, default: 0] += 1 }
            events.append(event)
        }
        events.sort { ($0.first, $0.id) > ($1.first, $1.id) }
        self.events = events
        self.counts = counts
    }

    // MARK: - Documents

    /// The body of `GET /categories`.
    func categoriesDocument() -> [UInt8] {
        Array(EONETTemplate.categoriesDocument(Self.categories, api: api).utf8)
    }

    /// The events `GET /events` lists with these parameters, in the server's order: in any of `categories`
    /// (all when nil), of `status` (`open`, `closed` or `all`), active within the last `days` days, at most
    /// `limit`.
    func select(categories: Set<String>?, status: String, days: Int?, limit: Int?) -> [Event] {
        let since = days.map { now.addingTimeInterval(-Double($0) * 86_400) }
        var selected: [Event] = []
        for event in events {
            if let limit, selected.count >= limit { break }
            if let categories, categories.isDisjoint(with: event.categories) { continue }
            if status == "open" && event.closed || status == "closed" && !event.closed { continue }
            if let since, event.latest < since { continue }
            selected.append(event)
        }
        return selected
    }

    /// The body of `GET /events` (or `/categories/{id}`) listing `events`.
    func eventsDocument(_ events: [Event], title: String = "EONET Events", link: String? = nil) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(events.reduce(256) { $0 + $1.json.count + 3 })
        body += Array(EONETTemplate.eventsHead(title: title, link: link ?? "\(api)/events").utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { body += Array(EONETTemplate.eventsSeparator.utf8) }
            body += event.json
        }
        body += Array(EONETTemplate.eventsTail.utf8)
        return body
    }

    // MARK: - Making events

    private static func event(
        _ index: Int, seed: UInt64, now: Date, api: String, titles: [String: String]
    ) -> Event {
        var random = SeededRandom(seed: seed, 1, UInt64(index))
        let id = "EONET_\(20_000 + index)"
        let primary = random.weighted(weights)
        var categories = [primary]
        if random.chance(10) {
            var second = primary
            while second == primary { second = Self.categories[random.below(Self.categories.count)].id }
            categories.append(second)
        }

        // Observations, oldest first, every 6 hours from the first; storms are tracked longest.
        let observations: Int
        switch primary {
        case "severeStorms": observations = 2 + random.below(7)
        case "seaLakeIce", "wildfires": observations = 1 + random.below(2)
        default: observations = 1
        }
        let first = now.addingTimeInterval(-Double(1 + random.below(300 * 86_400 - 3 * 86_400)))
        var longitude = Double(random.below(360_000_000)) / 1_000_000 - 180
        var latitude = Double(random.below(140_000_000)) / 1_000_000 - 70
        var geometry: [EONETTemplate.Observation] = []
        var last = first
        for step in 0..<observations {
            last = first.addingTimeInterval(Double(step) * 21_600)
            let (magnitude, unit) = Self.magnitude(of: primary, &random)
            let shape: EONETTemplate.Shape
            if primary == "volcanoes" && random.chance(30) || primary == "seaLakeIce" && random.chance(20) {
                let corners = [(0.0, 0.0), (0.0, 0.2), (0.2, 0.2), (0.2, 0.0), (0.0, 0.0)]
                shape = .polygon([corners.map { dx, dy in [longitude + dx, latitude + dy] }])
            } else {
                shape = .point(longitude: longitude, latitude: latitude)
            }
            geometry.append(EONETTemplate.Observation(magnitude: magnitude, unit: unit, date: last, shape: shape))
            longitude = min(180, max(-180, longitude - 0.3 - Double(random.below(100)) / 100))
            latitude = min(85, max(-85, latitude + 0.2 + Double(random.below(50)) / 100))
        }
        let closedDate: Date? =
            random.chance(35) ? min(now, last.addingTimeInterval(Double(1 + random.below(5)) * 86_400)) : nil

        let title = Self.title(of: primary, index: index, &random)
        let description: String? =
            random.chance(20) ? "Reported \(random.below(40) + 1) km from the nearest town; monitoring continues." : nil
        var sources = ["https://\(sourceHost(of: primary))/report.aspx?eventid=\(100_000 + index)&amp;eventtype=EV"]
        if random.chance(25) { sources.append("https://irwin.doi.gov/observer/incidents/\(index)") }

        let json = EONETTemplate.event(
            id: id, title: title, description: description, link: "\(api)/events/\(id)", closed: closedDate,
            categories: categories.map { ($0, titles[$0] ?? $0) },
            sources: sources.enumerated().map { (sourceID(of: primary, $0.offset), $0.element) }, geometry: geometry)
        return Event(
            id: id, first: first, latest: max(last, closedDate ?? last), closed: closedDate != nil,
            categories: categories, json: Array(json.utf8))
    }

    private static func magnitude(of category: String, _ random: inout SeededRandom) -> (Double?, String?) {
        switch category {
        case "severeStorms": return (Double(25 + random.below(26) * 5), "kts")
        case "wildfires" where random.chance(60): return (Double(random.below(2_000_000)) / 100, "acres")
        case "seaLakeIce": return (Double(random.below(40_000)) / 100, "NM^2")
        default: return (nil, nil)
        }
    }

    private static func title(of category: String, index: Int, _ random: inout SeededRandom) -> String {
        let places = ["California", "Alberta", "Queensland", "Chile", "Indonesia", "Kenya", "Sahara", "Siberia"]
        let place = places[random.below(places.count)]
        switch category {
        case "wildfires": return "Wildfire \(index), \(place)"
        case "severeStorms":
            return ["Tropical Storm", "Hurricane", "Typhoon", "Cyclone"][random.below(4)] + " S\(index)"
        case "volcanoes": return "Volcano \(index), \(place)"
        case "seaLakeIce": return "Iceberg A\(index)"
        default: return "\(category.prefix(1).uppercased())\(category.dropFirst()) event \(index), \(place)"
        }
    }

    private static func sourceHost(of category: String) -> String {
        switch category {
        case "wildfires": "inciweb.wildfire.gov"
        case "severeStorms": "www.gdacs.org"
        case "volcanoes": "volcano.si.edu"
        case "seaLakeIce": "usicecenter.gov"
        default: "eonet.example.org"
        }
    }

    private static func sourceID(of category: String, _ offset: Int) -> String {
        offset > 0
            ? "IRWIN" : ["wildfires": "InciWeb", "severeStorms": "GDACS", "volcanoes": "SIVolcano"][category] ?? "EO"
    }

}
