extension Item {
    /// A point on Earth in degrees: latitude north positive, longitude east positive.
    package struct Position: Sendable, Hashable {
        package var latitude: Double
        package var longitude: Double

        /// A position of `latitude` in -90…90 and `longitude` in -180…180; nil when either is out of range or not a
        /// number.
        init?(latitude: Double, longitude: Double) {
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Where the item is: its numeric `lat` and `lon` details (exec items), else its `position` detail written
    /// `lat 14.4, lon -99.4` (EONET items); nil when it has neither or they are not a valid position.
    package var position: Position? {
        if let latitude = detail("lat"), let longitude = detail("lon") {
            guard let latitude = Self.number(latitude), let longitude = Self.number(longitude) else { return nil }
            return Position(latitude: latitude, longitude: longitude)
        }
        guard let text = detail("position") else { return nil }
        let parts = text.split(separator: ",").map { $0.split(separator: " ") }
        guard parts.count == 2, parts[0].count == 2, parts[0][0] == "lat", parts[1].count == 2, parts[1][0] == "lon",
            let latitude = Self.number(String(parts[0][1])), let longitude = Self.number(String(parts[1][1]))
        else { return nil }
        return Position(latitude: latitude, longitude: longitude)
    }

    /// A detail's value read as a number (`5`, `-1.25`, ` 35 `), as rules compare it and positions are read; nil when
    /// it is not a finite one.
    static func number(_ text: String) -> Double? {
        let trimmed = text.trimmingWhitespace()
        guard let first = trimmed.first, first.isNumber || first == "-" || first == "+" || first == "." else {
            return nil
        }
        guard let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }
}
