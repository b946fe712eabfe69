import Foundation
import LoopbackHTTP
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorOptions
import TestSupport
import Testing
import WebFeedSource

/// The `feed` source on the wire: real feed documents (`../shared/api-samples/feeds/`) served by a real server on
/// 127.0.0.1, polled through the real HTTP stack into a SQLite state.
@Suite("feed: real documents on the wire")
struct WebFeedWireTests {
    /// What a poll of a document read from `../shared` keeps.
    struct Expected: Sendable, CustomTestStringConvertible {
        var file: String
        var count: Int
        /// The newest item, whole.
        var newest: Item
        /// The ids of the next two, and of the oldest.
        var next: [String]
        var oldest: String
        var position: Item.Position? = nil

        var testDescription: String { file }
    }

    static func date(_ text: String) -> Date { ISO8601.date(text)! }

    static let documents: [Expected] = [
        Expected(
            file: "wordpress-natasha.xml", count: 10,
            newest: Item(
                id: "https://www.natashatherobot.com/?p=6602",
                title: "The Easiest Way to Get a URL for your Apple Wallet Passkit Pass",
                date: date("2017-07-07T11:06:10Z"),
                groups: ["iPhone", "event", "ios", "passkit", "passkit pass", "wallet"],
                url: "https://www.natashatherobot.com/url-apple-wallet-passkit-pass/",
                details: [
                    Detail("author", "Natasha Murashev"),
                    Detail(
                        "summary",
                        "For try! Swift NYC, we are playing with the idea of adding QR codes to conference badges that will add attendee’s contact information business card to your Wallet app..."
                    ),
                ]),
            next: ["https://www.natashatherobot.com/?p=6592", "https://www.natashatherobot.com/?p=6578"],
            oldest: "https://www.natashatherobot.com/?p=6473"),
        Expected(
            file: "github-releases-s3-manager.atom", count: 10,
            newest: Item(
                id: "tag:github.com,2008:Repository/621493965/v2.1.1", title: "v2.1.1",
                date: date("2023-08-04T09:21:41Z"), groups: ["Release notes from s3-manager"],
                url: "https://github.com/bilalcaliskan/s3-manager/releases/tag/v2.1.1",
                details: [
                    Detail("author", "github-actions[bot]"),
                    Detail(
                        "summary",
                        "Changelog e26e750 build(deps): bump github.com/aws/aws-sdk-go from 1.44.300 to 1.44.306 b8d8d4c build(deps): bump github.com/aws/aws-sdk-go from 1.44.306 to 1.44.312 b2f24b4 build(deps): bump github.com/rs/zerolog from 1.29.1 to 1.30.0"
                    ),
                ]),
            next: [
                "tag:github.com,2008:Repository/621493965/v2.1.0", "tag:github.com,2008:Repository/621493965/v2.0.0",
            ],
            oldest: "tag:github.com,2008:Repository/621493965/v1.0.13"),
        Expected(
            file: "jsonfeed-3960.json", count: 20,
            newest: Item(
                id: "user/posts/2020-02-21-lecker-lecker/index.md", title: "Lecker, lecker",
                date: date("2020-02-21T18:08:06+01:00"), groups: ["Lustiges"],
                url: "https://journal.3960.org/posts/2020-02-21-lecker-lecker/",
                details: [
                    Detail("author", "Frank Boës"),
                    Detail("summary", "Da ist es zwar nicht ganz billig, dafür schmeckt's aber auch nicht."),
                ]),
            next: [
                "user/posts/2020-02-10-sabine-flughafen-amsterdam/index.md", "user/posts/2020-01-19-migrants/index.md",
            ],
            oldest: "user/posts/2019-02-14-simplex-duplex/index.md"),
        Expected(
            file: "rdf-biorxiv.rdf", count: 30,
            newest: Item(
                id: "http://biorxiv.org/cgi/content/short/743294v1?rss=1",
                title:
                    "Wheat inositol pyrophosphate kinase (TaVIH2-3B) interacts with Fasciclin-like arabinogalactan (FLA6) protein and alters the plant cell-wall composition",
                date: date("2019-08-27T00:00:00Z"), groups: ["bioRxiv Subject Collection: Plant Biology"],
                url: "http://biorxiv.org/cgi/content/short/743294v1?rss=1",
                details: [
                    Detail(
                        "author",
                        "Kaur, M., Shukla, A., Kanwar, S., Shukla, V., Kaur, G., Sharma, S., Kumar, A., Aggarwal, S., Bhati,…"
                    ),
                    Detail(
                        "summary",
                        "Inositol pyrophosphates (PPx-InsPs) are of key interest, since they are known to participate in multiple physiological processes from lower eukaryotes to humans. However, limited knowledge is available for their role in plants and especially in crops. In this study, two diphosphoinositol pentakisph…"
                    ),
                ]),
            next: [
                "http://biorxiv.org/cgi/content/short/746628v1?rss=1",
                "http://biorxiv.org/cgi/content/short/745653v1?rss=1",
            ],
            oldest: "http://biorxiv.org/cgi/content/short/726125v1?rss=1"),
        Expected(
            file: "latin1-golem.xml", count: 40,
            newest: Item(
                id: "https://www.golem.de/1810/137358-rss.html",
                title: "Red Dead Redemption 2: Hinweise auf PC-Umsetzung in App von Rockstar Games",
                date: date("2018-10-28T13:48:00+01:00"), groups: ["Golem.de"],
                url:
                    "https://www.golem.de/news/red-dead-redemption-2-hinweise-auf-pc-umsetzung-in-app-von-rockstar-games-1810-137358-rss.html",
                details: [
                    Detail(
                        "summary",
                        "Viele Spieler wünschen sich eine PC-Version von Red Dead Redemption 2, aber Entwickler Rockstar Games schweigt zu dem Thema. Anders die offizielle Companion App: In einigen ihrer Daten gibt es Hinweise auf die Umsetzung. (Red Dead Redemption 2, Red Dead Redemption)"
                    )
                ]),
            next: ["https://www.golem.de/1810/137357-rss.html", "https://www.golem.de/1810/137356-rss.html"],
            oldest: "https://www.golem.de/1810/137319-rss.html"),
        Expected(
            file: "georss-usgs-2.5_day.atom", count: 40,
            newest: Item(
                id: "urn:earthquake-usgs-gov:us:6000kr5g", title: "M 5.6 - Region Metropolitana, Chile",
                date: date("2023-07-10T01:14:14.738Z"), groups: ["Past Day", "Magnitude 5", "us"],
                url: "https://earthquake.usgs.gov/earthquakes/eventpage/us6000kr5g",
                details: [
                    Detail("position", "lat -33.2122, lon -70.3268"),
                    Detail(
                        "summary",
                        "PAGER - GREEN ShakeMap - V DYFI? - VI Time 2023-07-09 17:11:33 UTC 2023-07-09 17:11:33 UTC at epicenter Location 33.212S 70.327W Depth 101.79 km (63.25 mi)"
                    ),
                ]),
            next: ["urn:earthquake-usgs-gov:us:6000kr8m", "urn:earthquake-usgs-gov:us:6000kr82"],
            oldest: "urn:earthquake-usgs-gov:us:6000kr1j",
            position: Item.Position(latitude: -33.2122, longitude: -70.3268)),
    ]

