import Foundation
import LoopbackHTTP
import TestSupport
import Testing

/// `type: feed` and `type: json` run as a user would: `validate --online`, `run --once`, `events`, against a loopback
/// server; the json feed's header is a secret, never shown, even echoed by the server.
@Suite("feed and json: validate --online, run and events", .timeLimit(.minutes(5)))
struct WebFeedEndToEndTests {
    static let secret = "k-5ecret-value-0042"

    static let atom = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom"><title>Release notes</title>
        <entry><id>tag:v2</id><title>v2.0</title><updated>2026-11-20T10:00:00Z</updated><link href="/r/v2"/>
        <author><name>octo</name></author></entry>
        <entry><id>tag:v1</id><title>v1.0</title><updated>2026-11-01T10:00:00Z</updated><link href="/r/v1"/></entry>
        </feed>
        """
    static let api = """
        {"data":{"children":[
        {"data":{"name":"t3_b","title":"Second","created_utc":1795000100.0,"url":"https://example.org/b","sub":"swift","score":12}},
        {"data":{"name":"t3_a","title":"First","created_utc":1795000000,"url":"https://example.org/a","sub":"linux","score":3}}]}}
        """

    /// Serves the Atom feed at `/atom`, a page at `/page` and the API at `/api` (401 echoing the key when it is wrong).
    static func serve<T: Sendable>(_ body: (String) async throws -> T) async throws -> T {
        try await withTestHTTPServer(
            { request in
                switch request.path {
                case "/atom":
                    return TestResponse(headers: [("Content-Type", "application/atom+xml")], body: Array(atom.utf8))
                case "/page":
                    return TestResponse(
                        headers: [("Content-Type", "text/html")],
                        body: Array(
                            #"<html><head><link rel="alternate" type="application/rss+xml" href="/rss"></head></html>"#
                                .utf8))
                default:
                    guard request.header("X-Key") == secret else {
                        return TestResponse(
                            status: 401, headers: [("Content-Type", "application/json")],
                            body: Array(#"{"message":"bad key \#(request.header("X-Key") ?? "")"}"#.utf8))
                    }
                    return TestResponse(headers: [("Content-Type", "application/json")], body: Array(api.utf8))
                }
            }, { server in try await body(server.baseURL) })
    }

    static func feeds(_ base: String, key: String = "${API_KEY}") -> String {
        """
        feeds:
          - {name: releases, type: feed, url: "\(base)/atom"}
          - name: reddit
            type: json
            url: \(base)/api
            headers: {X-Key: "\(key)"}
            items: data.children[*].data
            id: name
            date: created_utc
            link: url
            group: sub
            details: {score: score}
        """
    }

    @Test("validate --online checks that the feed is a feed and that the path finds items; a page names its feed")
    func validateOnline() async throws {
        let directory = try TemporaryDirectory()
        try await Self.serve { base in
            try directory.write(
                "feeds.yaml", Self.feeds(base) + "\n  - {name: blog, type: feed, url: \"\(base)/page\"}\n")
            let result = try await MonitorProcess.run(
                ["validate", "--online"], in: directory.url, environment: ["API_KEY": Self.secret])
            #expect(
                result.stdout == """
                    feeds.yaml: ok, 3 feeds: releases (feed), reddit (json), blog (feed)
                    releases: ok: Atom feed 'Release notes', 2 entries
                    reddit: ok: 2 items at 'data.children[*].data'
                    blog: wrong: this is an HTML page; its feed is \(base)/rss
                    2 ok, 1 wrong, 0 not checked

                    """)
            #expect(result.status == 1)
            let wrongKey = try await MonitorProcess.run(
                ["validate", "--online"], in: directory.url, environment: ["API_KEY": "wrong-\(Self.secret)"])
            #expect(wrongKey.stdout.contains("\nreddit: wrong: GET \(base)/api: HTTP 401 Unauthorized: bad key …\n"))
            #expect(!wrongKey.stdout.contains(Self.secret) && !wrongKey.stderr.contains(Self.secret))
        }
    }

    @Test("run --once stores both feeds' items, and events lists them with their details")
    func runAndEvents() async throws {
        let directory = try TemporaryDirectory()
        try await Self.serve { base in
            try directory.write("feeds.yaml", Self.feeds(base))
            let environment = ["API_KEY": Self.secret]
            let run = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", "st"], in: directory.url, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            #expect(lines.allSatisfy { $0.contains(#""status":"ok","error":null,"#) && $0.contains(#""new":2"#) })
            let events = try await MonitorProcess.run(
                ["events", "reddit", "--format", "json", "--state", "st"], in: directory.url, environment: environment)
            #expect(events.status == 0, "\(events.stderr)")
            let items = try #require(
                try JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [[String: Any]?],
                "\(events.stdout)")
            #expect(items.map { $0?["id"] as? String } == ["t3_b", "t3_a"])
            #expect(items.map { $0?["date"] as? String } == ["2026-11-18T11:08:20Z", "2026-11-18T11:06:40Z"])
            #expect(items.map { $0?["url"] as? String } == ["https://example.org/b", "https://example.org/a"])
            #expect(items.map { $0?["groups"] as? [String] } == [["swift"], ["linux"]])
            #expect(items.map { ($0?["details"] as? [String: String])?["score"] } == ["12", "3"])
            let releases = try await MonitorProcess.run(["events", "releases", "--state", "st"], in: directory.url)
            #expect(releases.stdout.contains("v2.0"), "\(releases.stdout)")
            #expect(releases.stdout.contains("octo"))
            for output in [run.stdout, run.stderr, events.stdout, events.stderr] {
                #expect(!output.contains(Self.secret))
            }
        }
    }
}
