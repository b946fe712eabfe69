import Foundation
import MonitorCore

/// One observation of an event: `{"magnitudeValue","magnitudeUnit","date","type","coordinates"}`.
struct EONETGeometry: Decodable, Sendable, Hashable {
    /// GeoJSON coordinates, nested to any depth: `[lon, lat]` for a Point, `[[[lon, lat], …]]` for a Polygon.
    indirect enum Coordinates: Decodable, Sendable, Hashable {
        /// One number.
        case number(Double)
        /// A list of numbers or lists.
        case list([Coordinates])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .list(try container.decode([Coordinates].self))
            }
        }

        /// `[lon, lat, …]` as a position.
        var point: Position? {
            guard case .list(let values) = self, values.count >= 2, case .number(let longitude) = values[0],
                case .number(let latitude) = values[1]
            else { return nil }
            return Position(latitude: latitude, longitude: longitude)
        }

        /// The first `[lon, lat]` found, depth first.
        var firstPoint: Position? {
            if let point { return point }
            guard case .list(let values) = self else { return nil }
            return values.lazy.compactMap(\.firstPoint).first
        }
    }

    /// A latitude and a longitude, in degrees.
    struct Position: Sendable, Hashable {
        /// North positive.
        var latitude: Double
        /// East positive.
        var longitude: Double

        /// `lat 14.4, lon -99.4`: up to four decimals (about 10 m).
        var text: String {
            "lat \(EONETText.number(latitude, fractionDigits: 4)), lon \(EONETText.number(longitude, fractionDigits: 4))"
        }
    }

    /// The magnitude (`35.00`), null for most events.
    var magnitudeValue: Double?
    /// Its unit (`kts`, `acres`, `NM^2`), null with it.
    var magnitudeUnit: String?
    /// When it was observed.
    var date: Date
    /// `Point` or `Polygon`.
    var type: String
    /// Where.
    var coordinates: Coordinates

    private enum CodingKeys: String, CodingKey {
        case magnitudeValue, magnitudeUnit, date, type, coordinates
    }

    /// A geometry.
    init(magnitudeValue: Double?, magnitudeUnit: String?, date: Date, type: String, coordinates: Coordinates) {
        self.magnitudeValue = magnitudeValue
        self.magnitudeUnit = magnitudeUnit
        self.date = date
        self.type = type
        self.coordinates = coordinates
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        magnitudeValue = try container.decodeIfPresent(Double.self, forKey: .magnitudeValue)
        magnitudeUnit = try container.decodeIfPresent(String.self, forKey: .magnitudeUnit).map(EONETText.collapsed)
            .flatMap { $0.isEmpty ? nil : $0 }
        date = try EONETEvent.date(in: container, forKey: .date)
        type = EONETText.trimmed(try container.decodeIfPresent(String.self, forKey: .type) ?? "")
        coordinates = try container.decodeIfPresent(Coordinates.self, forKey: .coordinates) ?? .list([])
    }

    /// Where the event was: the point of a Point; for a Polygon, the mean of its outer ring's corners (the
    /// closing corner, which repeats the first, left out) — the centre of the boxes EONET draws around a
    /// plume or an ice shelf. Any other shape gives its first point.
    var position: Position? {
        switch type {
        case "Point":
            return coordinates.point
        case "Polygon":
            guard case .list(let rings) = coordinates, let ring = rings.first, case .list(let corners) = ring else {
                return coordinates.firstPoint
            }
            var points = corners.compactMap(\.point)
            if points.count > 1, points.first == points.last { points.removeLast() }
            return Self.centre(of: points)
        default:
            return coordinates.firstPoint
        }
    }

    /// The mean of `points`; a ring that crosses the antimeridian is averaged on the 0…360 side.
    static func centre(of points: [Position]) -> Position? {
        guard !points.isEmpty else { return nil }
        let longitudes = points.map(\.longitude)
        let crosses = (longitudes.max() ?? 0) - (longitudes.min() ?? 0) > 180
        let shifted = crosses ? longitudes.map { $0 < 0 ? $0 + 360 : $0 } : longitudes
        var longitude = shifted.reduce(0, +) / Double(points.count)
        if longitude > 180 { longitude -= 360 }
        let latitude = points.map(\.latitude).reduce(0, +) / Double(points.count)
        return Position(latitude: latitude, longitude: longitude)
    }

    /// `35 kts`, `100.25 NM^2`; nil when the magnitude is null.
    var magnitude: String? {
        guard let magnitudeValue else { return nil }
        let number = EONETText.number(magnitudeValue, fractionDigits: 2)
        return magnitudeUnit.map { "\(number) \($0)" } ?? number
    }
}