    /// Serves `bytes` at `/feed` with `type` and an ETag (a request that sends it back is answered 304), polls it
    /// `polls` times, and returns the reports, the stored items and the requests' `If-None-Match`.
    static func poll(_ bytes: [UInt8], type: String = "application/xml", polls: Int = 1) async throws
        -> (reports: [PollReport], items: [Item], conditional: [String?])
    {
        let wire = try Wire()
        let result = try await withTestHTTPServer({ request in
            request.header("If-None-Match") == "\"1\""
                ? TestResponse(status: 304)
                : TestResponse(headers: [("Content-Type", type), ("ETag", "\"1\"")], body: bytes)
        }) { server in
            let feed = PollHarness.feed(
                WebFeedSource.self, name: "f", options: ["url": .string("\(server.baseURL)/feed")])
            var reports: [PollReport] = []
            for _ in 0..<polls { reports.append(await wire.poll(WebFeedSource.self, feed)) }
            return (
                reports, try await wire.harness.store.items(feed: "f"),
                server.requests.map { $0.header("If-None-Match") }
            )
        }
        try await wire.shutdown()
        return result
    }

    @Test(
        "each real document's entries are stored newest first; the next request is conditional, answered 304",
        .enabled(if: SharedSamples.folder != nil, "../shared is absent"), arguments: documents)
    func document(_ expected: Expected) async throws {
        let type = expected.file.hasSuffix(".json") ? "application/feed+json" : "application/xml"
        let bytes = try SharedSamples.bytes("api-samples/feeds/\(expected.file)")
        let (reports, items, conditional) = try await Self.poll(bytes, type: type, polls: 2)
        #expect(reports.map(\.status) == [.ok, .notModified])
        #expect(reports.map(\.new) == [expected.count, 0])
        #expect(reports.map(\.items) == [expected.count, expected.count])
        #expect(conditional == [nil, "\"1\""])
        #expect(items.count == expected.count)
        #expect(items.first == expected.newest)
        #expect(items.first?.location == expected.position)
        #expect(Array(items.dropFirst().prefix(2).map(\.id)) == expected.next)
        #expect(items.last?.id == expected.oldest)
    }

