import Foundation
import MonitorJSON
import Testing

@testable import WebFeedSource

@Suite("feed dates: RFC 822 and RFC 3339, with the broken forms feeds write")
struct FeedDateTests {
    @Test(
        "each form is read as the instant it names",
        arguments: [
            ("Mon, 06 Jan 2025 10:00:00 +0000", "2025-01-06T10:00:00Z"),
            ("Mon, 06 Jan 2025 10:00:00 GMT", "2025-01-06T10:00:00Z"),
            ("6 Jan 2025 10:00 EST", "2025-01-06T15:00:00Z"),
            ("Mon, 06 Jan 25 10:00:00 +0100", "2025-01-06T09:00:00Z"),
            ("Sun, 28 Oct 2018 13:48:00 +0100", "2018-10-28T12:48:00Z"),
            ("Tue, 3 Jun 2008 11:05:30 CEST", "2008-06-03T09:05:30Z"),
            ("Mon, 06 Jan 2025 10:00:00", "2025-01-06T10:00:00Z"),
            ("Monday, 06-Jan-2025 10:00:00 GMT", "2025-01-06T10:00:00Z"),
            ("06 January 1999 23:59:59 -05:00", "1999-01-07T04:59:59Z"),
            ("Jan 06 2025 10:00:00 +0000", "2025-01-06T10:00:00Z"),
            ("2025-01-06T10:00:00Z", "2025-01-06T10:00:00Z"),
            ("2023-07-10T01:11:57.793Z", "2023-07-10T01:11:57.793Z"),
            ("2023-08-04T12:21:41+03:00", "2023-08-04T09:21:41Z"),
            ("2025-01-06 10:00:00", "2025-01-06T10:00:00Z"),
            ("2025-01-06T10:00", "2025-01-06T10:00:00Z"),
            ("2025-01-06T10:00:00 +0200", "2025-01-06T08:00:00Z"),
            ("2025-01-06 10:00:00 UTC", "2025-01-06T10:00:00Z"),
            ("2019-08-27", "2019-08-27T00:00:00Z"),
        ])
    func reads(_ text: String, _ instant: String) throws {
        #expect(FeedDate.parse(text) == ISO8601.date(instant))
    }

    @Test(
        "garbage, impossible days and out-of-range years are no date",
        arguments: [
            "", "yesterday", "Mon, 32 Jan 2025 10:00:00 GMT", "Mon, 06 Foo 2025 10:00:00 GMT", "2025-02-30",
            "2025-13-01T00:00:00Z", "Mon, 06 Jan 2025 25:00:00 GMT", "Mon, 06 Jan 2025 10:00:00 +99", "12345678",
            String(repeating: "9", count: 100),
        ])
    func refuses(_ text: String) {
        #expect(FeedDate.parse(text) == nil)
    }
}
