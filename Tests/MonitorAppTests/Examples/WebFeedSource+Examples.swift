import MonitorCore
import TestSupport

@testable import WebFeedSource

// MARK: - Examples

extension WebFeedSource {
    /// Recorded answers of a small blog (RSS 2.0, Atom and JSON Feed) and what the source must make of them: a first
    /// poll, a 304, an entry re-published with a new date (not new again), an entry that cannot be an item, a page.
    static var examples: [SourceExample] {
        let url = "http://blog.example/feed"
        let first = rss([
            entry("p1", "First post", "Mon, 02 Nov 2026 10:00:00 +0000", category: "Swift"),
            entry("p2", "Second post", "Tue, 03 Nov 2026 10:00:00 +0000", category: "Linux"),
        ])
        let later = rss([
            entry("p3", "Third post", "Thu, 05 Nov 2026 10:00:00 GMT", category: "Swift"),
            // Re-published with a new date: the same item, not new again.
            entry("p2", "Second post", "Fri, 06 Nov 2026 10:00:00 GMT", category: "Linux"),
            entry(nil, "", "Sat, 07 Nov 2026 10:00:00 GMT", category: "Swift"),
        ])
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Releases</title>
            <entry><id>tag:v2</id><title>v2</title><updated>2026-11-04T09:00:00+03:00</updated><link href="/v2"/></entry>
            <entry><id>tag:v1</id><title>v1</title><updated>2026-11-01T09:00:00Z</updated><link href="/v1"/></entry>
            </feed>
            """
        let json = """
            {"version":"https://jsonfeed.org/version/1.1","title":"Notes","items":[
            {"id":"n1","title":"Note <one>","date_published":"2026-11-02T10:00:00Z","tags":["misc"]}]}
            """
        let page =
            #"<!DOCTYPE html><html><head><link rel="alternate" type="application/atom+xml" href="/atom.xml"></head></html>"#
        let firstPoll = SourceExample.Poll(
            answers: [url: xml(first, etag: #""r1""#)],
            expect: .init(status: .ok, items: ["p2", "p1"], groups: ["Swift": 1, "Linux": 1], new: 2))
        return [
            SourceExample(
                "an RSS 2.0 feed, a 304, then a new entry, one re-published and one without id, link or title",
                options: ["url": .string(url)],
                polls: [
                    firstPoll,
                    SourceExample.Poll(
                        answers: [url: SourceExample.notModified],
                        expect: .init(
                            status: .notModified, items: ["p2", "p1"], groups: ["Swift": 1, "Linux": 1], new: 0)),
                    SourceExample.Poll(
                        answers: [url: xml(later, etag: #""r2""#)],
                        expect: .init(
                            status: .partial, items: ["p2", "p3", "p1"], groups: ["Swift": 2, "Linux": 1], new: 1)),
                ]),
            SourceExample(
                "an Atom feed: relative links resolved, entries grouped under the feed's title",
                options: ["url": .string(url)],
                polls: [
                    SourceExample.Poll(
                        answers: [url: xml(atom, etag: #""a1""#)],
                        expect: .init(status: .ok, items: ["tag:v2", "tag:v1"], groups: ["Releases": 2], new: 2))
                ]),
            SourceExample(
                "a JSON Feed",
                options: ["url": .string(url)],
                polls: [
                    SourceExample.Poll(
                        answers: [url: SourceExample.json(json, etag: #""j1""#)],
                        expect: .init(status: .ok, items: ["n1"], groups: ["misc": 1], new: 1))
                ]),
            SourceExample(
                "a web page instead of a feed fails the poll, naming the feed it links to",
                options: ["url": .string(url)],
                polls: [
                    firstPoll,
                    SourceExample.Poll(
                        answers: [url: xml(page, etag: #""h1""#)],
                        expect: .init(status: .failed, items: ["p2", "p1"], new: 0)),
                ]),
        ]
    }

    /// A 200 answer with an XML body and an ETag.
    static func xml(_ body: String, etag: String) -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: ["Content-Type": "application/rss+xml", "ETag": etag], body: Array(body.utf8))
    }

    /// An RSS 2.0 document of `items`.
    static func rss(_ items: [String]) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Blog</title>"#
            + "<link>http://blog.example/</link>\(items.joined())</channel></rss>"
    }

    /// An RSS 2.0 item.
    static func entry(_ guid: String?, _ title: String, _ date: String, category: String) -> String {
        let id = guid.map { "<guid isPermaLink=\"false\">\($0)</guid>" } ?? ""
        return "<item>\(id)<title>\(title)</title><pubDate>\(date)</pubDate><category>\(category)</category></item>"
    }
}
