import Foundation
import MonitorItems
import MonitorText
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("monitor events: filtering and the listing")
struct EventsListingTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC

    func item(_ id: String, daysAgo: Double, groups: [String], status: String = "open") -> Item {
        Item(
            id: id, title: "Fire \(id)", date: now.addingTimeInterval(-daysAgo * 86_400), groups: groups,
            details: [Detail("status", status), Detail("magnitude", "\(id.count) acres")])
    }

    @Test("--days N reaches back N days of 86,400 seconds")
    func since() {
        #expect(EventsListing.since(days: 30, now: now) == Date(timeIntervalSince1970: 1_800_000_000 - 2_592_000))
    }

    @Test(
        "dates are written in UTC to the minute, as Foundation writes them",
        arguments: [
            0, 59, 60, 86_399, 86_400, -1, -86_400, -86_401, 951_782_400, 951_868_799, 1_800_000_000, 4_107_542_399,
            253_402_300_799, -2_208_988_800, -5_000_000_000, 1_000_000_000.75, -0.5,
        ])
    func dates(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        #expect(UTCTime.minute(date) == formatter.string(from: date))
    }

    @Test("the listing shows the date, the source's detail columns and the title, made safe for a terminal")
    func text() {
        var evil = item("b", daysAgo: 2, groups: ["wildfires"], status: "closed")
        evil.title = "Fire \u{1B}[2Jb"
        let output = EventsListing.text(
            [item("a", daysAgo: 1, groups: ["wildfires"]), evil], columns: ["status", "magnitude"])
        #expect(
            output == """
                  date (UTC)        status  magnitude  title
                  2027-01-14 08:00  open    1 acres    Fire a
                  2027-01-13 08:00  closed  1 acres    Fire b

                """)
        #expect(EventsListing.text([], columns: []) == "no items\n")
    }

    @Test("the columns are aligned in terminal cells: a wide character or an emoji takes two (#29 review)")
    func wideCharacters() {
        let quake = item("a", daysAgo: 1, groups: ["quakes"], status: "地震🌋")
        let output = EventsListing.text(
            [quake, item("bb", daysAgo: 2, groups: ["quakes"], status: "ok")], columns: ["status", "magnitude"])
        #expect(
            output == """
                  date (UTC)        status  magnitude  title
                  2027-01-14 08:00  地震🌋  1 acres    Fire a
                  2027-01-13 08:00  ok      2 acres    Fire bb

                """)
    }

    /// A "prepend" mark (U+0600) takes the next character into its own: a space padding it would be part of the title.
    @Test("a title ends its line as it is, even one ending in a mark that joins the character after it")
    func titleEndsTheLine() {
        var marked = item("a", daysAgo: 1, groups: ["quakes"])
        marked.title = "Fire \u{600}"
        let output = EventsListing.text([marked, item("bbbbbb", daysAgo: 2, groups: ["quakes"])], columns: [])
        #expect(
            output == "  date (UTC)        title\n  2027-01-14 08:00  Fire \u{600}\n  2027-01-13 08:00  Fire bbbbbb\n")
    }
}
