/// Durations as written in `feeds.yaml`: `500ms`, `90s`, `15m`, `1h`, `2d`, or combined, `1h30m`.
package enum DurationFormat {
    private static let units: [(suffix: String, milliseconds: Int64)] = [
        ("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000),
    ]

    /// The duration `text` stands for, or nil when it is not a duration.
    package static func parse(_ text: String) -> Duration? {
        var rest = Substring(text.trimmingWhitespace())
        guard !rest.isEmpty else { return nil }
        var total: Int64 = 0
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let number = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            let letters = rest.prefix { $0.isASCII && $0.isLetter }
            guard let unit = units.first(where: { $0.suffix == letters }) else { return nil }
            rest = rest.dropFirst(letters.count)
            let (product, overflow1) = number.multipliedReportingOverflow(by: unit.milliseconds)
            let (sum, overflow2) = total.addingReportingOverflow(product)
            guard !overflow1, !overflow2 else { return nil }
            total = sum
        }
        return .milliseconds(total)
    }

    /// The shortest way to write `duration`: `15m`, `1h30m`, `90s` is `1m30s`, `0s`.
    package static func string(_ duration: Duration) -> String {
        var milliseconds = duration.milliseconds
        guard milliseconds > 0 else { return "0s" }
        var output = ""
        for unit in units.reversed() where milliseconds >= unit.milliseconds {
            output += "\(milliseconds / unit.milliseconds)\(unit.suffix)"
            milliseconds %= unit.milliseconds
        }
        return output
    }
}

/// Sizes as written in `feeds.yaml`: `512KiB`, `32MiB`, `1GB`, or a plain number of bytes.
package enum ByteSizeFormat {
    private static let units: [(suffix: String, bytes: Int)] = [
        ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("GB", 1_000_000_000), ("MB", 1_000_000),
        ("KB", 1000), ("kB", 1000), ("B", 1), ("", 1),
    ]

    /// The number of bytes `text` stands for, or nil.
    package static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingWhitespace()
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int(digits) else { return nil }
        let suffix = trimmed.dropFirst(digits.count).trimmingWhitespace()
        guard let unit = units.first(where: { $0.suffix == suffix }) else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: unit.bytes)
        return overflow ? nil : bytes
    }

    /// `bytes` in the largest binary unit that divides it: `32MiB`, `1500B`.
    package static func string(_ bytes: Int) -> String {
        for unit in units.prefix(3) where bytes >= unit.bytes && bytes % unit.bytes == 0 {
            return "\(bytes / unit.bytes)\(unit.suffix)"
        }
        return "\(bytes)B"
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line breaks.
    package func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
