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
}
