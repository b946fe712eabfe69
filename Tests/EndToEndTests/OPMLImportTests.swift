import Foundation
import LoopbackHTTP
import TestSupport
import Testing

/// `monitor init --from-opml`: another reader's export becomes a feeds file that validates and polls.
@Suite("init --from-opml: another reader's subscriptions as feeds", .timeLimit(.minutes(5)))
struct OPMLImportTests {
    /// An export as newsboat and miniflux write them: folders, two subscriptions of one title, one without a title.
    static func opml(_ base: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <opml version="2.0">
          <head><title>Subscriptions</title></head>
          <body>
            <outline text="Tech" title="Tech">
              <outline type="rss" text="Daring Fireball" title="Daring Fireball" xmlUrl="\(base)/df.xml" htmlUrl="https://daringfireball.net/"/>
              <outline type="rss" text="Blog" xmlUrl="\(base)/one.xml"/>
            </outline>
            <outline type="rss" text="Blog" xmlUrl="\(base)/two.xml"/>
            <outline type="rss" text="日本語" xmlUrl="http://news.example.org/feed?a=1&amp;b=${x}"/>
            <outline type="rss" text="NULL" xmlUrl="\(base)/null.xml"/>
            <outline text="Empty folder"/>
          </body>
        </opml>
        """
    }

    @Test("one `type: feed` per outline, names unique and valid, folders as comments; it validates and polls")
    func imports() async throws {
        let directory = try TemporaryDirectory()
        let rss =
            #"<rss version="2.0"><channel><title>One</title><item><guid>g1</guid><title>Hello</title><pubDate>Mon, 30 Nov 2026 10:00:00 GMT</pubDate></item></channel></rss>"#
        try await withTestHTTPServer({ _ in
            TestResponse(headers: [("Content-Type", "application/rss+xml")], body: Array(rss.utf8))
        }) { server in
            try directory.write("subs.opml", Self.opml(server.baseURL))
            let result = try await MonitorProcess.run(["init", "--from-opml", "subs.opml"], in: directory.url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout
                    == "wrote feeds.yaml with 5 feeds from subs.opml: check it with `monitor validate --online`, then `monitor run`\n"
            )
            #expect(
                try directory.read("feeds.yaml") == """
                    # feeds.yaml: the feeds `monitor run` watches, imported from subs.opml.
                    # Check it with `monitor validate --online`; `monitor sources` lists every option with its default.

                    settings:
                      concurrency: 4      # HTTP requests in flight across all feeds
                      interval: 15m       # how often a feed is polled, unless it says otherwise

                    feeds:
                      # Tech
                      - name: daring-fireball    # Daring Fireball
                        type: feed
                        url: "\(server.baseURL)/df.xml"
                      - name: blog    # Blog
                        type: feed
                        url: "\(server.baseURL)/one.xml"
                      - name: blog-2    # Blog
                        type: feed
                        url: "\(server.baseURL)/two.xml"
                      - name: news.example.org    # 日本語
                        type: feed
                        url: "http://news.example.org/feed?a=1&b=$${x}"
                      - name: "null"    # NULL
                        type: feed
                        url: "\(server.baseURL)/null.xml"

                    """)
            let validate = try await MonitorProcess.run(["validate"], in: directory.url)
            #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
            // Polled as written (the fourth feed's host does not resolve: only the three served ones are run).
            try directory.write(
                "feeds.yaml",
                try directory.read("feeds.yaml").replacingOccurrences(
                    of: "http://news.example.org", with: "\(server.baseURL)"))
            let run = try await MonitorProcess.run(
                ["run", "--once", "--format", "json", "--state", "st"], in: directory.url)
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.count == 5)
            #expect(
                lines.allSatisfy {
                    $0.contains(#""type":"feed","status":"ok","error":null,"#) && $0.contains(#""new":1"#)
                })
        }
    }

    @Test(
        "a missing file, a file that is not OPML and an export without feeds are errors naming the file; nothing is written"
    )
    func errors() async throws {
        let directory = try TemporaryDirectory()
        let missing = try await MonitorProcess.run(["init", "--from-opml", "none.opml"], in: directory.url)
        #expect(missing.status == 1)
        #expect(missing.stderr == "none.opml: error: no such file\n")
        try directory.write("page.opml", "<html><body>hi</body></html>")
        let page = try await MonitorProcess.run(["init", "--from-opml", "page.opml"], in: directory.url)
        #expect(page.stderr == "page.opml: error: not an OPML file: its root element is <html>, not <opml>\n")
        try directory.write("empty.opml", "<opml version=\"2.0\"><body><outline text=\"x\"/></body></opml>")
        let empty = try await MonitorProcess.run(["init", "--from-opml", "empty.opml"], in: directory.url)
        #expect(empty.stderr == "empty.opml: error: the OPML file has no outline with an xmlUrl\n")
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("feeds.yaml").path))
    }
}
