import Foundation
import MonitorItems
import MonitorOptions
import MonitorText
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore

@Suite("The full-screen view: keys through a pure reducer, whole screens rendered to strings")
struct BrowserScreenTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00:00 UTC

    @Test("bytes from a raw terminal become keys: arrows, pages, Home, End, Enter, a lone Esc, Ctrl-C, Ctrl-Z, UTF-8")
    func keys() {
        let bytes = Array(
            "\u{1B}[A\u{1B}[Bk\r\u{1B}[C\u{1B}OD\u{7F}\u{03}\u{1A}é\u{1B}[5~\u{1B}[6~\u{1B}[1~\u{1B}[4~\u{1B}OH\u{1B}[F\u{1B}[2~\u{1B}"
                .utf8)
        #expect(
            Key.parse(bytes) == [
                .up, .down, .character("k"), .enter, .right, .left, .backspace, .interrupt, .suspend, .character("é"),
                .pageUp, .pageDown, .home, .end, .home, .end, .escape,
            ])
    }

    private func state() -> BrowserState {
        let feeds = ["planet", "rx"].map {
            FeedConfig(name: $0, type: "eonet", options: FeedOptions())
        }
        var live = LiveState(feeds: feeds, sources: [:], now: now)
        var report = PollReport(
            feed: "planet", type: "eonet", status: .ok, requests: 3, items: 3, started: now, duration: .seconds(2))
        report.isFirstSync = true
        _ = live.apply(.scheduled(feed: "rx", next: now.addingTimeInterval(60), skipped: 0), now: now, quiet: true)
        let log = live.apply(.finished(report), now: now, quiet: true).log
        var state = BrowserState(live: live, now: now)
        state.log = log + ["08:00:00 planet: first sync, 3 items"]
        return state
    }

    private func stored() -> StoredFeed {
        let day: TimeInterval = 86_400
        return StoredFeed(
            feed: "planet",
            catalog: [ItemGroup(id: "fires", title: "Wildfires"), ItemGroup(id: "ice", title: "Sea Ice")],
            items: [
                Item(
                    id: "1", title: "Fire \u{1B}[2Jin the hills", date: now.addingTimeInterval(-3600),
                    groups: ["fires"],
                    url: "https://example.org/1", details: [Detail("status", "open")]),
                Item(
                    id: "2", title: "A very long title of a fire that goes on and on past the edge of the screen",
                    date: now.addingTimeInterval(-3 * day), groups: ["fires"], details: [Detail("status", "closed")]),
                Item(id: "3", title: "Iceberg A23", date: now.addingTimeInterval(-40 * day), groups: ["ice"]),
            ], breakdownDetail: "status")
    }

    private func render(_ state: BrowserState, height: Int = 10) -> String {
        BrowserScreen.render(state, width: 60, height: height).joined(separator: "\n")
    }

    @Test("while the state cannot be reached, the log row says so; once it answers, the row is the log's again")
    func unreachableState() {
        var state = state()
        let error = StateError.unreachable("cannot connect to postgres://monitor@db:5432/feeds: connection refused")
        _ = state.live.apply(.state(unreachable: error), now: now, quiet: true)
        #expect(
            render(state) == """
                monitor                               all days  08:00:00 UTC
                > planet  ok           3 items
                  rx      waiting      0 items                 next 08:01:00

                planet (eonet): ok — 3 items, 0 new, 3 requests, 2.0s



                state unreachable since 08:00:00: cannot connect to postgre…
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
        _ = state.live.apply(.state(unreachable: nil), now: now, quiet: true)
        #expect(render(state).components(separatedBy: "\n")[8] == "08:00:00 planet: first sync, 3 items")
    }

    @Test("an error reading the state reaches the log row without its escape sequences (#29 review)")
    func loadErrorSanitized() {
        var state = state()
        // As FullScreenDisplay.load writes it when the store throws.
        state.log.append("planet: cannot read the state: \u{1B}]52;c;cm0gLXJmIH4=\u{07}disk \u{1B}[2Jfull\u{9B}31m")
        #expect(
            render(state) == """
                monitor                               all days  08:00:00 UTC
                > planet  ok           3 items
                  rx      waiting      0 items                 next 08:01:00

                planet (eonet): ok — 3 items, 0 new, 3 requests, 2.0s



                planet: cannot read the state: disk full
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
    }

    @Test("a feed whose last poll may have missed events is marked `, gap` in the list, its summary says since when")
    func gap() {
        var state = state()
        var report = PollReport(
            feed: "rx", type: "github", status: .ok, requests: 3, items: 300, new: 300, started: now,
            duration: .seconds(1))
        report.gap = PollGap(since: now.addingTimeInterval(-7_200), until: now.addingTimeInterval(-3_600))
        let log = state.live.apply(.finished(report), now: now, quiet: true).log
        state.log += log
        #expect(
            render(state) == """
                monitor                               all days  08:00:00 UTC
                  planet  ok           3 items
                > rx      ok, gap      300 items    +300 new   next 08:01:00

                rx (github): ok — 300 items, 300 new, 3 requests, 1.0s
                  older events may be missing: 2027-01-15T06:00:00Z to 2027…


                08:00:00 rx: older events may be missing: 2027-01-15T06:00:…
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
    }

    @Test("feeds, then a feed's groups, the days window, a group's items newest first, back")
    func browse() {
        var state = state()
        #expect(
            render(state) == """
                monitor                               all days  08:00:00 UTC
                > planet  ok           3 items
                  rx      waiting      0 items                 next 08:01:00

                planet (eonet): ok — 3 items, 0 new, 3 requests, 2.0s



                08:00:00 planet: first sync, 3 items
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
        #expect(state.handle(.enter) == [.load(feed: "planet")])
        #expect(render(state).components(separatedBy: "\n")[1] == "  reading the stored items…")
        state.stored = stored()
        #expect(
            render(state) == """
                monitor › planet                      all days  08:00:00 UTC
                3 items in 2 groups, all days

                > Wildfires  2  closed 1  open 1
                  Sea Ice    1



                08:00:00 planet: first sync, 3 items
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
        #expect(state.handle(.character("d")) == [])
        #expect(state.handle(.character("d")) == [])
        #expect(state.windowLabel == "last 7 days")
        #expect(state.handle(.right) == [])
        #expect(
            render(state) == """
                monitor › planet › Wildfires       last 7 days  08:00:00 UTC
                2 items, newest first, last 7 days

                > 2027-01-15 07:00  Fire in the hills
                  2027-01-12 08:00  A very long title of a fire that goes o…

                  status: open
                  https://example.org/1
                08:00:00 planet: first sync, 3 items
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
        #expect(state.handle(.character("j")) == [])
        #expect(render(state).components(separatedBy: "\n")[6...7] == ["  status: closed", "  no link"])
        #expect(state.handle(.escape) == [])
        #expect(state.level == .groups(feed: "planet"))
        #expect(state.handle(.left) == [])
        #expect(state.level == .feeds)
        #expect(state.handle(.character("r")) == [.poll(feed: "planet")])
        #expect(state.handle(.character("q")) == [.quit])
    }

    @Test("/ filters as typed, Enter keeps the filter with the first match selected, Esc clears it; ? shows the keys")
    func filterAndHelp() {
        var state = state()
        _ = state.handle(.enter)
        state.stored = stored()
        _ = state.handle(.character("/"))
        for character in "ice" { _ = state.handle(.character(character)) }
        #expect(
            render(state) == """
                monitor › planet                      all days  08:00:00 UTC
                3 items in 1 group, all days

                > Sea Ice  1




                08:00:00 planet: first sync, 3 items
                /ice  (Enter keeps the filter, Esc clears it)
                """)
        _ = state.handle(.enter)
        #expect(state.groups.map(\.id) == ["ice"])
        #expect(state.groupRow == 0)
        _ = state.handle(.escape)
        #expect(state.groups.map(\.id) == ["fires", "ice"])
        #expect(state.level == .groups(feed: "planet"))
        _ = state.handle(.character("?"))
        #expect(
            render(state) == """
                monitor › planet                      all days  08:00:00 UTC
                Keys

                  ↑/↓ or k/j   select
                  PgUp/PgDn    a page up or down; Home/End or g/G: the firs…
                  Enter or →   open a feed's groups, a group's items, an it…
                  Esc or ←     back (Esc first clears a filter)
                  d            days window: 1, 7, 30, 90, 360, all
                08:00:00 planet: first sync, 3 items
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
        _ = state.handle(.down)
        #expect(!state.help)
    }

    @Test("a failed feed's panel: its error whole, wrapped at the width, since when it fails, its next poll, its hold")
    func failedFeedPanel() {
        var state = state()
        var report = PollReport(
            feed: "rx", type: "github", status: .failed,
            error: "HTTP 403 from api.github.com: API rate limit exceeded for 203.0.113.7. (But here's the good news: "
                + "Authenticated requests get a higher rate limit.)\nsee \u{1B}]52;c;cm0gLXJmIH4=\u{07}the docs",
            started: now.addingTimeInterval(-30))
        report.failures = 3
        report.notBefore = now.addingTimeInterval(1_800)
        report.holdReason = "rate limit exhausted"
        state.log += state.live.apply(.finished(report), now: now, quiet: true).log
        _ = state.live.apply(
            .scheduled(feed: "rx", next: now.addingTimeInterval(1_800), skipped: 0), now: now, quiet: true)
        _ = state.handle(.down)
        #expect(
            render(state, height: 14) == """
                monitor                               all days  08:00:00 UTC
                  planet  ok           3 items
                > rx      failed (3×)  0 items                 next 08:30:00

                rx (github): failing since before 07:59:30, 3 polls in a row
                  HTTP 403 from api.github.com: API rate limit exceeded for
                  203.0.113.7. (But here's the good news: Authenticated
                  requests get a higher rate limit.)
                  see the docs
                next poll at 08:30:00
                held back until 08:30:00 (rate limit exhausted)

                08:00:00 rx: failed: HTTP 403 from api.github.com: API rate…
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
        // A feed that polled fine but is held back says until when and why under its summary.
        var held = PollReport(feed: "planet", type: "eonet", status: .ok, requests: 1, items: 3, started: now)
        held.notBefore = now.addingTimeInterval(600)
        held.holdReason = "Retry-After"
        _ = state.live.apply(.finished(held), now: now, quiet: true)
        _ = state.handle(.up)
        #expect(
            render(state, height: 14) == """
                monitor                               all days  08:00:00 UTC
                > planet  ok           3 items
                  rx      failed (3×)  0 items                 next 08:30:00

                planet (eonet): ok — 3 items, 0 new, 1 request, 0ms
                held back until 08:10:00 (Retry-After)






                08:00:00 rx: failed: HTTP 403 from api.github.com: API rate…
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
    }

    @Test("the counts of groups and of their breakdown are aligned in columns, whatever the widths of the numbers")
    func alignedCounts() {
        var state = state()
        _ = state.handle(.enter)
        let date = now.addingTimeInterval(-3_600)
        let items =
            (0..<12).map {
                Item(
                    id: "f\($0)", title: "Fire \($0)", date: date, groups: ["fires"],
                    details: [Detail("status", $0 < 10 ? "closed" : "open")])
            }
            + (0..<11).map {
                Item(id: "i\($0)", title: "Ice \($0)", date: date, groups: ["ice"], details: [Detail("status", "open")])
            }
            + [Item(id: "v", title: "Etna", date: date, groups: ["volcanoes"])]
        state.stored = StoredFeed(
            feed: "planet",
            catalog: [
                ItemGroup(id: "fires", title: "Wildfires"), ItemGroup(id: "ice", title: "Sea and Lake Ice"),
                ItemGroup(id: "volcanoes", title: "Volcanoes"),
            ], items: items, breakdownDetail: "status")
        #expect(
            render(state) == """
                monitor › planet                      all days  08:00:00 UTC
                24 items in 3 groups, all days

                > Wildfires         12  closed 10  open  2
                  Sea and Lake Ice  11             open 11
                  Volcanoes          1


                08:00:00 planet: first sync, 3 items
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
    }

    @Test("Enter on an item opens its details; o prints its link; Esc goes back to the list as it was")
    func itemDetails() {
        var state = state()
        _ = state.handle(.enter)
        var stored = stored()
        stored.items[1].url = "https://eonet.gsfc.nasa.gov/api/v3/events/EONET_6543?with=a&very=long&query=string"
        stored.items[1].details = [
            Detail("status", "closed"), Detail("position", "lat 14.4, lon -99.4"),
            Detail("source", "InciWeb \u{1B}[31mred"),
        ]
        stored.items[1].groups = ["fires", "ice"]
        state.stored = stored
        _ = state.handle(.enter)
        _ = state.handle(.down)
        #expect(state.handle(.enter) == [])
        #expect(
            render(state, height: 16) == """
                monitor › planet › Wildfires          all days  08:00:00 UTC
                  A very long title of a fire that goes on and on past the
                  edge of the screen

                  date      2027-01-12 08:00 UTC
                  groups    Wildfires, Sea Ice
                  status    closed
                  position  lat 14.4, lon -99.4
                  source    InciWeb red
                  link      https://eonet.gsfc.nasa.gov/api/v3/events/EONET_
                            6543?with=a&very=long&query=string



                08:00:00 planet: first sync, 3 items
                Esc back  o print the link  d days  m map  ? keys  q quit
                """)
        #expect(state.handle(.character("o")) == [])
        #expect(
            render(state, height: 16).components(separatedBy: "\n")[14]
                == "08:00:00 link: https://eonet.gsfc.nasa.gov/api/v3/events/EO…")
        #expect(state.handle(.escape) == [])
        #expect(state.level == .items(feed: "planet", group: "fires"))
        #expect(state.itemRow == 1)
        // From the list, o prints the selected item's link too.
        _ = state.handle(.up)
        _ = state.handle(.character("o"))
        _ = state.handle(.down)
        _ = state.handle(.character("o"))
        #expect(
            Array(state.log.suffix(2)) == [
                "08:00:00 link: https://example.org/1",
                "08:00:00 link: https://eonet.gsfc.nasa.gov/api/v3/events/EONET_6543?with=a&very=long&query=string",
            ])
    }

    @Test("titles with wide characters, emoji and combining marks are cut by cells; escapes in them do nothing")
    func wideAndHostileTitles() {
        var state = state()
        _ = state.handle(.enter)
        let date = now.addingTimeInterval(-3_600)
        state.stored = StoredFeed(
            feed: "planet", catalog: [ItemGroup(id: "quakes", title: "地震 🌋")],
            items: [
                Item(id: "1", title: "東京で地震 🔥 マグニチュード6.1の強い揺れが観測されました", date: date, groups: ["quakes"]),
                Item(
                    id: "2", title: "Cafe\u{301} tremor near Zu\u{308}rich, a long title that goes on and on",
                    date: date.addingTimeInterval(-60), groups: ["quakes"]),
                Item(
                    id: "3",
                    title:
                        "\u{1B}]52;c;cm0gLXJmIH4=\u{07}clipboard \u{1B}]2;pwned\u{07}title \u{1B}[5;5Hcursor \u{9D}0;x\u{9C}done",
                    date: date.addingTimeInterval(-120), groups: ["quakes"]),
            ], breakdownDetail: nil)
        #expect(
            render(state, height: 12) == """
                monitor › planet                      all days  08:00:00 UTC
                3 items in 1 group, all days

                > 地震 🌋  3






                08:00:00 planet: first sync, 3 items
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
        _ = state.handle(.enter)
        #expect(
            render(state, height: 12) == """
                monitor › planet › 地震 🌋            all days  08:00:00 UTC
                3 items, newest first, all days

                > 2027-01-15 07:00  東京で地震 🔥 マグニチュード6.1の強い揺…
                  2027-01-15 06:59  Café tremor near Zürich, a long title t…
                  2027-01-15 06:58  clipboard title cursor done



                  no link
                08:00:00 planet: first sync, 3 items
                ↑↓ select  Enter open  Esc back  d days  / filter  r poll  …
                """)
    }

    @Test(
        "m shows the map of the selected feed, then of the open group (first in the legend, marked); d applies; m and Esc go back"
    )
    func map() {
        var state = state()
        let day: TimeInterval = 86_400
        func quake(_ id: String, _ group: String, lat: Double, lon: Double, daysAgo: Double) -> Item {
            Item(
                id: id, title: id, date: now.addingTimeInterval(-daysAgo * day), groups: [group],
                details: [Detail("lat", "\(lat)"), Detail("lon", "\(lon)")])
        }
        let items = [
            quake("tokyo", "fires", lat: 35.68, lon: 139.69, daysAgo: 1),
            quake("lima", "fires", lat: -12.05, lon: -77.04, daysAgo: 10),
            quake("reykjavik", "ice", lat: 64.15, lon: -21.94, daysAgo: 2),
            Item(id: "nowhere", title: "nowhere", date: now, groups: ["ice"]),
        ]
        #expect(state.handle(.character("m")) == [.load(feed: "planet")])
        #expect(state.map == BrowserState.MapView(feed: "planet", group: nil))
        state.stored = StoredFeed(
            feed: "planet",
            catalog: [ItemGroup(id: "fires", title: "Wildfires"), ItemGroup(id: "ice", title: "Sea Ice")],
            items: items, breakdownDetail: nil)
        let screen = BrowserScreen.render(state, width: 60, height: 12)
        #expect(
            screen.joined(separator: "\n") == """
                monitor › planet › map                all days  08:00:00 UTC
                ⣄⣀⣀⡤⣤⣀⣀⣀⣀⣤⣶⣶⣶⣶⣶⣶⣶⣶⢶⣶⢶⣖⠒⣒⣑⣲⣶⣒   ⢐⣲⣒⣶⣀⣀⣒⣲⣤⣤⣤⣤⠤⠤⠶⠶⠶⠤⠤⠤⠤⠤⠤⠤⠤⢤⣀⣀⣠
                 ⠉⠙⠛⠛⠉⠉⠙⠲⡤⠤⠤⠤⠤⠽⠿⣿⣫⣭⡽⠶⠍⠉⠁  +⠁⣒⣷⣾⣿⣿⣿⣿⣷⣥⣠⣶⣴⣖⣒⣒⡤⠤⢤⣖⣤⣤⢤⣒⣦⣴⣾⡍⠙⠟⠋⠉⠉
                   ⠤⡄    ⠈⠙⠶⢶⣲⣲⣶⣾⣧⣄⡀       ⣴⣿⣿⣭⣽⣽⢿⠿⠿⣿⣛⣿⣿⠿⠿⡏⣓⠶⢶⣦⣤⡤⢼⣏⠙⠉*
                               ⠉⢽*⣟⡛⠓⠲⠤⢤⡄  ⠉⠛⠛⠛⠾⣿⣛⣻⣿⣾⠟⡋   ⠉⠛ ⠐⠻⢯⣷⣿⣿⣧⣤⣤⣤⣤⣀⡀
                ⠁                ⢉⡿⠚⣷⡤⠒⠋       ⠈⢯⣿⣿⠟⠉⠛⠃         ⠰⣖⣋⡭⣌⣉⣑⡦ ⠚⢀⣈
                                 ⠾⠷⢯⡇                    ⠒           ⠈⠉  ⠐⠋⠉
                ⣀⣀⣠⣴⣦⣶⡒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠲⠶⠿⠿⠥⠤⠤⠤⠤⠖⠒⠒⠒⠒⠚⠙⠉⠉⠉⠉⠉⠉⠉⠉⠉⠛⠋⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠩⠶⣖⣀
                  * Wildfires: 2 on the map, 0 without a position
                  + Sea Ice: 1 on the map, 1 without a position
                08:00:00 planet: first sync, 3 items
                m or Esc back  z zoom  d days  q quit
                """)
        // 12 rows: the title, 7 of map, 2 of legend, the log and the keys.
        let marks = MapCell.marks(screen.dropFirst().map { Substring($0) }, rows: 7, symbols: ["*", "+"])
        func cell(_ latitude: Double, _ longitude: Double) -> MapCellPosition {
            let cell = MapCell.of(latitude: latitude, longitude: longitude, columns: 60, rows: 7)
            return MapCellPosition(column: cell.column, row: cell.row)
        }
        #expect(
            marks == [
                "*": [cell(35.68, 139.69), cell(-12.05, -77.04)].sorted { ($0.row, $0.column) < ($1.row, $1.column) },
                "+": [cell(64.15, -21.94)],
            ])
        #expect(state.handle(.character("m")) == [])
        #expect(state.map == nil)
        _ = state.handle(.enter)
        _ = state.handle(.down)
        #expect(state.handle(.character("m")) == [])
        #expect(state.map == BrowserState.MapView(feed: "planet", group: "ice"))
        // Two steps of the days window: the last 7 days, which leave lima (10 days old) out.
        #expect(state.handle(.character("d")) == [])
        #expect(state.handle(.character("d")) == [])
        let group = BrowserScreen.render(state, width: 60, height: 12)
        #expect(
            group.joined(separator: "\n") == """
                monitor › planet › Sea Ice › map   last 7 days  08:00:00 UTC
                ⣄⣀⣀⡤⣤⣀⣀⣀⣀⣤⣶⣶⣶⣶⣶⣶⣶⣶⢶⣶⢶⣖⠒⣒⣑⣲⣶⣒   ⢐⣲⣒⣶⣀⣀⣒⣲⣤⣤⣤⣤⠤⠤⠶⠶⠶⠤⠤⠤⠤⠤⠤⠤⠤⢤⣀⣀⣠
                 ⠉⠙⠛⠛⠉⠉⠙⠲⡤⠤⠤⠤⠤⠽⠿⣿⣫⣭⡽⠶⠍⠉⠁  +⠁⣒⣷⣾⣿⣿⣿⣿⣷⣥⣠⣶⣴⣖⣒⣒⡤⠤⢤⣖⣤⣤⢤⣒⣦⣴⣾⡍⠙⠟⠋⠉⠉
                   ⠤⡄    ⠈⠙⠶⢶⣲⣲⣶⣾⣧⣄⡀       ⣴⣿⣿⣭⣽⣽⢿⠿⠿⣿⣛⣿⣿⠿⠿⡏⣓⠶⢶⣦⣤⡤⢼⣏⠙⠉*
                               ⠉⢽⣯⣟⡛⠓⠲⠤⢤⡄  ⠉⠛⠛⠛⠾⣿⣛⣻⣿⣾⠟⡋   ⠉⠛ ⠐⠻⢯⣷⣿⣿⣧⣤⣤⣤⣤⣀⡀
                ⠁                ⢉⡿⠚⣷⡤⠒⠋       ⠈⢯⣿⣿⠟⠉⠛⠃         ⠰⣖⣋⡭⣌⣉⣑⡦ ⠚⢀⣈
                                 ⠾⠷⢯⡇                    ⠒           ⠈⠉  ⠐⠋⠉
                ⣀⣀⣠⣴⣦⣶⡒⠒⠒⠒⠒⠒⠒⠒⠒⠒⠲⠶⠿⠿⠥⠤⠤⠤⠤⠖⠒⠒⠒⠒⠚⠙⠉⠉⠉⠉⠉⠉⠉⠉⠉⠛⠋⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠩⠶⣖⣀
                > + Sea Ice: 1 on the map, 1 without a position
                  * Wildfires: 1 on the map, 0 without a position
                08:00:00 planet: first sync, 3 items
                m or Esc back  z zoom  d days  q quit
                """)
        #expect(state.handle(.escape) == [])
        #expect(state.map == nil)
        #expect(state.level == .groups(feed: "planet"))
    }

    @Test("z zooms the map to the box around the items shown, with a margin; z again shows the world as before")
    func mapZoom() {
        var state = state()
        func quake(_ id: String, _ group: String, lat: Double, lon: Double) -> Item {
            Item(
                id: id, title: id, date: now, groups: [group],
                details: [Detail("lat", "\(lat)"), Detail("lon", "\(lon)")])
        }
        _ = state.handle(.character("m"))
        state.stored = StoredFeed(
            feed: "planet",
            catalog: [ItemGroup(id: "fires", title: "Wildfires"), ItemGroup(id: "ice", title: "Sea Ice")],
            items: [
                quake("tokyo", "fires", lat: 35.68, lon: 139.69),
                quake("lima", "fires", lat: -12.05, lon: -77.04),
                quake("reykjavik", "ice", lat: 64.15, lon: -21.94),
            ], breakdownDetail: nil)
        let world = BrowserScreen.render(state, width: 62, height: 13)
        #expect(state.handle(.character("z")) == [])
        #expect(state.map == BrowserState.MapView(feed: "planet", group: nil, zoomed: true))
        let zoomed = BrowserScreen.render(state, width: 62, height: 13)
        #expect(
            zoomed.joined(separator: "\n") == """
                monitor › planet › map                  all days  08:00:00 UTC
                ⢛⡽⠿⠿⣿⡿⣯⣿⡖ ⠙⢥⣀⡤⠒⠒⠒⠻+⠶⠆   ⢠⠤⣶⢻⣿⣿⣻⠿⠷⠞⠒⠚⠛⠛⠉⠙⠙⠋⠈           ⠉⠉⠉⣀⣀⣉⣉⣉
                ⢤⣉⣉⣓⠴⠁⢀⡥⣬⣷⣦          ⠖⣿⡷⢼⣟⣿⣷⣾⣿⣽⣶⣤⡄⢠⣤⡤⠤⠖⠒⠒⠒⠢⣤⣤⡤⠤⠤⠤⠤⠤⣤⡖⠲⢄⣐⣚⣶⠄ ⠸⠗
                   ⠘⢊⡿⠛⠉⠉            ⣿⣯⡿⠯⣿⣿⠿⢿⣿⠿⣿⣿⡿⣿⠾⠿⢿⣿⠷⣾⣿⡛⠁ ⠉⠉⠉⠒⠉⠉⢰⡶⢶⣟⣉*⡟⠁
                ⣞⢙⣋⣹⣷⣆⣀            ⣠⡶⠿⡭⢅⣀⣸⢥⣭⣁⣏⣉⣻⣯⡉⠚⠷⣶⣦⠿⠭⣗⠁⠙⠛⣲⣶⢷⣆⣤⣀⣀⡤⡿ ⠈
                ⠚⠛⠻⣶⣈⡭⣭⠭⢤⣄         ⠺⣷⣶⢷⢶⡟⢲⣲⣇⣰⣧⣠⣤⠟⢿⣿⣿⠉⠁  ⠈⢦⣴⡉ ⠘⢻⣿⢿⠿ ⣠⢿⣦
                    ⣶⠷⣼⠓⠋⠛⠛⠳⠤⠤⣄⡀    ⠈⠉⠉⠉⠉⠹⣾⡿⠉⠉⢽⠽⢭⡿⠛⠁      ⠈   ⠙⢿⣧⣰⣾⣿⣶⢻⣦⣤⣤⣤⣀⣤⣀
                    ⠘*⣿⡞⢲⣤    ⡖⠁          ⣼⣉⣹⣒⡿⣿⣞⠆⡤⡦            ⠈⠉⠉⠉⣛⡯⠴⠺⢏⡿⣝⠃⠈⠙
                  * Wildfires: 2 on the map, 0 without a position
                  + Sea Ice: 1 on the map, 0 without a position
                  zoomed to 20°S–72°N, 99°W–161°E; z: the world
                08:00:00 planet: first sync, 3 items
                m or Esc back  z world  d days  q quit
                """)
        // The box: the items' extent, 10 % of its width and height added on each side (more than 2°). The extreme
        // items are at 1/12 and 11/12 of each side: 62 columns and 7 rows keep them off the edges of dots.
        let box = (
            west: -77.04 - 0.1 * (139.69 + 77.04), south: -12.05 - 0.1 * (64.15 + 12.05),
            east: 139.69 + 0.1 * (139.69 + 77.04), north: 64.15 + 0.1 * (64.15 + 12.05)
        )
        // 13 rows: the title, 7 of map, 2 of legend, the zoom's line, the log and the keys.
        let marks = MapCell.marks(zoomed.dropFirst().map { Substring($0) }, rows: 7, symbols: ["*", "+"])
        func cell(_ latitude: Double, _ longitude: Double) -> MapCellPosition {
            let cell = MapCell.of(latitude: latitude, longitude: longitude, columns: 62, rows: 7, box: box)
            return MapCellPosition(column: cell.column, row: cell.row)
        }
        #expect(
            marks == [
                "*": [cell(35.68, 139.69), cell(-12.05, -77.04)].sorted { ($0.row, $0.column) < ($1.row, $1.column) },
                "+": [cell(64.15, -21.94)],
            ])
        #expect(state.handle(.character("z")) == [])
        #expect(state.map == BrowserState.MapView(feed: "planet", group: nil, zoomed: false))
        #expect(BrowserScreen.render(state, width: 62, height: 13) == world)
    }
}
