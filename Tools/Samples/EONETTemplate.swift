import Foundation
import MonitorCore
import MonitorJSON

/// The JSON the EONET v3 API writes, laid out as the real server lays it out (odd tab-and-space indentation,
/// `35.00`-style magnitudes, `null`s, `[lon, lat]` points and Polygon rings).
///
/// One template for the test fixtures and `monitor-standin`, so that both write the same bytes for the same data.
package enum EONETTemplate {
    /// The 13 categories of EONET v3, in the server's order.
    package static let categories: [(id: String, title: String)] = [
        ("drought", "Drought"), ("dustHaze", "Dust and Haze"), ("earthquakes", "Earthquakes"), ("floods", "Floods"),
        ("landslides", "Landslides"), ("manmade", "Manmade"), ("seaLakeIce", "Sea and Lake Ice"),
        ("severeStorms", "Severe Storms"), ("snow", "Snow"), ("tempExtremes", "Temperature Extremes"),
        ("volcanoes", "Volcanoes"), ("waterColor", "Water Color"), ("wildfires", "Wildfires"),
    ]

    /// Where an observation was, as GeoJSON writes it.
    package enum Shape: Sendable, Hashable {
        /// A point: `"coordinates": [lon, lat]`.
        case point(longitude: Double, latitude: Double)
        /// A polygon: `"coordinates": [[[lon, lat], …], …]`, each corner as `[lon, lat]`.
        case polygon([[[Double]]])
    }

    /// One observation of an event.
    package struct Observation: Sendable {
        /// The magnitude, nil for `null`.
        package var magnitude: Double?
        /// Its unit, nil for `null`.
        package var unit: String?
        /// When.
        package var date: Date
        /// Where.
        package var shape: Shape

        /// An observation.
        package init(magnitude: Double?, unit: String?, date: Date, shape: Shape) {
            self.magnitude = magnitude
            self.unit = unit
            self.date = date
            self.shape = shape
        }
    }

    // MARK: - Documents

    /// The body of `GET /categories` listing `categories`, their links under `api`.
    package static func categoriesDocument(_ categories: [(id: String, title: String)], api: String) -> String {
        let entries = categories.map { category in
            """
            \t\t{
            \t\t\t"id": \(quoted(category.id)),
            \t\t\t"title": \(quoted(category.title)),
            \t\t\t"link": \(quoted("\(api)/categories/\(category.id)")),
            \t\t\t"description": \(quoted("Events of the \(category.title) category.")),
            \t\t\t"layers": \(quoted("\(api)/layers/\(category.id)"))
            \t\t}
            """
        }
        return """
            {
            \t"title": "EONET Event Categories",
            \t"description": "List of all the available event categories in the EONET system",
            \t"link": \(quoted("\(api)/categories")),
            \t"categories": [
            \(entries.joined(separator: ",\n"))
            \t]
            }

            """
    }

    /// The body of `GET /events` (or `/categories/{id}`): `events` (each made by ``event(id:title:description:link:closed:categories:sources:geometry:)``)
    /// in the given order, under `title`, linking to `link`.
    package static func eventsDocument(_ events: [String], title: String = "EONET Events", link: String) -> String {
        eventsHead(title: title, link: link) + events.joined(separator: eventsSeparator) + eventsTail
    }

    /// What an events document starts with, up to its first event.
    package static func eventsHead(title: String = "EONET Events", link: String) -> String {
        """
        {
        \t"title": \(quoted(title)),
        \t"description": "Natural events from EONET.",
        \t"link": \(quoted(link)),
        \t"events": [

        """
    }

    /// What an events document puts between two events.
    package static let eventsSeparator = ",\n\n"

    /// What an events document ends with, after its last event.
    package static let eventsTail = "\n\t]\n}\n"

    /// One event's JSON object, indented as an element of `"events"`. `categories` are (id, title) pairs, `sources`
    /// (id, url) pairs; text is written as given (an `&amp;` in a URL stays as the server sends it).
    package static func event(
        id: String, title: String, description: String?, link: String, closed: Date?,
        categories: [(id: String, title: String)], sources: [(id: String, url: String)], geometry: [Observation]
    ) -> String {
        let categoryEntries = categories.map { category in
            "\t\t\t\t\t{\n\t\t\t\t\t\"id\": \(quoted(category.id)),\n\t\t\t\t\t\"title\": \(quoted(category.title))\n\t\t\t\t}"
        }
        let sourceEntries = sources.map { source in
            "\t\t\t\t\t{\n\t\t\t\t\t\"id\": \(quoted(source.id)),\n\t\t\t\t\t\"url\": \(quoted(source.url))\n\t\t\t\t}"
        }
        let geometryEntries = geometry.map { observation in
            """
            \t\t\t\t\t{
            \t\t\t\t\t\t\t"magnitudeValue": \(observation.magnitude.map { String(format: "%.2f", $0) } ?? "null"),
            \t\t\t\t\t"magnitudeUnit": \(observation.unit.map(quoted) ?? "null"),
            \t\t\t\t\t"date": \(quoted(ISO8601.string(observation.date))),
            \t\t\t\t\t"type": \(quoted(shapeName(observation.shape))),\u{20}
            \t\t\t\t\t\t\t"coordinates": \(coordinates(observation.shape))
            \t\t\t\t\t\t\t}
            """
        }
        return """
            \t\t{
            \t\t\t"id": \(quoted(id)),
            \t\t\t"title": \(quoted(title)),
                        "description": \(description.map(quoted) ?? "null"),
            \t\t\t"link": \(quoted(link)),
            \t\t\t"closed": \(closed.map { quoted(ISO8601.string($0)) } ?? "null"),
            \t\t\t\t"categories": [
            \(categoryEntries.joined(separator: ",\n\n"))

            \t    \t\t\t\t],
                \t\t\t"sources": [
            \(sourceEntries.joined(separator: ",\n\n"))

            \t\t\t\t\t\t
            \t\t\t],
            \t\t\t\t\t"geometry": [
            \(geometryEntries.joined(separator: ",\n\n"))

            \t\t\t\t\t\t
            \t\t\t]
            \t\t}
            """
    }

    // MARK: - Parts

    private static func shapeName(_ shape: Shape) -> String {
        switch shape {
        case .point: "Point"
        case .polygon: "Polygon"
        }
    }

    private static func coordinates(_ shape: Shape) -> String {
        switch shape {
        case .point(let longitude, let latitude):
            return "[ \(number(longitude)), \(number(latitude)) ]"
        case .polygon(let rings):
            let written = rings.map { ring in
                "[ "
                    + ring.map { corner in "[ " + corner.map(number).joined(separator: ", ") + " ]" }
                    .joined(separator: ", ") + " ]"
            }
            return "[ " + written.joined(separator: ", ") + " ]"
        }
    }

    /// `-53`, `14.4`, `127.84730549567904`: JSON numbers as the server writes them.
    private static func number(_ value: Double) -> String {
        JSONValue.number(value).text
    }

    /// `text` as a JSON string.
    private static func quoted(_ text: String) -> String {
        JSONValue.string(text).text
    }
}
