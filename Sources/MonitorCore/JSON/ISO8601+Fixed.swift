import Foundation

extension ISO8601 {
    /// The date of `2026-11-22T04:10:00Z` written exactly so (the shape EONET and GitHub use), read without a
    /// formatter; nil for any other shape or a field out of range, which `date(_:)` then reads.
    package static func fixedDate(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
            text[10] == UInt8(ascii: "T"), text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
            text[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<(start + count) {
                let digit = text[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), (1900...9999).contains(year),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second < 60
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

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
        var bytes = [UInt8](repeating: 0, count: 20)
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
        for (index, byte) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "Z")] as [(Int, Unicode.Scalar)]
        {
            bytes[index] = UInt8(byte.value)
        }
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
