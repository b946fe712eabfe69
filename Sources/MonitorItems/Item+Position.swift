import MonitorJSON
import MonitorText

extension Item {
    /// A point on Earth in degrees: latitude north positive, longitude east positive.
    package struct Position: Sendable, Hashable, Codable {
        package private(set) var latitude: Double
        package private(set) var longitude: Double

        /// A position of `latitude` in -90…90 and `longitude` in -180…180; nil when either is out of range or not a
        /// number.
        package init?(latitude: Double, longitude: Double) {
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
            self.latitude = latitude
            self.longitude = longitude
        }

        /// Decoded within the same bounds.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard
                let position = Position(
                    latitude: try container.decode(Double.self, forKey: .latitude),
                    longitude: try container.decode(Double.self, forKey: .longitude))
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .latitude, in: container, debugDescription: "not a position")
            }
            self = position
        }

        /// `lat 14.4, lon -99.4`: the position's text detail.
        package var text: String { Self.text(latitude: latitude, longitude: longitude) }

        /// `lat 14.4, lon -99.4`: up to four decimals (about 10 m).
        package static func text(latitude: Double, longitude: Double) -> String {
            // Written in one buffer: "lat " and ", lon " and two numbers of at most 24 bytes.
            let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer -> String? in
                var count = 0
                func put(_ label: StaticString, _ value: Double) -> Bool {
                    for index in 0..<label.utf8CodeUnitCount { buffer[count + index] = label.utf8Start[index] }
                    count += label.utf8CodeUnitCount
                    let room = UnsafeMutableBufferPointer(rebasing: buffer[count...])
                    guard let digits = DecimalText.write(value, fractionDigits: 4, into: room) else { return false }
                    count += digits
                    return true
                }
                guard put("lat ", latitude), put(", lon ", longitude) else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
            }
            return written
                ?? "lat \(DecimalText.number(latitude, fractionDigits: 4)), lon \(DecimalText.number(longitude, fractionDigits: 4))"
        }
    }

    /// A measure of an event and its unit, as its source gives them: `45.5` `kts`, `1250` `acres`.
    package struct Magnitude: Sendable, Hashable, Codable {
        package private(set) var value: Double
        /// Without control characters, at most ``maximumUnit`` characters; nil when the source gives none.
        package private(set) var unit: String?

        /// The most characters of a unit.
        static let maximumUnit = 40

        /// A magnitude of a finite `value`; nil otherwise. An empty unit is none.
        package init?(value: Double, unit: String?) {
            guard value.isFinite else { return nil }
            self.value = value
            self.unit = unit.map { TerminalText.capped($0, to: Self.maximumUnit) }.flatMap { $0.isEmpty ? nil : $0 }
        }

        /// Decoded within the same bounds.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard
                let magnitude = Magnitude(
                    value: try container.decode(Double.self, forKey: .value),
                    unit: try container.decodeIfPresent(String.self, forKey: .unit))
            else {
                throw DecodingError.dataCorruptedError(forKey: .value, in: container, debugDescription: "not finite")
            }
            self = magnitude
        }
    }

    /// Where the item is: its ``location``, else its numeric `lat` and `lon` details (an exec source's); nil when it
    /// has neither or they are not a valid position.
    package var position: Position? {
        if let location { return location }
        guard let latitude = detail("lat"), let longitude = detail("lon") else { return nil }
        guard let latitude = Self.number(latitude), let longitude = Self.number(longitude) else { return nil }
        return Position(latitude: latitude, longitude: longitude)
    }

    /// `lat`, `lon` (its ``position``), `magnitude_value` and `magnitude_unit` (its ``magnitude``) as JSON numbers and
    /// a text, those it has, for the JSON outputs to add after its details.
    package var numbersJSON: [(key: String, value: JSONValue)] {
        var fields: [(key: String, value: JSONValue)] = []
        if let position {
            fields += [("lat", .number(position.latitude)), ("lon", .number(position.longitude))]
        }
        if let magnitude {
            fields.append(("magnitude_value", .number(magnitude.value)))
            if let unit = magnitude.unit { fields.append(("magnitude_unit", .string(unit))) }
        }
        return fields
    }

    /// A detail's value read as a number (`5`, `-1.25`, ` 35 `), as rules compare it and positions are read; nil when
    /// it is not a finite one.
    package static func number(_ text: String) -> Double? {
        let trimmed = text.trimmingWhitespace()
        guard let first = trimmed.first, first.isNumber || first == "-" || first == "+" || first == "." else {
            return nil
        }
        guard let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }
}