    @Test(
        "ISO-8859-1 is read as declared: 21 of golem.de's 40 titles hold ü, ö, ä or ß, none a replacement character",
        .enabled(if: SharedSamples.folder != nil, "../shared is absent"))
    func latin1() async throws {
        let (_, items, _) = try await Self.poll(try SharedSamples.bytes("api-samples/feeds/latin1-golem.xml"))
        #expect(items.filter { $0.title.contains(where: { "üöäßÜÖÄ".contains($0) }) }.count == 21)
        #expect(!items.contains { $0.title.contains("\u{FFFD}") })
    }

    @Test(
        "a web page fails the poll naming the feed it links to; the hostile documents are refused or read without the entity",
        .enabled(if: SharedSamples.folder != nil, "../shared is absent"))
    func pageAndHostile() async throws {
        let page = try await Self.poll(
            try SharedSamples.bytes("api-samples/feeds/html-inessential.html"), type: "text/html")
        #expect(page.reports.map(\.status) == [.failed])
        #expect(
            page.reports.first?.error?.hasSuffix(
                "/feed: this is an HTML page; its feed is http://inessential.com/xml/rss.xml") == true,
            "\(page.reports.first?.error ?? "")")
        let laughs = try await Self.poll(try SharedSamples.bytes("api-samples/feeds/hostile-billion-laughs.xml"))
        #expect(laughs.reports.map(\.status) == [.failed])
        #expect(
            laughs.reports.first?.error?.hasSuffix(
                "/feed: not a feed: line 20, column 20: an entity refers to itself or expands too far (refused)")
                == true,
            "\(laughs.reports.first?.error ?? "")")
        #expect(laughs.items.isEmpty)
        // The external entity is never read: its reference is dropped from the title.
        let xxe = try await Self.poll(try SharedSamples.bytes("api-samples/feeds/hostile-xxe.xml"))
        #expect(xxe.items.map(\.id) == ["xxe-1", "xxe-2"])
        #expect(xxe.items.map(\.title) == ["Host:", "A plain neighbour"])
    }

    @Test(
        "a document of nested elements larger than max_body fails its poll at the limit; one within it is read, no entry"
    )
    func nested() async throws {
        let wire = try Wire(settings: settings(maxBody: 1 << 20))
        let feed = { (url: String) in PollHarness.feed(WebFeedSource.self, name: "n", options: ["url": .string(url)]) }
        let deep = { (depth: Int) -> [UInt8] in
            Array(
                ("<rss>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) + "</rss>")
                    .utf8)
        }
        let (huge, within) = (deep(300_000), deep(100_000))
        try await withTestHTTPServer({ request in
            TestResponse(body: request.path == "/huge" ? huge : within)
        }) { server in
            let failed = await wire.poll(WebFeedSource.self, feed("\(server.baseURL)/huge"))
            #expect(failed.status == .failed)
            #expect(
                failed.error == "GET \(server.baseURL)/huge: the response is larger than 1MiB (settings.max_body)",
                "\(failed.error ?? "")")
            let read = await wire.poll(WebFeedSource.self, feed("\(server.baseURL)/within"))
            #expect(read.status == .ok)
            #expect(read.items == 0)
        }
        try await wire.shutdown()
    }

    @Test("a 429 with Retry-After holds the feed back until then, as for every source; then it is polled again")
    func retryAfter() async throws {
        let start = Date(timeIntervalSince1970: 1_795_323_600)
        let clock = ManualClock(start: start)
        let wire = try Wire(settings: settings(retries: 0), clock: clock)
        let rss = #"<rss><channel><title>T</title><item><guid>a</guid><title>A</title></item></channel></rss>"#
        let recovered = Counter()
        try await withTestHTTPServer({ _ in
            recovered.value > 0
                ? TestResponse(body: Array(rss.utf8))
                : TestResponse(status: 429, headers: [("Retry-After", "1800")], body: Array("slow down".utf8))
        }) { server in
            let feed = PollHarness.feed(
                WebFeedSource.self, name: "r", options: ["url": .string("\(server.baseURL)/rss")])
            let report = await wire.poll(WebFeedSource.self, feed)
            #expect(report.status == .failed)
            #expect(report.notBefore == start.addingTimeInterval(1800))
            #expect(
                report.error
                    == "GET \(server.baseURL)/rss: HTTP 429: the server asked to retry after 30m; not polled again before 2026-11-22 05:30:00 UTC",
                "\(report.error ?? "")")
            recovered.increment()
            clock.advance(by: .seconds(1799))
            #expect(await wire.poll(WebFeedSource.self, feed).status == .failed)
            #expect(server.requests.count == 1)
            clock.advance(by: .seconds(1))
            #expect(await wire.poll(WebFeedSource.self, feed).status == .ok)
            #expect(server.requests.count == 2)
        }
        try await wire.shutdown()
    }
}
