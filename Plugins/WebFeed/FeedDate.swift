import Foundation
import MonitorJSON

/// The dates feeds write, read as the core reads RFC 3339 (``ISO8601``): RFC 3339 and its loose forms (a space for
/// the `T`, no seconds, no zone, a bare day), and RFC 822 with its common faults (no weekday, no seconds, a two-digit
/// year, a named zone, no zone). A date without a zone is in UTC.
enum FeedDate {
    /// The date `text` writes; nil when it is none of those forms.
    static func parse(_ text: String) -> Date? {
        let text = text.trimmingAllWhitespace()
        guard text.count >= 8, text.count <= 64 else { return nil }
        if let iso = ISO8601.date(text) { return iso }
        if let first = text.first, first.isNumber, text.dropFirst(4).first == "-" { return loose3339(text) }
        return rfc822(text)
    }

    /// `2025-01-06`, `2025-01-06 10:00`, `2025-01-06T10:00:00.5`, `2025-01-06T10:00:00 +0100`, `… UTC`.
    private static func loose3339(_ text: String) -> Date? {
        let day = text.prefix(10)
        var rest = text.dropFirst(10).drop { $0 == "T" || $0 == "t" || $0 == " " }
        guard !rest.isEmpty else { return ISO8601.date("\(day)T00:00:00Z") }
        let time = rest.prefix { $0.isNumber || $0 == ":" || $0 == "." }
        rest = rest.dropFirst(time.count).drop { $0 == " " }
        var clock = String(time)
        if time.count == 5 { clock += ":00" }
        let zone = rest.isEmpty ? "Z" : offset(String(rest))
        return zone.flatMap { ISO8601.date("\(day)T\(clock)\($0)") }
    }

    /// `Mon, 06 Jan 2025 10:00:00 +0000`, `6 January 25 10:00 GMT`, `Mon, 06 Jan 2025 10:00:00` (UTC).
    private static func rfc822(_ text: String) -> Date? {
        var words = text.split { $0 == " " || $0 == "," || $0 == "\t" }.map(String.init)
        if let first = words.first, first.first?.isLetter == true, month(first) == nil { words.removeFirst() }
        // `06-Jan-2025`: one word.
        if let first = words.first, first.contains("-"), first.split(separator: "-").count == 3 {
            words.replaceSubrange(0..<1, with: first.split(separator: "-").map(String.init))
        }
        guard words.count >= 3 else { return nil }
        // The day first, or (`Jan 06 2025`) the month.
        var (dayWord, monthWord) = (words[0], words[1])
        if month(dayWord) != nil { (dayWord, monthWord) = (monthWord, dayWord) }
        guard let day = Int(dayWord), let month = month(monthWord), var year = Int(words[2]) else { return nil }
        if words[2].count == 2 { year += year < 50 ? 2000 : 1900 }
        var clock = words.count > 3 ? words[3] : "00:00:00"
        if clock.split(separator: ":").count == 2 { clock += ":00" }
        let parts = clock.split(separator: ":")
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(\.isNumber) }) else {
            return nil
        }
        let zone = words.count > 4 ? offset(words[4]) : "Z"
        guard let zone, (1...9999).contains(year), (1...31).contains(day) else { return nil }
        let time = parts.map { $0.count == 1 ? "0\($0)" : String($0) }.joined(separator: ":")
        let date = String(format: "%04d-%02d-%02dT", year, month, day)
        return ISO8601.date(date + time + zone)
    }

    /// `+01:00` for `+0100`, `+01:00`, `+01` or a zone's name (`GMT`, `EST`, `CEST`); nil for another text.
    private static func offset(_ zone: String) -> String? {
        if let hours = namedZones[zone.uppercased()] {
            return hours == 0 ? "Z" : String(format: "%@%02d:00", hours < 0 ? "-" : "+", abs(hours))
        }
        guard let sign = zone.first, sign == "+" || sign == "-" else { return nil }
        let digits = zone.dropFirst().filter { $0 != ":" }
        guard digits.allSatisfy(\.isNumber), [2, 4].contains(digits.count) else { return nil }
        let padded = digits.count == 2 ? digits + "00" : digits
        return "\(sign)\(padded.prefix(2)):\(padded.suffix(2))"
    }

    /// The month of `name` (`Jan`, `January`, `jan.`), from 1.
    private static func month(_ name: String) -> Int? {
        let key = name.lowercased().prefix(3)
        return months.firstIndex(of: String(key)).map { $0 + 1 }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// RFC 822's zones and the common others, in hours east of UTC.
    private static let namedZones: [String: Int] = [
        "UT": 0, "UTC": 0, "GMT": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
        "PST": -8, "PDT": -7, "WET": 0, "BST": 1, "CET": 1, "MET": 1, "CEST": 2, "MEST": 2, "EET": 2, "EEST": 3,
        "MSK": 3, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13,
    ]
}
