import Foundation
import MonitorCore
import MonitorItems
import MonitorJSON
import MonitorOptions
import TestSupport
import Testing

@testable import WebFeedSource

/// The `feed` source on the documents feeds get wrong: garbage dates, encodings declared or not, relative links,
/// markup in titles, broken XML, a document that is no feed. Each poll goes through the core, into a state.
@Suite("feed: the edge cases, with exact messages and nothing stored lost")
struct WebFeedEdgeTests {
    static let url = "http://blog.example/feed"

    /// Polls `bodies` in order (each answering the feed's one request), returning the reports and the items stored.
    static func poll(_ bodies: [[UInt8]], type: String = "application/rss+xml", clock: ManualClock = ManualClock())
        async throws -> (reports: [PollReport], items: [Item])
    {
        let harness = PollHarness()
        let feed = PollHarness.feed(WebFeedSource.self, name: "f", options: ["url": .string(url)])
        var reports: [PollReport] = []
        for body in bodies {
            let transport = StubTransport { _ in HTTPResponse(status: 200, headers: ["Content-Type": type], body: body)
            }
            reports.append(
                await harness.poll(WebFeedSource.self, feed: feed, transport: transport, clock: clock).report)
        }
        return (reports, try await harness.store.items(feed: "f"))
    }

    static func rss(_ channel: String, items: String) -> [UInt8] {
        Array(
            #"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>\#(channel)\#(items)</channel></rss>"#
                .utf8)
    }

