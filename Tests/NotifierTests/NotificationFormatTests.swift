import Foundation
import TestSupport
import Testing

@testable import MonitorCore
@testable import WebhookNotifier

@Suite("Notification formats: whole bodies for hostile titles, in every format")
struct NotificationFormatTests {
    typealias Fixtures = NotificationFixtures

    static func body(_ format: NotificationFormat, _ notification: FeedNotification) -> String {
        format.render(notification).text
    }

    /// The json of plain item `eN`, as the body writes it.
    static func plainItemJSON(_ number: Int) -> String {
        let minute = String(60 - number).count == 1 ? "0\(60 - number)" : "\(60 - number)"
        return #"{"id":"e\#(number)","title":"Release 1.0.\#(number)","date":"2026-11-22T03:\#(minute):00Z","#
            + #""url":"https://example.com/\#(number)","groups":["ReleaseEvent"],"details":{}}"#
    }

    @Test("json: schema 1 in its key order, the newest 50 of 60 items, control characters gone, details once each")
    func jsonSixty() {
        let hostile = [
            #"{"schema":1,"id":"n-0001","notifier":"chat","feed":"rxswift","type":"github","event":"new","#,
            #""at":"2026-11-22T04:00:00Z","total":60,"items":["#,
            #"{"id":"e1","title":"@everyone look <!channel> <@123456> @here","date":"2026-11-22T03:59:00Z","#,
            #""url":"https://github.com/a/b/pull/1","groups":["PullRequestEvent"],"details":{"status":"open"}},"#,
            #"{"id":"e2","title":"<https://evil.example|click> me & <b>","date":"2026-11-22T03:58:00Z","#,
            #""url":"https://evil.example/?a=1&b=<2>|x","groups":["IssuesEvent"],"details":{}},"#,
            #"{"id":"e3","title":"red alert  Injected: header","date":"2026-11-22T03:57:00Z","url":null,"#,
            #""groups":["PushEvent","Bots"],"details":{"note":"line1 line2"}},"#,
            #"{"id":"e4","title":"emoji 🌋🔥 \"quotes\" back\\slash sep","date":"2026-11-22T03:56:00Z","#,
            #""url":"https://example.com/é","groups":[],"details":{}},"#,
            #"{"id":"e5","title":"**bold** _it_ [x](https://evil.example) `code` ||spoiler||","#,
            #""date":"2026-11-22T03:55:00Z","url":"javascript:alert(1)","groups":["ReleaseEvent"],"details":{}},"#,
        ].joined()
        let expected = hostile + (6...50).map(Self.plainItemJSON).joined(separator: ",") + #"],"error":null}"#
        let rendered = NotificationFormat.json.render(Fixtures.sixty)
        #expect(rendered.text == expected)
        #expect(rendered.body == Fixtures.sixty.jsonBody())
        #expect(rendered.contentType == "application/json")
        #expect(rendered.headers.isEmpty)
    }

    @Test("slack: entities for & < >, no <!channel>, no <url|text> from a title, a zero-width space after each @")
    func slackSixty() {
        let expected = [
            #"{"text":"*rxswift* (github): 60 new events\n"#,
            #"• <https://github.com/a/b/pull/1|"#,
            #"@\#u{200B}everyone look &lt;!channel&gt; &lt;@\#u{200B}123456&gt; @\#u{200B}here>\n"#,
            #"• <https://evil.example/?a=1&amp;b=%3C2%3E%7Cx|&lt;https://evil.example|click&gt; me &amp; &lt;b&gt;>\n"#,
            #"• red alert Injected: header\n"#,
            #"• <https://example.com/é|emoji 🌋🔥 \"quotes\" back\\slash sep>\n"#,
            #"• **bold** _it_ [x](https://evil.example) `code` ||spoiler||\n"#,
            #"and 55 more"}"#,
        ].joined()
        let rendered = NotificationFormat.slack.render(Fixtures.sixty)
        #expect(rendered.text == expected)
        #expect(rendered.contentType == "application/json")
        #expect(rendered.headers.isEmpty)
    }

