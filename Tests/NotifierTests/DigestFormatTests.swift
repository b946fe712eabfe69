import Foundation
import TestSupport
import Testing

@testable import MonitorCore
@testable import WebhookNotifier

@Suite("A digest in every format: whole bodies, a section per feed, within each target's limit")
struct DigestFormatTests {
    typealias Fixtures = NotificationFixtures

    /// The sections of the documented digest in ntfy's and text's plain text.
    static let sections = """
        rxswift (github): 9 new events
        - kzaher opened pull request #2650: Fix <Observable> & @here docs
          https://github.com/ReactiveX/RxSwift/pull/2650
        - freak4pc pushed 2 commits to main
          https://github.com/ReactiveX/RxSwift/compare/a1b2c3...d4e5f6
        - someone starred the repository
        - release 6.9.1 published
          https://github.com/ReactiveX/RxSwift/releases/tag/6.9.1
        - release 6.9.2 published
          https://github.com/ReactiveX/RxSwift/releases/tag/6.9.2
        and 4 more

        planet (eonet): started failing: HTTP 503 from eonet.gsfc.nasa.gov: Service Unavailable
        """

    @Test("json: the schema-1 keys, feed and type null, then each combined notification's own body, in order")
    func json() {
        let digest = Fixtures.documentedDigest
        let combined = (digest.notifications ?? []).map { String(decoding: $0.jsonBody(), as: UTF8.self) }
        #expect(combined.count == 3)
        let expected =
            #"{"schema":1,"id":"digest-0193a4f2-0000-7000-8000-000000000010-3","notifier":"chat","feed":null,"#
            + #""type":null,"event":"digest","at":"2026-11-22T04:30:00Z","total":3,"items":[],"error":null,"#
            + #""notifications":["# + combined.joined(separator: ",") + "]}"
        let rendered = NotificationFormat.json.render(digest)
        #expect(rendered.text == expected)
        #expect(rendered.contentType == "application/json")
    }

    @Test("json: a digest of a full outbox carries its newest 50 notifications, total counting all (#29 review)")
    func jsonCapped() {
        // 1,000 pending (a notifier's default max_pending), each `new` with 50 items: 500 feeds, a `new` and a `failed`.
        let digest = Fixtures.digest(feeds: 500)
        let combined = digest.notifications ?? []
        #expect(combined.count == 1_000)
        let newest = combined.suffix(50).map { String(decoding: $0.jsonBody(), as: UTF8.self) }
        #expect(combined.suffix(50).first?.id == "n-476-new")
        let expected =
            #"{"schema":1,"id":"digest-n-1-new-1000","notifier":"chat","feed":null,"type":null,"event":"digest","#
            + #""at":"2026-11-22T05:00:00Z","total":1000,"items":[],"error":null,"notifications":["#
            + newest.joined(separator: ",") + "]}"
        let rendered = NotificationFormat.json.render(digest)
        #expect(rendered.text == expected)
        // 185,331 bytes; all 1,000 bodies were 3,702,749.
        #expect(rendered.body.count == 185_331)
        // The other formats count every combined notification too.
        #expect(NotificationFormat.text.render(digest).text.hasPrefix("digest: 1000 notifications from 500 feeds\n"))
    }

    @Test("slack: a headline, then a section per feed in the order they came, its events in order, newest titles")
    func slack() {
        let expected = [
            #"{"text":"*digest*: 3 notifications from 2 feeds\n\n*rxswift* (github): 9 new events\n"#,
            #"• <https://github.com/ReactiveX/RxSwift/pull/2650|kzaher opened pull request #2650: "#,
            #"Fix &lt;Observable&gt; &amp; @\#u{200B}here docs>\n"#,
            #"• <https://github.com/ReactiveX/RxSwift/compare/a1b2c3...d4e5f6|freak4pc pushed 2 commits to main>\n"#,
            #"• someone starred the repository\n"#,
            #"• <https://github.com/ReactiveX/RxSwift/releases/tag/6.9.1|release 6.9.1 published>\n"#,
            #"• <https://github.com/ReactiveX/RxSwift/releases/tag/6.9.2|release 6.9.2 published>\n"#,
            #"and 4 more\n\n"#,
            #"*planet* (eonet): started failing: HTTP 503 from eonet.gsfc.nasa.gov: Service Unavailable"}"#,
        ].joined()
        #expect(NotificationFormat.slack.render(Fixtures.documentedDigest).text == expected)
    }

