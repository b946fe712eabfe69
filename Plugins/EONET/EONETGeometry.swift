import Foundation
import MonitorItems
import MonitorJSON

/// One observation of an event: `{"magnitudeValue","magnitudeUnit","date","type","coordinates"}`, as kept:
/// its position is worked out only for the observation an item shows.
struct EONETGeometry: Sendable, Hashable {
    /// GeoJSON coordinates: `[lon, lat]` for a Point, `[[[lon, lat], …]]` for a Polygon; at most
    /// `maximumDepth` lists deep (a MultiPolygon's).
    indirect enum Coordinates: Sendable, Hashable {
        /// One number.
        case number(Double)
        /// A list of numbers or lists.
        case list([Coordinates])

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

    /// The most lists a GeoJSON geometry's coordinates nest (a MultiPolygon: polygons, rings, positions).
    static let maximumDepth = 4

    /// A latitude and a longitude, in degrees.
    struct Position: Sendable, Hashable {
        /// North positive.
        var latitude: Double
        /// East positive.
        var longitude: Double

        /// `lat 14.4, lon -99.4`, as every position detail is written.
        var text: String { Item.Position.text(latitude: latitude, longitude: longitude) }
    }

    /// The magnitude (`35.00`), null for most events.
    var magnitudeValue: Double?
    /// Its unit (`kts`, `acres`, `NM^2`), null with it.
    var magnitudeUnit: String?
    /// When it was observed.
    var date: Date
    /// `Point` or `Polygon`.
    var type: String
    /// Where (see `position(of:_:)`); nil when its coordinates give none or were not read.
    var position: Position?

    /// `35 kts`, `100.25 NM^2`; nil when the magnitude is null.
    var magnitude: String? {
        guard let magnitudeValue else { return nil }
        var text = DecimalText.number(magnitudeValue, fractionDigits: 2)
        if let magnitudeUnit {
            text += " "
            text += magnitudeUnit
        }
        return text
    }
}

// MARK: - Reading

extension EONETGeometry {
    /// An observation as read, its texts where they are in the document: only those of the observations an item
    /// shows are made.
    struct Observation: Sendable, Equatable {
        /// The magnitude; nil when null.
        var magnitudeValue: Double?
        /// Its unit, checked; nil when null.
        var magnitudeUnit: JSONText?
        /// When it was observed.
        var date: Date
        /// Its type, checked; nil when null.
        var type: JSONText?
        /// The offset of its coordinates in the document; nil when it has none.
        var coordinates: Int?

        /// The observation as kept, its texts made from `reader`'s document (the unit collapsed, the type trimmed),
        /// without a position.
        func geometry(_ reader: JSONReader) -> EONETGeometry {
            let unit = magnitudeUnit.map { reader.string($0).collapsingWhitespace() }
            return EONETGeometry(
                magnitudeValue: magnitudeValue, magnitudeUnit: unit.flatMap { $0.isEmpty ? nil : $0 }, date: date,
                type: type.map { reader.trimmedString($0) } ?? "")
        }
    }

    /// What an event's list of observations comes to: how many, the newest (the last listed of the newest date)
    /// and the newest with a magnitude.
    struct Track: Sendable {
        /// How many observations.
        var count = 0
        /// The newest.
        var newest: Observation?
        /// The newest with a magnitude.
        var newestMagnitude: Observation?

        /// Takes `observation`, listed after those before, into account.
        mutating func add(_ observation: Observation) {
            count += 1
            if observation.magnitudeValue != nil, newestMagnitude.map({ observation.date >= $0.date }) ?? true {
                newestMagnitude = observation
            }
            if newest.map({ observation.date >= $0.date }) ?? true { newest = observation }
        }
    }

    /// The list of observations that must come next (or null: none), their coordinates checked and skipped.
    static func track(_ reader: inout JSONReader) throws(JSONError) -> Track {
        var track = Track()
        guard try !reader.null() else { return track }
        try reader.elements { (reader) throws(JSONError) in track.add(try observation(&reader)) }
        return track
    }

    /// The members of an observation in the order EONET writes them.
    private static let keys: [StaticString] = ["magnitudeValue", "magnitudeUnit", "date", "type", "coordinates"]

