import MonitorJSON

extension String {
    /// The text with every UTF-8 byte percent-encoded (`%3A`, upper-case hex) but the unreserved characters of
    /// RFC 3986 (`A–Z a–z 0–9 - . _ ~`) and the ASCII characters of `extra`: a query value or a path segment as is,
    /// a path of several segments with `keeping: "/"`.
    package func percentEncoded(keeping extra: String = "") -> String {
        let kept = Set(extra.utf8.filter { $0 < 0x80 })
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            case _ where kept.contains(byte):
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The text with every valid `%XX` escape replaced by its byte (a `+` stays a `+`); a malformed escape is kept as
    /// it is, and bytes that are not UTF-8 become U+FFFD.
    package func percentDecoded() -> String {
        let bytes = Array(utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return self }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = bytes[index + 1].hexValue,
                let low = bytes[index + 2].hexValue
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
