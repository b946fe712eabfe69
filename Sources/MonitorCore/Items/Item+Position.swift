extension Item {
    /// A point on Earth in degrees: latitude north positive, longitude east positive.
    package struct Position: Sendable, Hashable {
        package var latitude: Double
        package var longitude: Double

        /// A position of `latitude` in -90…90 and `longitude` in -180…180; nil when either is out of range or not a
        /// number.
        package init?(latitude: Double, longitude: Double) {
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Where the item is: its numeric `lat` and `lon` details (exec items), else its `position` detail written
    /// `lat 14.4, lon -99.4` (EONET items); nil when it has neither or they are not a valid position.
    package var position: Position? {
        if let latitude = detail("lat"), let longitude = detail("lon") {
            guard let latitude = Double(latitude), let longitude = Double(longitude) else { return nil }
            return Position(latitude: latitude, longitude: longitude)
        }
        guard let text = detail("position") else { return nil }
        let parts = text.split(separator: ",").map { $0.split(separator: " ") }
        guard parts.count == 2, parts[0].count == 2, parts[0][0] == "lat", parts[1].count == 2, parts[1][0] == "lon",
            let latitude = Double(parts[0][1]), let longitude = Double(parts[1][1])
        else { return nil }
        return Position(latitude: latitude, longitude: longitude)
    }
}
