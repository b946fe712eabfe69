import EONETSource
import Foundation
import TestSupport
import Testing

@testable import MonitorCore

@Suite("The text summary: every category by title with its events, open, closed and new, then the total")
struct EONETSummaryTests {
    @Test("the counts table of a first poll, rendered whole")
    func firstPoll() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let source = EONETSource(options: planetFeed().options)
        let report = await harness.poll(
            EONETSource.self, feed: planetFeed(), transport: server.transport, clock: frozenClock
        ).report
        #expect(
            source.summary(of: report, now: EONETFixtures.now) == """
                planet (eonet): ok — 13 items, 13 new, 14 requests, 0ms
                  category              events  open  closed  new
                  Drought                    0     0       0
                  Dust and Haze              1     0       1   +1
                  Earthquakes                0     0       0
                  Floods                     2     2       0   +2
                  Landslides                 0     0       0
                  Manmade                    0     0       0
                  Sea and Lake Ice           1     1       0   +1
                  Severe Storms              4     2       2   +4
                  Snow                       0     0       0
                  Temperature Extremes       0     0       0
                  Volcanoes                  2     2       0   +2
                  Water Color                0     0       0
                  Wildfires                  4     2       2   +4
                  13 distinct events in 0ms

                """)
    }

    @Test("a partial poll: the error, the kept counts, titles made safe for the terminal")
    func partial() {
        let report = PollReport(
            feed: "planet", type: "eonet", status: .partial,
            error: "category 'wildfires': GET http://eonet.test/api/v3/events?category=wildfires: HTTP 500",
            requests: 4, notModified: 1, items: 3, new: 1,
            groups: [
                .init(id: "wildfires", title: "Wildfires", count: 2, new: 1, breakdown: ["open": 1, "closed": 1]),
                .init(id: "snow", title: "Snow\u{1B}[31m", count: 0, new: 0),
                .init(id: "floods", title: "Floods", count: 1, new: 0, breakdown: ["open": 1]),
            ],
            started: EONETFixtures.now, duration: .milliseconds(1234))
        let source = EONETSource(options: planetFeed().options)
        #expect(
            source.summary(of: report, now: EONETFixtures.now) == """
                planet (eonet): partial — 3 items, 1 new, 4 requests (1 not modified), 1.2s
                  error: category 'wildfires': GET http://eonet.test/api/v3/events?category=wildfires: HTTP 500
                  category   events  open  closed  new
                  Floods          1     1       0
                  Snow            0     0       0
                  Wildfires       2     1       1   +1
                  3 distinct events in 1.2s

                """)
    }

    @Test("a failed poll is its headline and error only")
    func failed() {
        let report = PollReport(
            feed: "planet", type: "eonet", status: .failed, error: "unknown category 'snw'", requests: 1,
            started: EONETFixtures.now, duration: .milliseconds(80))
        let source = EONETSource(options: planetFeed().options)
        #expect(
            source.summary(of: report, now: EONETFixtures.now) == """
                planet (eonet): failed — 0 items, 0 new, 1 request, 80ms
                  error: unknown category 'snw'

                """)
    }

    @Test("one event is one distinct event")
    func singular() {
        let report = PollReport(
            feed: "p", type: "eonet", status: .ok, requests: 2, items: 1,
            groups: [.init(id: "snow", title: "Snow", count: 1, new: 0, breakdown: ["closed": 1])],
            started: EONETFixtures.now, duration: .milliseconds(5))
        #expect(
            EONETSource(options: planetFeed().options).summary(of: report, now: EONETFixtures.now) == """
                p (eonet): ok — 1 item, 0 new, 2 requests, 5ms
                  category  events  open  closed  new
                  Snow           1     0       1
                  1 distinct event in 5ms

                """)
    }

    @Test("monitor events shows status, magnitude and position; the summary splits counts by status")
    func declarations() {
        #expect(EONETSource.detailColumns == ["status", "magnitude", "position"])
        #expect(EONETSource.breakdown == Breakdown(detail: "status", values: ["open", "closed"]))
        #expect(EONETSource(options: planetFeed().options).retention == .replace)
    }
}
