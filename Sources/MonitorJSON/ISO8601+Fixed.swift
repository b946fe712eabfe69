import Foundation

extension ISO8601 {
    /// The date of `2026-11-22T04:10:00Z` written exactly so (the shape EONET and GitHub use), read without a
    /// formatter; nil for any other shape or a date that does not exist, which `date(_:)` and `parse(_:)` then read.
    package static func fixedDate(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count == 20, text[10] == UInt8(ascii: "T"), text[19] == UInt8(ascii: "Z"),
            case .success(let date) = parse(text)
        else { return nil }
        return date
    }

    /// Why a text is not a date.
    package enum Invalid: Error, Sendable, Hashable {
        /// Not of the shape `2025-09-21T18:00:00Z` (fractional seconds and an offset such as `+02:00` allowed).
        case shape
        /// Of that shape, but a day or time that does not exist; the reason names the value
        /// (`February 2025 has 28 days`, `there is no hour 24`).
        case impossible(String)
    }

    /// The date of `text`, RFC 3339's profile of ISO 8601: `2025-09-21T18:00:00Z`, with fractional seconds
    /// (`18:00:00.25Z`) or an offset (`+02:00`, `+0200`) allowed, `T` and `Z` in either case; years 0000–9999.
    ///
    /// Every field is checked against the calendar: a day past its month's end (`2025-02-30`, `2025-02-29`), hour 24,
    /// minute 60 are refused, never rolled over into the next day. Second 60 is accepted only where a leap second can
    /// be, at 23:59:60 UTC on a month's last day, and read as 23:59:59 (a `Date` has no leap seconds).
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Result<Date, Invalid> {
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= text.count else { return nil }
            var value = 0
            for index in start..<(start + count) {
                let digit = text[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        func byte(_ index: Int) -> UInt8 { index < text.count ? text[index] : 0 }
        guard let year = number(0, 4), byte(4) == UInt8(ascii: "-"), let month = number(5, 2),
            byte(7) == UInt8(ascii: "-"), let day = number(8, 2), byte(10) | 0x20 == UInt8(ascii: "t"),
            let hour = number(11, 2), byte(13) == UInt8(ascii: ":"), let minute = number(14, 2),
            byte(16) == UInt8(ascii: ":"), var second = number(17, 2)
        else { return .failure(.shape) }
        // Fractional seconds: a point and at least one digit (the digits past nanoseconds are read and dropped).
        var index = 19
        var fraction = 0.0
        if byte(index) == UInt8(ascii: ".") {
            index += 1
            var scale = 1.0
            var nanoseconds = 0
            let first = index
            while byte(index) &- UInt8(ascii: "0") < 10 {
                if index - first < 9 {
                    nanoseconds = nanoseconds * 10 + Int(byte(index) &- UInt8(ascii: "0"))
                    scale *= 10
                }
                index += 1
            }
            guard index > first else { return .failure(.shape) }
            fraction = Double(nanoseconds) / scale
        }
        // The offset from UTC, in minutes east.
        var offset = 0
        let marker = byte(index)
        if marker | 0x20 == UInt8(ascii: "z") {
            guard index + 1 == text.count else { return .failure(.shape) }
        } else if marker == UInt8(ascii: "+") || marker == UInt8(ascii: "-") {
            let colon = byte(index + 3) == UInt8(ascii: ":") ? 1 : 0
            guard let hours = number(index + 1, 2), let minutes = number(index + 3 + colon, 2),
                index + 5 + colon == text.count
            else { return .failure(.shape) }
            guard hours < 24, minutes < 60 else {
                let written = String(decoding: UnsafeBufferPointer(rebasing: text[index...]), as: UTF8.self)
                return .failure(.impossible("there is no offset \(written)"))
            }
            offset = (hours * 60 + minutes) * (marker == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return .failure(.shape)
        }
        func padded(_ value: Int, _ width: Int = 2) -> String {
            String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
        }
        guard (1...12).contains(month) else { return .failure(.impossible("there is no month \(padded(month))")) }
        guard day >= 1 else { return .failure(.impossible("there is no day 00")) }
        let days = daysIn(month: month, year: year)
        guard day <= days else {
            return .failure(.impossible("\(monthNames[month - 1]) \(padded(year, 4)) has \(days) days"))
        }
        guard hour < 24 else { return .failure(.impossible("there is no hour \(padded(hour))")) }
        guard minute < 60 else { return .failure(.impossible("there is no minute \(padded(minute))")) }
        let seconds =
            daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 - offset * 60
        if second == 60 {
            // In UTC, 23:59 on the last day of a month: the minute after it starts a month.
            guard (seconds + 60) % 86_400 == 0, civil(daysSinceEpoch: (seconds + 60) / 86_400).day == 1 else {
                return .failure(
                    .impossible("second 60 is a leap second, only at 23:59:60 UTC on the last day of a month"))
            }
            second = 59
        }
        guard second < 60 else { return .failure(.impossible("there is no second \(padded(second))")) }
        return .success(Date(timeIntervalSince1970: Double(seconds + second) + fraction))
    }

    /// `parse(_:)` of a text.
    package static func parse(_ text: String) -> Result<Date, Invalid> {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    /// `string(_:)` without a formatter for a date of whole seconds in the years 1900–9999 (the others go to
    /// `string(_:)`): `2026-11-22T04:10:00Z`.
    package static func fixedString(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard interval == interval.rounded(.down), interval >= -2_208_988_800, interval < 253_402_300_800 else {
            return string(date)
        }
        let seconds = Int(interval)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = civil(daysSinceEpoch: days)
        var bytes = Array("0000-00-00T00:00:00Z".utf8)
        func put(_ value: Int, _ start: Int, _ count: Int) {
            var value = value
            for index in stride(from: start + count - 1, through: start, by: -1) {
                bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(year, 0, 4)
        put(month, 5, 2)
        put(day, 8, 2)
        put(time / 3_600, 11, 2)
        put(time / 60 % 60, 14, 2)
        put(time % 60, 17, 2)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    package static func civil(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
