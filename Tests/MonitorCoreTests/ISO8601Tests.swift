import Foundation
import Testing

@testable import MonitorCore
@testable import MonitorJSON

/// `ISO8601.parse` of `text`: the seconds since 1970, or why it is not a date.
private func parsed(_ text: String) -> Result<Double, ISO8601.Invalid> {
    ISO8601.parse(text).map(\.timeIntervalSince1970)
}

@Suite("ISO 8601 dates: every field checked against the calendar")
struct ISO8601Tests {
    @Test(
        "a date of the calendar is read as written, with fractional seconds, an offset or a leap second",
        arguments: [
            ("2025-09-21T18:00:00Z", 1_758_477_600.0),
            ("2025-09-21t18:00:00z", 1_758_477_600.0),
            ("2025-09-21T18:00:00.25Z", 1_758_477_600.25),
            ("2025-09-21T18:00:00.12500000099Z", 1_758_477_600.125),
            ("2025-09-21T20:30:00+02:30", 1_758_477_600.0),
            ("2025-09-21T20:30:00+0230", 1_758_477_600.0),
            ("2025-09-21T15:00:00-03:00", 1_758_477_600.0),
            ("2025-09-21T18:00:00-00:00", 1_758_477_600.0),
            ("2024-02-29T00:00:00Z", 1_709_164_800.0),
            ("2000-02-29T00:00:00Z", 951_782_400.0),
            ("1970-01-01T00:00:00Z", 0.0),
            ("1969-12-31T23:59:59Z", -1.0),
            // A leap second (2016's last), read as the second before it: a `Date` has none.
            ("2016-12-31T23:59:60Z", 1_483_228_799.0),
            ("2016-12-31T23:59:60.5Z", 1_483_228_799.5),
            ("2017-01-01T00:59:60+01:00", 1_483_228_799.0),
            ("2015-06-30T23:59:60Z", 1_435_708_799.0),
        ])
    func valid(text: String, seconds: Double) throws {
        #expect(try parsed(text).get() == seconds)
    }

    @Test(
        "a day or time that does not exist is refused, naming the value, where a formatter rolled it over",
        arguments: [
            ("2025-02-30T00:00:00Z", "February 2025 has 28 days"),
            ("2025-02-29T00:00:00Z", "February 2025 has 28 days"),
            ("1900-02-29T00:00:00Z", "February 1900 has 28 days"),
            ("2025-04-31T00:00:00Z", "April 2025 has 30 days"),
            ("2025-06-31T00:00:00Z", "June 2025 has 30 days"),
            ("2025-09-31T00:00:00Z", "September 2025 has 30 days"),
            ("2025-11-31T00:00:00Z", "November 2025 has 30 days"),
            ("2025-01-32T00:00:00Z", "January 2025 has 31 days"),
            ("2025-01-00T00:00:00Z", "there is no day 00"),
            ("2025-00-01T00:00:00Z", "there is no month 00"),
            ("2025-13-01T00:00:00Z", "there is no month 13"),
            ("2025-01-01T24:00:00Z", "there is no hour 24"),
            ("2025-01-01T23:60:00Z", "there is no minute 60"),
            ("2025-01-01T23:59:61Z", "there is no second 61"),
            ("2025-01-01T12:00:60Z", "second 60 is a leap second, only at 23:59:60 UTC on the last day of a month"),
            (
                "2016-12-31T23:59:60+01:00",
                "second 60 is a leap second, only at 23:59:60 UTC on the last day of a month"
            ),
            ("2025-01-01T00:00:00+24:00", "there is no offset +24:00"),
            ("2025-01-01T00:00:00-0160", "there is no offset -0160"),
        ])
    func impossible(text: String, reason: String) {
        #expect(parsed(text) == .failure(.impossible(reason)))
        #expect(ISO8601.date(text) == nil)
    }

    @Test(
        "another shape is refused as not a date at all",
        arguments: [
            "", "yesterday", "2025-1-1T00:00:00Z", "2025-01-01 00:00:00Z", "20250101T000000Z", "2025-01-01T00:00Z",
            "2025-01-01T00:00:00", "2025-01-01", "2025-01-01T00:00:00Zjunk", "2025-01-01T00:00:00.Z",
            "2025-01-01T00:00:00,5Z", " 2025-01-01T00:00:00Z", "2025-01-01T00:00:00+01", "2025-01-01T00:00:00+01:00x",
            "99999-01-01T00:00:00Z", "+2025-01-01T00:00:00Z",
        ])
    func shapes(text: String) {
        #expect(parsed(text) == .failure(.shape))
    }
}
