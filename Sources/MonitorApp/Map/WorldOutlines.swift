/// The land outlines `monitor map` draws: Natural Earth's 1:110m country outlines (ne_110m_admin_0_countries, public
/// domain, https://www.naturalearthdata.com/about/terms-of-use/), 290 polylines of 10,577 points, converted once by
/// scripts/naturalearth/convert.py (where they came from, and the format) into `world-110m.outlines`, which the
/// build embeds in the binary.
enum WorldOutlines {
    /// The outlines as polylines of (longitude, latitude) in degrees, decoded once.
    static let lines: [[(longitude: Double, latitude: Double)]] = decode(PackageResources.world_110m_outlines)

    /// The polylines of the format convert.py writes: per line its point count, its first point, then the differences,
    /// as zigzag varints of hundredths of a degree (longitude, latitude). Stops at the first malformed line (the data
    /// is generated, and a test checks that all of it decodes).
    static func decode(_ bytes: [UInt8]) -> [[(longitude: Double, latitude: Double)]] {
        var index = 0
        func next() -> Int? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count, shift < 64 {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return Int(Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)) }
                shift += 7
            }
            return nil
        }
        var lines: [[(longitude: Double, latitude: Double)]] = []
        while index < bytes.count {
            guard let count = next(), count > 0 else { break }
            var line: [(longitude: Double, latitude: Double)] = []
            line.reserveCapacity(count)
            var longitude = 0
            var latitude = 0
            for _ in 0..<count {
                guard let east = next(), let north = next() else { return lines }
                longitude += east
                latitude += north
                line.append((Double(longitude) / 100, Double(latitude) / 100))
            }
            lines.append(line)
        }
        return lines
    }
}
