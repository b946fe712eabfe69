import Foundation
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("What `r` did, as the full-screen view's log line says it")
struct PollNowWordsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC

    @Test("polling, already polling, held back until a time in UTC (with the date a day or more ahead), unknown")
    func words() {
        #expect(FullScreenDisplay.words(.polling, now: now) == "polling now (r)")
        #expect(FullScreenDisplay.words(.alreadyPolling, now: now) == "already polling (r)")
        #expect(
            FullScreenDisplay.words(
                .held(until: now.addingTimeInterval(180), reason: "rate limit exhausted"), now: now)
                == "held back until 08:03:00 (rate limit exhausted)")
        #expect(
            FullScreenDisplay.words(
                .held(until: now.addingTimeInterval(86_400 + 60), reason: "HTTP 503 asked to retry later"), now: now)
                == "held back until 2027-01-16 08:01 (HTTP 503 asked to retry later)")
        #expect(FullScreenDisplay.words(.notScheduled, now: now) == "not scheduled (r)")
    }
}