    @Test("discord: the same sections in Discord's markdown, mentions off")
    func discord() {
        let expected = [
            #"{"content":"**digest**: 3 notifications from 2 feeds\n\n**rxswift** (github): 9 new events\n"#,
            #"- [kzaher opened pull request #2650: Fix \\<Observable\\> & @\#u{200B}here docs]"#,
            #"(<https://github.com/ReactiveX/RxSwift/pull/2650>)\n"#,
            #"- [freak4pc pushed 2 commits to main](<https://github.com/ReactiveX/RxSwift/compare/a1b2c3...d4e5f6>)\n"#,
            #"- someone starred the repository\n"#,
            #"- [release 6.9.1 published](<https://github.com/ReactiveX/RxSwift/releases/tag/6.9.1>)\n"#,
            #"- [release 6.9.2 published](<https://github.com/ReactiveX/RxSwift/releases/tag/6.9.2>)\n"#,
            #"and 4 more\n\n"#,
            #"**planet** (eonet): started failing: HTTP 503 from eonet.gsfc.nasa.gov: Service Unavailable","#,
            #""allowed_mentions":{"parse":[]}}"#,
        ].joined()
        #expect(NotificationFormat.discord.render(Fixtures.documentedDigest).text == expected)
    }

    @Test("ntfy: the headline as Title, the newspaper tag, a section per feed in the body")
    func ntfy() {
        let rendered = NotificationFormat.ntfy.render(Fixtures.documentedDigest)
        #expect(
            rendered.text == Self.sections)
        #expect(
            rendered.headers.map { "\($0.0): \($0.1)" } == [
                "Title: digest: 3 notifications from 2 feeds", "Tags: newspaper",
            ])
        #expect(rendered.contentType == "text/plain; charset=utf-8")
    }

    @Test("text: the headline, then a section per feed, ending in a line break")
    func text() {
        #expect(
            NotificationFormat.text.render(Fixtures.documentedDigest).text
                == "digest: 3 notifications from 2 feeds\n\n" + Self.sections + "\n")
    }

    @Test("docs/notification-formats.md shows the digest's slack and text bodies byte for byte")
    func documented() throws {
        let blocks = try NotificationFormatsDocTests.blocks()
        let slack = NotificationFormat.slack.render(Fixtures.documentedDigest).text
            .replacingOccurrences(of: "\u{200B}", with: #"\u200b"#)
        #expect(blocks.contains(slack), "\(slack)")
        let text = String(NotificationFormat.text.render(Fixtures.documentedDigest).text.dropLast())
        #expect(blocks.contains(text), "\(text)")
    }

    @Test(
        "the chat formats stop at their limit between sections and say how many feeds and notifications were left out",
        arguments: [NotificationFormat.slack, .discord, .ntfy])
    func leftOut(format: NotificationFormat) throws {
        let rendered = format.render(Fixtures.digest(feeds: 40))
        let text: String
        let limit: Int
        switch format {
        case .slack:
            text =
                try #require(try JSONSerialization.jsonObject(with: Data(rendered.body)) as? [String: Any])["text"]
                as? String ?? ""
            limit = NotificationFormat.slack.maximumLength
        case .discord:
            text =
                try #require(try JSONSerialization.jsonObject(with: Data(rendered.body)) as? [String: Any])["content"]
                as? String ?? ""
            limit = NotificationFormat.discord.maximumLength
        default:
            text = rendered.text
            limit = NotificationFormat.ntfy.maximumLength
        }
        let count = format == .ntfy ? text.utf8.count : text.utf16.count
        #expect(count <= limit)
        // Whole sections only, then how many feeds (of two notifications each) did not fit.
        let sections = text.components(separatedBy: "\n\n")
        let shown = sections.filter { $0.contains("(github): 60 new events, started failing") }.count
        #expect(shown == [NotificationFormat.slack: 7, .discord: 4, .ntfy: 9][format])
        #expect(sections.last == "and \(40 - shown) more feeds left out (\(2 * (40 - shown)) notifications)")
    }
}
