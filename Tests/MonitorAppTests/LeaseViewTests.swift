import Foundation
import MonitorOptions
import MonitorText
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("Who holds which feed on a shared schedule: the live view, its log and monitor status")
struct LeaseViewTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC
    let other = "db-2:4242:9f3a\u{1B}[31m\u{7}"

    func feed(_ name: String) -> FeedConfig {
        FeedConfig(name: name, type: "eonet", options: FeedOptions())
    }

    @Test("the live view says which feed this instance holds, which another does (its id cleaned), and until when")
    func liveLines() {
        var state = LiveState(feeds: [feed("planet"), feed("storms"), feed("quakes")], sources: [:], now: now)
        _ = state.apply(.scheduled(feed: "quakes", next: now.addingTimeInterval(30), skipped: 0), now: now, quiet: true)
        let mine = FeedHolder(owner: "db-1:17:c0ffee", until: now.addingTimeInterval(90), isThisInstance: true)
        let claimed = state.apply(.lease(feed: "planet", holder: mine), now: now, quiet: true)
        #expect(claimed.log == [])
        #expect(claimed.lease?.feed == "planet" && claimed.lease?.holder == mine)
        _ = state.apply(.polling(feed: "planet"), now: now, quiet: true)
        let theirs = FeedHolder(owner: other, until: now.addingTimeInterval(45), isThisInstance: false)
        let seen = state.apply(.lease(feed: "storms", holder: theirs), now: now, quiet: true)
        #expect(seen.log == ["08:00:00 storms: leased by db-2:4242:9f3a until 08:00:45"])
        // Seen again, unchanged: nothing to say; renewed: a new end, not logged again.
        let again = state.apply(.lease(feed: "storms", holder: theirs), now: now, quiet: true)
        #expect(again.log == [] && again.lease == nil && !again.redrawNow)
        var renewed = theirs
        renewed.until = now.addingTimeInterval(75)
        let later = state.apply(.lease(feed: "storms", holder: renewed), now: now, quiet: true)
        #expect(later.log == [] && later.lease?.holder == renewed)
        #expect(
            LiveView.render(state.lines, focus: nil, width: 120) == """
                  planet  polling…                    0 items                 leased here until 08:01:30
                  storms  waiting                     0 items                 leased by db-2:4242:9f3a until 08:01:15
                  quakes  waiting                     0 items                 next 08:00:30

                """)
        // Released: the line is back to its next poll.
        let released = state.apply(.lease(feed: "storms", holder: nil), now: now, quiet: true)
        #expect(released.lease?.feed == "storms" && released.lease?.holder == nil && released.log == [])
        _ = state.apply(.scheduled(feed: "storms", next: now.addingTimeInterval(20), skipped: 0), now: now, quiet: true)
        #expect(
            LiveView.line(state.lines[1], nameWidth: 6)
                == "  storms  waiting                     0 items                 next 08:00:20")
    }

    @Test("monitor status says which instance holds each leased feed and until when; expired leases say nothing")
    func status() {
        var planet = FeedRecord(name: "planet", type: "eonet")
        planet.status = "ok"
        planet.lastPoll = now.addingTimeInterval(-120)
        planet.itemCount = 3
        let storms = FeedRecord(name: "storms", type: "eonet")
        let slots = [
            "planet": FeedSlot(due: now, owner: other, expires: now.addingTimeInterval(45), term: 4),
            "storms": FeedSlot(due: now, owner: "db-1:17:c0ffee", expires: now.addingTimeInterval(-1), term: 2),
        ]
        #expect(
            StatusListing.text([planet, storms], now: now, slots: slots) == """
                  feed    type   status        last poll  items
                  planet  eonet  ok            2m ago         3
                  storms  eonet  never polled  -              0
                planet: leased by db-2:4242:9f3a until 08:00:45 UTC

                """)
        #expect(
            StatusListing.json(planet, slot: slots["planet"], now: now).text
                == #"{"feed":"planet","type":"eonet","status":"ok","lastPoll":"2027-01-15T07:58:00Z","lastSuccess":null,"#
                + #""error":null,"failures":0,"items":3,"notBefore":null,"holdReason":null,"#
                + #""lease":{"owner":"db-2:4242:9f3a","until":"2027-01-15T08:00:45Z"}}"#)
        #expect(StatusListing.json(storms, slot: slots["storms"], now: now).text.hasSuffix(#","lease":null}"#))
        #expect(
            StatusListing.text([planet, storms], now: now)
                == StatusListing.text([planet, storms], now: now, slots: [:]))
    }
}