    /// The observation that must come next.
    static func observation(_ reader: inout JSONReader) throws(JSONError) -> Observation {
        var magnitudeValue: Double?
        var magnitudeUnit: JSONText?
        var date: Date?
        var type: JSONText?
        var coordinates: Int?
        try reader.members(likely: keys) { (key, reader) throws(JSONError) in
            if reader.key(key, is: "magnitudeValue") {
                magnitudeValue = try reader.null() ? nil : try reader.number()
            } else if reader.key(key, is: "magnitudeUnit") {
                magnitudeUnit = try reader.optionalStringText()
            } else if reader.key(key, is: "date") {
                date = try EONETText.date(&reader)
            } else if reader.key(key, is: "type") {
                type = try reader.optionalStringText()
            } else if reader.key(key, is: "coordinates") {
                coordinates = try reader.null() ? nil : reader.offset
                // Coordinates of another shape (texts, nested too deep) leave the observation without a position,
                // not its event unread: only invalid JSON fails the answer.
                if coordinates != nil, !reader.skipNumbers(lists: maximumDepth) {
                    coordinates = nil
                    try reader.skip()
                }
            }
        }
        guard let date else { throw .missing("date") }
        return Observation(
            magnitudeValue: magnitudeValue, magnitudeUnit: magnitudeUnit, date: date, type: type,
            coordinates: coordinates)
    }

    /// The coordinates that must come next (checked before by `JSONReader.skipNumbers(lists:)`).
    static func coordinates(_ reader: inout JSONReader) throws(JSONError) -> Coordinates {
        guard try reader.kind() == .array else { return .number(try reader.number()) }
        var values: [Coordinates] = []
        try reader.elements { (reader) throws(JSONError) in values.append(try coordinates(&reader)) }
        return .list(values)
    }

    /// Where an observation of `type` with the coordinates that come next was: the point of a Point; for a
    /// Polygon, the mean of its outer ring's corners (the closing corner, which repeats the first, left out) —
    /// the centre of the boxes EONET draws around a plume or an ice shelf. Any other shape gives its first point.
    static func position(of type: String, _ reader: inout JSONReader) throws(JSONError) -> Position? {
        // The usual shapes are read as they come; any other falls back to the coordinates as a tree.
        let start = reader
        switch type {
        case "Point": if let point = try? point(&reader) { return point }
        case "Polygon": if let centre = try? outerRingCentre(&reader) { return centre }
        default: break
        }
        reader = start
        let coordinates = try coordinates(&reader)
        switch type {
        case "Point":
            return coordinates.point
        case "Polygon":
            guard case .list(let rings) = coordinates, let ring = rings.first, case .list(let corners) = ring else {
                return coordinates.firstPoint
            }
            var points = corners.compactMap(\.point)
            if points.count > 1, points.first == points.last { points.removeLast() }
            return centre(of: points)
        default:
            return coordinates.firstPoint
        }
    }

    /// The `[lon, lat, …]` that must come next, when it is one (nil: another shape, read as a tree).
    private static func point(_ reader: inout JSONReader) throws(JSONError) -> Position? {
        guard try reader.kind() == .array else { return nil }
        try reader.enterArray()
        guard try reader.nextElement(0), try reader.kind() == .number else { return nil }
        let longitude = try reader.number()
        guard try reader.nextElement(1), try reader.kind() == .number else { return nil }
        let latitude = try reader.number()
        var index = 2
        while try reader.nextElement(index) {
            guard try reader.kind() == .number else { return nil }
            try reader.skip()
            index += 1
        }
        return Position(latitude: latitude, longitude: longitude)
    }

    /// The centre of the Polygon whose coordinates come next, as `centre(of:)` gives it for the points of its
    /// outer ring (its closing corner left out), summed as they come; nil when the coordinates are not
    /// `[[[lon, lat], …], …]` with at least one corner.
    private static func outerRingCentre(_ reader: inout JSONReader) throws(JSONError) -> Position? {
        guard try reader.kind() == .array else { return nil }
        try reader.enterArray()
        guard try reader.nextElement(0), try reader.kind() == .array else { return nil }
        try reader.enterArray()
        var first: Position?
        // Each corner is added once the next one is read: the last is left out when it closes the ring.
        var pending: Position?
        var count = 0
        var latitudes = 0.0
        var longitudes = 0.0
        var shifted = 0.0
        var lowest = Double.infinity
        var highest = -Double.infinity
        func add(_ point: Position) {
            count += 1
            latitudes += point.latitude
            longitudes += point.longitude
            shifted += point.longitude < 0 ? point.longitude + 360 : point.longitude
            lowest = min(lowest, point.longitude)
            highest = max(highest, point.longitude)
        }
        var corner = 0
        while try reader.nextElement(corner) {
            guard let point = try point(&reader) else { return nil }
            if let pending { add(pending) }
            if first == nil { first = point }
            pending = point
            corner += 1
        }
        guard let last = pending else { return nil }
        if corner == 1 || last != first { add(last) }
        // What `centre(of:)` does with the points.
        var longitude = (highest - lowest > 180 ? shifted : longitudes) / Double(count)
        if longitude > 180 { longitude -= 360 }
        return Position(latitude: latitudes / Double(count), longitude: longitude)
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
}
