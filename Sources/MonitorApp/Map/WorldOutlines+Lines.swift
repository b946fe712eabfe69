import Foundation
import MonitorCore

extension WorldOutlines {
    /// The outlines as polylines of (longitude, latitude) in degrees, decoded once.
    static let lines: [[(longitude: Double, latitude: Double)]] = decode(base64)

    /// The polylines of the format convert.py writes; stops at the first malformed line (the data is generated, and a
    /// test checks that all of it decodes).
    static func decode(_ text: String) -> [[(longitude: Double, latitude: Double)]] {
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { return [] }
        let bytes = [UInt8](data)
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
