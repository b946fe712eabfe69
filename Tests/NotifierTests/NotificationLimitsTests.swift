import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import MonitorCore
@testable import WebhookNotifier

@Suite("Notification formats: the targets' length limits, header values and mentions")
struct NotificationLimitsTests {
    static let at = NotificationFixtures.at

    /// A `new` notification of feed `big` with five items titled `title`, linked to https://example.com/1…5.
    static func five(_ title: String) -> FeedNotification {
        FeedNotification(
            id: "n-big", notifier: "chat", feed: "big", type: "github", event: .new, at: at, total: 5,
            items: (1...5).map { number in
                Item(
                    id: "e\(number)", title: title, date: at - Double(number), groups: [],
                    url: "https://example.com/\(number)")
            })
    }

    /// The text of a slack body or the content of a discord body.
    static func message(_ rendered: RenderedNotification) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(rendered.body)) as? [String: Any])
        return try #require((object["text"] ?? object["content"]) as? String)
    }

    @Test("discord: titles are cut at 200 characters and lines stop before 2,000, the rest counted in \"and 1 more\"")
    func discordLimit() throws {
        let rendered = NotificationFormat.discord.render(Self.five(String(repeating: "@", count: 300)))
        let title = String(repeating: "@\u{200B}", count: 199) + "…"
        let expected =
            "**big** (github): 5 new events"
            + (1...4).map { "\n- [\(title)](<https://example.com/\($0)>)" }.joined() + "\nand 1 more"
        let content = try Self.message(rendered)
        #expect(content == expected)
        #expect(content.utf16.count == 1_757)
    }

    @Test("slack: escaped titles count at their escaped length, lines stop before 3,000, \"and 3 more\"")
    func slackLimit() throws {
        let rendered = NotificationFormat.slack.render(Self.five(String(repeating: "&", count: 300)))
        let title = String(repeating: "&amp;", count: 199) + "…"
        let expected =
            "*big* (github): 5 new events"
            + (1...2).map { "\n• <https://example.com/\($0)|\(title)>" }.joined() + "\nand 3 more"
        let text = try Self.message(rendered)
        #expect(text == expected)
        #expect(text.utf16.count == 2_085)
    }

    @Test("ntfy: the body stays under 4,096 bytes (ntfy would make it an attachment), \"and 1 more\"")
    func ntfyLimit() {
        let rendered = NotificationFormat.ntfy.render(Self.five(String(repeating: "🌋", count: 300)))
        let title = String(repeating: "🌋", count: 199) + "…"
        let expected =
            (1...4).map { "- \(title)\n  https://example.com/\($0)" }.joined(separator: "\n") + "\nand 1 more"
        #expect(rendered.text == expected)
        #expect(rendered.body.count == 3_314)
    }

    @Test("a link longer than 1,000 bytes is left out; one of 1,000 is kept")
    func longLink() {
        func rendered(_ format: NotificationFormat, _ url: String) -> String {
            let notification = FeedNotification(
                id: "n", notifier: "chat", feed: "f", type: "t", event: .new, at: Self.at, total: 1,
                items: [Item(id: "1", title: "T", date: Self.at, groups: [], url: url)])
            return format.render(notification).text
        }
        let kept = "https://example.com/" + String(repeating: "a", count: 980)
        let dropped = kept + "a"
        #expect(rendered(.slack, kept) == #"{"text":"*f* (t): 1 new event\n• <"# + kept + #"|T>"}"#)
        #expect(rendered(.slack, dropped) == #"{"text":"*f* (t): 1 new event\n• T"}"#)
        #expect(rendered(.text, kept) == "f (t): 1 new event\n- T\n  \(kept)\n")
        #expect(rendered(.text, dropped) == "f (t): 1 new event\n- T\n")
    }

    @Test("a long error is cut at 500 characters")
    func longError() {
        let notification = FeedNotification(
            id: "n", notifier: "chat", feed: "big", type: "github", event: .failed, at: Self.at, total: 0, items: [],
            error: String(repeating: "x", count: 2_000))
        #expect(
            NotificationFormat.text.render(notification).text
                == "big (github): started failing: " + String(repeating: "x", count: 499) + "…\n")
    }

    @Test("a headline longer than slack's limit is cut to it with an ellipsis")
    func longHeadline() throws {
        let notification = FeedNotification(
            id: "n", notifier: "chat", feed: String(repeating: "&", count: 300), type: "github", event: .failed,
            at: Self.at, total: 0, items: [], error: String(repeating: "<", count: 600))
        let text = try Self.message(NotificationFormat.slack.render(notification))
        let whole =
            "*" + String(repeating: "&amp;", count: 199) + "…* (github): started failing: "
            + String(repeating: "&lt;", count: 499) + "…"
        #expect(text.utf16.count <= 3_000)
        #expect(text.utf16.count > 2_900)
        #expect(text.hasSuffix("…"))
        #expect(whole.hasPrefix(text.dropLast()))
    }

    @Test("ntfy: a title outside ASCII is an RFC 2047 encoded word; a line break cannot add a header")
    func ntfyHeaders() {
        func title(feed: String) -> String? {
            let notification = FeedNotification(
                id: "n", notifier: "phone", feed: feed, type: "eonet", event: .new, at: Self.at, total: 1,
                items: [Item(id: "1", title: "Wildfire", date: Self.at, groups: [])])
            return NotificationFormat.ntfy.render(notification).headers.first { $0.0 == "Title" }?.1
        }
        #expect(title(feed: "café-🌋") == "=?UTF-8?B?Y2Fmw6kt8J+MiyAoZW9uZXQpOiAxIG5ldyBldmVudA==?=")
        #expect(title(feed: "evil\r\nX-Injected: 1") == "evil X-Injected: 1 (eonet): 1 new event")
    }

    /// Titles that would ping, link or format in a chat, alone or once their control characters are dropped.
    static let mentions = [
        "@everyone", "@here", "@channel", "@EVERYONE", "<!channel>", "<!here|here>", "<!everyone>", "<@U024BE7LH>",
        "<@123456789012345678>", "<@!123>", "<@&987>", "<#C024BE7LH>", "<!subteam^S123>", "<https://evil|click>",
        "[click](https://evil)", "<t:0:R>", "<:emoji:123>", "@\u{1b}[0meveryone", "<\u{7}!channel>", "@\u{2028}here",
        "a@here", "@@everyone",
    ]

    @Test("slack: no title makes a mention, a link or any < or > (items without a link)", arguments: mentions)
    func slackMentions(_ title: String) throws {
        let notification = FeedNotification(
            id: "n", notifier: "chat", feed: "f", type: "t", event: .new, at: Self.at, total: 1,
            items: [Item(id: "1", title: title, date: Self.at, groups: [])])
        let text = try Self.message(NotificationFormat.slack.render(notification))
        let line = try #require(text.split(separator: "\n").last)
        #expect(!line.contains("<") && !line.contains(">"), "\(line)")
        for mention in ["@everyone", "@here", "@channel"] {
            #expect(!line.lowercased().contains(mention), "\(line)")
        }
        #expect(line.components(separatedBy: "@").dropFirst().allSatisfy { $0.hasPrefix("\u{200B}") })
    }

    @Test(
        "discord: every markup character of a title escaped, every @ followed by a zero-width space",
        arguments: mentions)
    func discordMentions(_ title: String) throws {
        let notification = FeedNotification(
            id: "n", notifier: "chat", feed: "f", type: "t", event: .new, at: Self.at, total: 1,
            items: [Item(id: "1", title: title, date: Self.at, groups: [])])
        let rendered = NotificationFormat.discord.render(notification)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(rendered.body)) as? [String: Any])
        #expect((object["allowed_mentions"] as? [String: [String]]) == ["parse": []])
        let content = try Self.message(rendered)
        let line = try #require(content.split(separator: "\n").last?.dropFirst(2))
        var previous: Character = " "
        for character in line {
            if "<>[]()|*_~`".contains(character) { #expect(previous == "\\", "\(line)") }
            previous = previous == "\\" && character == "\\" ? " " : character
        }
        #expect(line.components(separatedBy: "@").dropFirst().allSatisfy { $0.hasPrefix("\u{200B}") })
        for mention in ["@everyone", "@here"] { #expect(!line.lowercased().contains(mention), "\(line)") }
    }
}
