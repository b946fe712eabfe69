import Foundation
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("monitor status: the listing, and when and why a server holds a feed back")
struct StatusListingTests {
    let now = Date(timeIntervalSince1970: 1_795_323_600)  // 2026-11-22 05:00:00 UTC

    func record(_ name: String, status: String, error: String? = nil, failures: Int = 0) -> FeedRecord {
        var record = FeedRecord(name: name, type: "github")
        record.status = status
        record.lastPoll = now.addingTimeInterval(-120)
        record.lastError = error
        record.failures = failures
        return record
    }

    @Test("a held-back feed says until when and why; a hold that is over, or has no reason, says what it knows")
    func heldBack() {
        var limited = record(
            "rx", status: "failed",
            error:
                "GET https://api.github.com/repos/a/b/events: HTTP 403: rate limit exhausted (x-ratelimit-remaining: 0)",
            failures: 2)
        limited.notBefore = now.addingTimeInterval(720)
        limited.holdReason = "rate limit exhausted"
        var busy = record("eonet", status: "failed")
        busy.notBefore = now.addingTimeInterval(60)
        var over = record("old", status: "ok")
        over.notBefore = now.addingTimeInterval(-1)
        over.holdReason = "rate limit exhausted"
        var tomorrow = record("late", status: "failed")
        tomorrow.notBefore = now.addingTimeInterval(20 * 3600)
        tomorrow.holdReason = "secondary rate limit"
        let text = StatusListing.text([limited, busy, over, tomorrow], now: now)
        #expect(
            text == """
                  feed   type    status  last poll  items
                  rx     github  failed  2m ago         0
                  eonet  github  failed  2m ago         0
                  old    github  ok      2m ago         0
                  late   github  failed  2m ago         0
                rx: GET https://api.github.com/repos/a/b/events: HTTP 403: rate limit exhausted (x-ratelimit-remaining: 0) (2 failures in a row)
                rx: held back until 05:12:00 UTC (rate limit exhausted)
                eonet: held back until 05:01:00 UTC
                late: held back until 2026-11-23 01:00:00 UTC (secondary rate limit)

                """)
    }

    @Test("the columns are aligned in terminal cells: a wide character or an emoji takes two (#29 review)")
    func wideCharacters() {
        let quake = record("地震", status: "failed", error: "HTTP 500: サーバーエラー 🔥", failures: 3)
        let text = StatusListing.text(
            [quake, record("usgs", status: "ok"), record("火山🌋", status: "ok")], now: now)
        #expect(
            text == """
                  feed    type    status  last poll  items
                  地震    github  failed  2m ago         0
                  usgs    github  ok      2m ago         0
                  火山🌋  github  ok      2m ago         0
                地震: HTTP 500: サーバーエラー 🔥 (3 failures in a row)

                """)
    }

    @Test("the JSON has the hold and its reason while it lasts")
    func json() {
        var limited = record("rx", status: "failed")
        limited.notBefore = now.addingTimeInterval(720)
        limited.holdReason = "rate limit exhausted"
        let text = StatusListing.json(limited).text
        #expect(text.contains(#""notBefore":"2026-11-22T05:12:00Z""#))
        #expect(text.contains(#""holdReason":"rate limit exhausted""#))
        #expect(StatusListing.json(record("ok", status: "ok")).text.contains(#""holdReason":null"#))
    }
}
