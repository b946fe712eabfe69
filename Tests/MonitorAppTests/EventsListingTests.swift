import Foundation
import MonitorApp
import MonitorCore
import Testing

@Suite("monitor events: filtering and the listing")
struct EventsListingTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC

    func item(_ id: String, daysAgo: Double, groups: [String], status: String = "open") -> Item {
        Item(
            id: id, title: "Fire \(id)", date: now.addingTimeInterval(-daysAgo * 86_400), groups: groups,
            details: [Detail("status", status), Detail("magnitude", "\(id.count) acres")])
    }

    @Test("--group, --days and --limit select, newest first")
    func filter() {
        let items = [
            item("a", daysAgo: 40, groups: ["wildfires"]), item("b", daysAgo: 29.9, groups: ["wildfires"]),
            item("c", daysAgo: 1, groups: ["volcanoes"]), item("d", daysAgo: 2, groups: ["wildfires", "floods"]),
            item("e", daysAgo: 30.1, groups: ["wildfires"]),
        ]
        #expect(
            EventsListing.filter(items, group: "wildfires", days: 30, limit: nil, now: now).map(\.id) == ["d", "b"])
        #expect(EventsListing.filter(items, group: nil, days: nil, limit: 2, now: now).map(\.id) == ["c", "d"])
        #expect(EventsListing.filter(items, group: "floods", days: nil, limit: nil, now: now).map(\.id) == ["d"])
        #expect(EventsListing.filter(items, group: "snow", days: 30, limit: nil, now: now).isEmpty)
    }

    @Test("the listing shows the date, the source's detail columns and the title, made safe for a terminal")
    func text() {
        var evil = item("b", daysAgo: 2, groups: ["wildfires"], status: "closed")
        evil.title = "Fire \u{1B}[2Jb"
        let output = EventsListing.text(
            [item("a", daysAgo: 1, groups: ["wildfires"]), evil], columns: ["status", "magnitude"], now: now)
        #expect(
            output == """
                  date              status  magnitude  title
                  2027-01-14 08:00  open    1 acres    Fire a
                  2027-01-13 08:00  closed  1 acres    Fire b

                """)
        #expect(EventsListing.text([], columns: [], now: now) == "no items\n")
    }
}
