/// The part of the Earth a map shows, in degrees, drawn on an equirectangular projection: longitude grows to the
/// right, latitude upwards, each evenly.
struct MapBox: Sendable, Hashable {
    var west: Double
    var south: Double
    var east: Double
    var north: Double

    /// The whole Earth.
    static let world = MapBox(west: -180, south: -90, east: 180, north: 90)

    /// The box around `points` with a margin of 10 % of its width and height on each side, or 2° where that is
    /// larger (so that a single point or points on one line get a box of at least 4°), kept within the world: a box
    /// never crosses the antimeridian. Nil when there are no points.
    static func around(_ points: [(longitude: Double, latitude: Double)]) -> MapBox? {
        guard let first = points.first else { return nil }
        var box = MapBox(west: first.longitude, south: first.latitude, east: first.longitude, north: first.latitude)
        for point in points.dropFirst() {
            box.west = min(box.west, point.longitude)
            box.east = max(box.east, point.longitude)
            box.south = min(box.south, point.latitude)
            box.north = max(box.north, point.latitude)
        }
        let across = max((box.east - box.west) * 0.1, 2)
        let down = max((box.north - box.south) * 0.1, 2)
        return MapBox(
            west: max(box.west - across, -180), south: max(box.south - down, -90), east: min(box.east + across, 180),
            north: min(box.north + down, 90))
    }

    /// The dot of a canvas `width`×`height` dots where the point falls: column `floor((lon − west) / (east − west) ×
    /// width)`, row `floor((north − lat) / (north − south) × height)`, the east and south edges in the last column and
    /// row; nil when the point is outside the box.
    func dot(longitude: Double, latitude: Double, width: Int, height: Int) -> (x: Int, y: Int)? {
        guard (west...east).contains(longitude), (south...north).contains(latitude) else { return nil }
        let (x, y) = unclampedDot(longitude: longitude, latitude: latitude, width: width, height: height)
        return (min(x, width - 1), min(y, height - 1))
    }

    /// The dot of the formula of `dot(longitude:latitude:width:height:)` for any point, inside the box or not (lines
    /// are drawn between such dots and only their dots on the canvas are set), kept within a million dots of the box.
    func unclampedDot(longitude: Double, latitude: Double, width: Int, height: Int) -> (x: Int, y: Int) {
        let x = ((longitude - west) / (east - west) * Double(width)).rounded(.down)
        let y = ((north - latitude) / (north - south) * Double(height)).rounded(.down)
        let limit = 1_000_000.0
        return (Int(min(max(x, -limit), limit)), Int(min(max(y, -limit), limit)))
    }
}