    @Test("a feed whose dates are all garbage: its entries are dated by the feed's own date, and a note says so")
    func garbageDates() async throws {
        let body = Self.rss(
            "<title>T</title><lastBuildDate>Tue, 10 Nov 2026 08:00:00 GMT</lastBuildDate>",
            items: "<item><guid>a</guid><title>A</title><pubDate>yesterday</pubDate></item>"
                + "<item><guid>b</guid><title>B</title><pubDate>32/13/2026</pubDate></item>")
        let (reports, items) = try await Self.poll([body])
        #expect(reports.map(\.status) == [.ok])
        #expect(
            reports.first?.notes == [
                "2 entries have no date that can be read (first: 'yesterday'): dated by the feed's date"
            ])
        #expect(items.map(\.id) == ["b", "a"])
        #expect(items.map(\.date) == Array(repeating: ISO8601.date("2026-11-10T08:00:00Z")!, count: 2))
    }

    @Test("without a feed date either, the time of the poll dates them")
    func undatedFeed() async throws {
        let clock = ManualClock(start: ISO8601.date("2026-12-01T12:00:00Z")!)
        let body = Self.rss("<title>T</title>", items: "<item><guid>a</guid><title>A</title></item>")
        let (reports, items) = try await Self.poll([body], clock: clock)
        #expect(
            reports.first?.notes == [
                "1 entry has no date that can be read (first: 'none'): dated by the time of the poll"
            ])
        #expect(items.map(\.date) == [ISO8601.date("2026-12-01T12:00:00Z")!])
    }

    @Test("an encoding declared wrongly fails the poll at its line and column; the items stored before stay")
    func wrongEncoding() async throws {
        let good = Self.rss(
            "<title>T</title>", items: "<item><guid>a</guid><title>A</title><pubDate>2026-11-01</pubDate></item>")
        // Declared UTF-8, written in ISO-8859-1: `é` is one byte, 0xE9.
        let bad =
            Array(#"<?xml version="1.0" encoding="UTF-8"?><rss><channel><title>caf"#.utf8) + [0xE9]
            + Array("</title></channel></rss>".utf8)
        let (reports, items) = try await Self.poll([good, bad])
        #expect(reports.map(\.status) == [.ok, .failed])
        #expect(
            reports.last?.error
                == "GET \(Self.url): not a feed: line 1, column 63: a character is not valid in the encoding the document declares (or UTF-8)"
        )
        #expect(items.map(\.id) == ["a"])
    }

    @Test("Windows-1252 and UTF-16 are read as declared")
    func encodings() async throws {
        let windows =
            Array(
                #"<?xml version="1.0" encoding="windows-1252"?><rss><channel><title>T</title><item><guid>w</guid><title>caf"#
                    .utf8)
            + [0xE9, 0x20, 0x93, 0x71, 0x94, 0x20, 0x80] + Array("</title></item></channel></rss>".utf8)
        #expect(try await Self.poll([windows]).items.map(\.title) == ["café “q” €"])
        let text =
            #"<?xml version="1.0" encoding="UTF-16"?><rss><channel><title>T</title><item><guid>u</guid><title>Grüße ☃</title></item></channel></rss>"#
        let utf16: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(try await Self.poll([utf16]).items.map(\.title) == ["Grüße ☃"])
    }

    @Test("an RSS guid that is a permalink is the page of an item without a link; one that says it is not, is not")
    func permalink() async throws {
        let body = Self.rss(
            "<title>T</title>",
            items: "<item><guid>https://blog.example/1</guid><title>A</title><pubDate>2026-11-02</pubDate></item>"
                + #"<item><guid isPermaLink="false">https://blog.example/2</guid><title>B</title><pubDate>2026-11-01</pubDate></item>"#
        )
        let (_, items) = try await Self.poll([body])
        #expect(items.map(\.url) == ["https://blog.example/1", nil])
    }

    @Test("a page that links to two feeds names both; one that links to none says so")
    func pages() async throws {
        let two = Array(
            (#"<!DOCTYPE html><html><head><title>x</title><link rel="stylesheet" href="/s.css">"#
                + #"<link rel="alternate" type="application/rss+xml" href="/rss.xml"><link rel="Alternate" "#
                + #"type="application/atom+xml" href="https://other.example/atom"></head><body><p>hi<br></body></html>"#)
                .utf8)
        #expect(
            try await Self.poll([two], type: "text/html").reports.first?.error
                == "GET \(Self.url): this is an HTML page; its feeds are http://blog.example/rss.xml, https://other.example/atom"
        )
        let none = Array("<html><head><title>x</title></head><body>hi</body></html>".utf8)
        #expect(
            try await Self.poll([none], type: "text/html").reports.first?.error
                == "GET \(Self.url): this is an HTML page, not a feed, and it links to none (no <link rel=\"alternate\" type=\"application/rss+xml\">)"
        )
    }

    @Test("links resolve against the feed's URL and xml:base; markup and references leave titles as plain text")
    func linksAndMarkup() async throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://other.example/blog/"><title>X</title>
            <entry xml:base="2026/"><id>e1</id><title type="html">&lt;b&gt;Bold&lt;/b&gt; &amp;amp; more</title>
            <updated>2026-11-02T00:00:00Z</updated><link rel="alternate" href="post.html"/></entry>
            <entry><id>e2</id><title>Plain &lt;tag&gt;</title><updated>2026-11-01T00:00:00Z</updated>
            <link href="/root.html"/><category term="a"/><category term="a"/><category term="b"/></entry>
            </feed>
            """
        let (_, items) = try await Self.poll([Array(atom.utf8)])
        #expect(items.map(\.url) == ["http://other.example/blog/2026/post.html", "http://other.example/root.html"])
        #expect(items.map(\.title) == ["Bold & more", "Plain <tag>"])
        #expect(items.map(\.groups) == [["X"], ["a", "b"]])
    }

    @Test("a document cut short is read as far as it goes, and a note says where it broke; a bare & fails the poll")
    func recovered() async throws {
        let entries =
            "<rss><channel><title>T</title><item><guid>a</guid><title>A</title><pubDate>2026-11-01</pubDate></item>"
            + "<item><guid>b</guid><title>B</title><pubDate>2026-11-02</pubDate></item>"
        let (reports, items) = try await Self.poll([Array(entries.utf8)])
        #expect(reports.map(\.status) == [.ok])
        #expect(items.map(\.id) == ["b", "a"])
        #expect(
            reports.first?.notes
                == [
                    "the document is not well-formed XML (line 1, column 175: the document does not end with its root element (cut short, or more after it)): its entries were read as far as it goes"
                ])
        let ampersand = Array(
            "<rss><channel><title>T</title><item><guid>b</guid><title>B & C</title></item></channel></rss>".utf8)
        let bare = try await Self.poll([Array(entries.utf8) + Array("</channel></rss>".utf8), ampersand])
        #expect(bare.reports.map(\.status) == [.ok, .failed])
        #expect(
            bare.reports.last?.error
                == "GET \(Self.url): not a feed: line 1, column 61: a name is missing after an '&' or a '<' (write them &amp; and &lt; in text)"
        )
        #expect(bare.items.map(\.id) == ["b", "a"])
    }

    @Test("JSON that is no JSON Feed, and text that is neither, fail with what they are")
    func notFeeds() async throws {
        let json = try await Self.poll([Array(#"{"data":[]}"#.utf8)], type: "application/json")
        #expect(
            json.reports.first?.error
                == "GET \(Self.url): not a JSON Feed (not a JSON Feed: its 'version' is not https://jsonfeed.org/version/…)"
        )
        let text = try await Self.poll([Array("hello".utf8)], type: "text/plain")
        #expect(text.reports.first?.error == "GET \(Self.url): not a feed: line 1, column 1: the document is empty")
        let served = try await Self.poll(
            [
                Array(
                    "\n {\"version\":\"https://jsonfeed.org/version/1\",\"items\":[{\"id\":7,\"title\":\"seven\"}]}"
                        .utf8)
            ],
            type: "text/plain")
        #expect(served.items.map(\.id) == ["7"])
        let empty = try await Self.poll([[]])
        #expect(empty.reports.first?.error == "GET \(Self.url): not a feed: the body is empty")
        let other = try await Self.poll([Array("<opml><body/></opml>".utf8)])
        #expect(
            other.reports.first?.error
                == "GET \(Self.url): not a feed: its root element is <opml>, not rss, rdf:RDF or feed")
    }
}