    @Test("discord: markdown escaped, mentions broken by a zero-width space, allowed_mentions empty")
    func discordSixty() {
        let expected = [
            #"{"content":"**rxswift** (github): 60 new events\n"#,
            #"- [@\#u{200B}everyone look \\<!channel\\> \\<@\#u{200B}123456\\> @\#u{200B}here]"#,
            #"(<https://github.com/a/b/pull/1>)\n"#,
            #"- [\\<https://evil.example\\|click\\> me & \\<b\\>](<https://evil.example/?a=1&b=%3C2%3E|x>)\n"#,
            #"- red alert Injected: header\n"#,
            #"- [emoji 🌋🔥 \"quotes\" back\\\\slash sep](<https://example.com/é>)\n"#,
            #"- \\*\\*bold\\*\\* \\_it\\_ \\[x\\]\\(https://evil.example\\) \\`code\\` \\|\\|spoiler\\|\\|\n"#,
            #"and 55 more","allowed_mentions":{"parse":[]}}"#,
        ].joined()
        let rendered = NotificationFormat.discord.render(Fixtures.sixty)
        #expect(rendered.text == expected)
        #expect(rendered.contentType == "application/json")
        #expect(rendered.headers.isEmpty)
    }

    @Test("ntfy: the headline in Title, the event in Tags, the titles and links in a plain body")
    func ntfySixty() {
        let rendered = NotificationFormat.ntfy.render(Fixtures.sixty)
        #expect(
            rendered.text == """
                - @everyone look <!channel> <@123456> @here
                  https://github.com/a/b/pull/1
                - <https://evil.example|click> me & <b>
                  https://evil.example/?a=1&b=<2>|x
                - red alert Injected: header
                - emoji 🌋🔥 "quotes" back\\slash sep
                  https://example.com/é
                - **bold** _it_ [x](https://evil.example) `code` ||spoiler||
                  javascript:alert(1)
                and 55 more
                """)
        #expect(rendered.contentType == "text/plain; charset=utf-8")
        #expect(rendered.headers.map { "\($0.0): \($0.1)" } == ["Title: rxswift (github): 60 new events", "Tags: new"])
    }

    @Test("text: the headline, the newest five titles with their links, and how many more")
    func textSixty() {
        let rendered = NotificationFormat.text.render(Fixtures.sixty)
        #expect(
            rendered.text == """
                rxswift (github): 60 new events
                - @everyone look <!channel> <@123456> @here
                  https://github.com/a/b/pull/1
                - <https://evil.example|click> me & <b>
                  https://evil.example/?a=1&b=<2>|x
                - red alert Injected: header
                - emoji 🌋🔥 "quotes" back\\slash sep
                  https://example.com/é
                - **bold** _it_ [x](https://evil.example) `code` ||spoiler||
                  javascript:alert(1)
                and 55 more

                """)
        #expect(rendered.contentType == "text/plain; charset=utf-8")
        #expect(rendered.headers.isEmpty)
    }

    @Test("a feed that starts failing: its error without control characters, and no ping in it")
    func failed() {
        let notification = Fixtures.failed
        #expect(
            Self.body(.json, notification)
                == #"{"schema":1,"id":"n-0002","notifier":"chat","feed":"rxswift","type":"github","event":"failed","#
                + #""at":"2026-11-22T04:00:00Z","total":0,"items":[],"#
                + #""error":"HTTP 500 from api.github.com <!here> @everyone"}"#)
        #expect(
            Self.body(.slack, notification)
                == #"{"text":"*rxswift* (github): started failing: HTTP 500 from api.github.com &lt;!here&gt; "#
                + #"@\#u{200B}everyone"}"#)
        #expect(
            Self.body(.discord, notification)
                == #"{"content":"**rxswift** (github): started failing: HTTP 500 from api.github.com \\<!here\\> "#
                + #"@\#u{200B}everyone","allowed_mentions":{"parse":[]}}"#)
        #expect(Self.body(.ntfy, notification) == "HTTP 500 from api.github.com <!here> @everyone")
        #expect(
            NotificationFormat.ntfy.render(notification).headers.map { "\($0.0): \($0.1)" } == [
                "Title: rxswift (github): started failing", "Tags: warning",
            ])
        #expect(
            Self.body(.text, notification)
                == "rxswift (github): started failing: HTTP 500 from api.github.com <!here> @everyone\n")
    }

    @Test("a feed that recovers")
    func recovered() {
        let notification = Fixtures.recovered
        #expect(
            Self.body(.json, notification)
                == #"{"schema":1,"id":"n-0003","notifier":"chat","feed":"rxswift","type":"github","#
                + #""event":"recovered","at":"2026-11-22T04:00:00Z","total":0,"items":[],"error":null}"#)
        #expect(Self.body(.slack, notification) == #"{"text":"*rxswift* (github): recovered"}"#)
        #expect(
            Self.body(.discord, notification)
                == #"{"content":"**rxswift** (github): recovered","allowed_mentions":{"parse":[]}}"#)
        #expect(Self.body(.ntfy, notification) == "rxswift (github): recovered")
        #expect(
            NotificationFormat.ntfy.render(notification).headers.map { "\($0.0): \($0.1)" } == [
                "Title: rxswift (github): recovered", "Tags: white_check_mark",
            ])
        #expect(Self.body(.text, notification) == "rxswift (github): recovered\n")
    }

    @Test("a feed that went stale: the error says since when")
    func stale() {
        let notification = Fixtures.stale
        #expect(
            Self.body(.json, notification)
                == #"{"schema":1,"id":"n-0004","notifier":"chat","feed":"planet","type":"eonet","event":"stale","#
                + #""at":"2026-11-22T04:00:00Z","total":0,"items":[],"#
                + #""error":"no successful poll since 2026-11-21T04:00:00Z"}"#)
        #expect(
            Self.body(.slack, notification)
                == #"{"text":"*planet* (eonet): went stale: no successful poll since 2026-11-21T04:00:00Z"}"#)
        #expect(
            Self.body(.discord, notification)
                == #"{"content":"**planet** (eonet): went stale: no successful poll since 2026-11-21T04:00:00Z","#
                + #""allowed_mentions":{"parse":[]}}"#)
        #expect(Self.body(.ntfy, notification) == "no successful poll since 2026-11-21T04:00:00Z")
        #expect(
            NotificationFormat.ntfy.render(notification).headers.map { "\($0.0): \($0.1)" } == [
                "Title: planet (eonet): went stale", "Tags: hourglass",
            ])
        #expect(
            Self.body(.text, notification)
                == "planet (eonet): went stale: no successful poll since 2026-11-21T04:00:00Z\n"
        )
    }

    @Test("a gap: every format says that events may be missing, and when; the json body has the span as dates")
    func gap() {
        let notification = Fixtures.gap
        let span = "2024-06-01T12:00:00Z to 2024-06-02T07:01:00Z (19h1m)"
        let words = "older events may be missing: \(span)"
        #expect(
            Self.body(.json, notification)
                == #"{"schema":1,"id":"n-0006","notifier":"chat","feed":"rxswift","type":"github","event":"gap","#
                + #""at":"2026-11-22T04:00:00Z","total":0,"items":[],"error":"\#(words)","#
                + #""gap":{"since":"2024-06-01T12:00:00Z","until":"2024-06-02T07:01:00Z"}}"#)
        #expect(Self.body(.slack, notification) == #"{"text":"*rxswift* (github): \#(words)"}"#)
        #expect(
            Self.body(.discord, notification)
                == #"{"content":"**rxswift** (github): older events may be missing: 2024-06-01T12:00:00Z to "#
                + #"2024-06-02T07:01:00Z \\(19h1m\\)","allowed_mentions":{"parse":[]}}"#)
        #expect(Self.body(.ntfy, notification) == span)
        #expect(
            NotificationFormat.ntfy.render(notification).headers.map { "\($0.0): \($0.1)" } == [
                "Title: rxswift (github): older events may be missing", "Tags: grey_question",
            ])
        #expect(Self.body(.text, notification) == "rxswift (github): \(words)\n")
    }

    @Test("one new item: \"1 new event\", no link when it has none, no \"and 0 more\"")
    func one() {
        let notification = Fixtures.one
        #expect(
            Self.body(.json, notification)
                == #"{"schema":1,"id":"n-0005","notifier":"chat","feed":"planet","type":"eonet","event":"new","#
                + #""at":"2026-11-22T04:00:00Z","total":1,"items":[{"id":"EONET_1","title":"Wildfire","#
                + #""date":"2026-11-22T03:59:00Z","url":null,"groups":["wildfires"],"details":{}}],"error":null}"#)
        #expect(Self.body(.slack, notification) == #"{"text":"*planet* (eonet): 1 new event\n• Wildfire"}"#)
        #expect(
            Self.body(.discord, notification)
                == #"{"content":"**planet** (eonet): 1 new event\n- Wildfire","allowed_mentions":{"parse":[]}}"#)
        #expect(Self.body(.ntfy, notification) == "- Wildfire")
        #expect(Self.body(.text, notification) == "planet (eonet): 1 new event\n- Wildfire\n")
    }
}
