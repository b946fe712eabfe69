import Foundation
import MonitorItems

@testable import MonitorCore

/// Notifications whose items carry what a hostile or careless server may put in a title.
package enum NotificationFixtures {
    /// 2026-11-22T04:00:00Z, when the fixture poll ended.
    package static let at = Date(timeIntervalSince1970: 1_795_320_000)

    /// The newest five items, each a different attack on a chat message.
    package static let hostile: [Item] = [
        Item(
            id: "e1", title: "@everyone look <!channel> <@123456> @here", date: at - 60, groups: ["PullRequestEvent"],
            url: "https://github.com/a/b/pull/1", details: [Detail("status", "open"), Detail("status", "closed")]),
        Item(
            id: "e2", title: "<https://evil.example|click> me & <b>", date: at - 120, groups: ["IssuesEvent"],
            url: "https://evil.example/?a=1&b=<2>|x"),
        Item(
            id: "e3", title: "\u{1b}[31mred\u{1b}[0m alert\r\nInjected: header", date: at - 180,
            groups: ["PushEvent", "Bots"], details: [Detail("note", "line1\nline2\u{7}")]),
        Item(
            id: "e4", title: "emoji 🌋🔥 \"quotes\" back\\slash \u{2028}sep", date: at - 240, groups: [],
            url: "https://example.com/é"),
        Item(
            id: "e5", title: "**bold** _it_ [x](https://evil.example) `code` ||spoiler||", date: at - 300,
            groups: ["ReleaseEvent"], url: "javascript:alert(1)"),
    ]

    /// 55 plain items, older than the hostile ones: `Release 1.0.N` for N from 6 to 60.
    package static let plain: [Item] = (6...60).map { number in
        Item(
            id: "e\(number)", title: "Release 1.0.\(number)", date: at - Double(60 * number), groups: ["ReleaseEvent"],
            url: "https://example.com/\(number)")
    }

    /// A `new` notification of 60 items, given oldest first (the model sorts them).
    package static let sixty = FeedNotification(
        id: "n-0001", notifier: "chat", feed: "rxswift", type: "github", event: .new, at: at, total: 60,
        items: (hostile + plain).reversed())

    /// A `failed` notification whose error holds escape sequences, a line break and a Slack mention.
    package static let failed = FeedNotification(
        id: "n-0002", notifier: "chat", feed: "rxswift", type: "github", event: .failed, at: at, total: 0, items: [],
        error: "HTTP 500 from api.github.com\n\u{1b}[2J<!here> @everyone")

    /// A `recovered` notification.
    package static let recovered = FeedNotification(
        id: "n-0003", notifier: "chat", feed: "rxswift", type: "github", event: .recovered, at: at, total: 0, items: [])

    /// A `stale` notification.
    package static let stale = FeedNotification(
        id: "n-0004", notifier: "chat", feed: "planet", type: "eonet", event: .stale, at: at, total: 0, items: [],
        error: "no successful poll since 2026-11-21T04:00:00Z")

    /// A `gap` notification: the events of 19 hours and a minute may be missing.
    package static let gap: FeedNotification = {
        let gap = PollGap(
            since: Date(timeIntervalSince1970: 1_717_243_200), until: Date(timeIntervalSince1970: 1_717_311_660))
        return FeedNotification(
            id: "n-0006", notifier: "chat", feed: "rxswift", type: "github", event: .gap, at: at, total: 0, items: [],
            error: gap.text, gap: gap)
    }()

    /// A `new` notification of one item.
    package static let one = FeedNotification(
        id: "n-0005", notifier: "chat", feed: "planet", type: "eonet", event: .new, at: at, total: 1,
        items: [Item(id: "EONET_1", title: "Wildfire", date: at - 60, groups: ["wildfires"])])

    /// The `new` notification of docs/notification-formats.md: seven GitHub events, three of them shown there.
    package static let documentedNew = FeedNotification(
        id: "0193a4f2-7c1e-7b3a-9f00-5a1d2c3b4e5f", notifier: "chat", feed: "rxswift", type: "github", event: .new,
        at: at, total: 7,
        items: [
            Item(
                id: "44012345678", title: "kzaher opened pull request #2650: Fix <Observable> & @here docs",
                date: at - 120, groups: ["PullRequestEvent"], url: "https://github.com/ReactiveX/RxSwift/pull/2650",
                details: [Detail("action", "opened"), Detail("actor", "kzaher")]),
            Item(
                id: "44012345611", title: "freak4pc pushed 2 commits to main", date: at - 300, groups: ["PushEvent"],
                url: "https://github.com/ReactiveX/RxSwift/compare/a1b2c3...d4e5f6",
                details: [Detail("actor", "freak4pc")]),
            Item(
                id: "44012345600", title: "someone starred the repository", date: at - 600, groups: ["WatchEvent"]),
        ]
            + (1...4).map { number in
                Item(
                    id: "4401234550\(number)", title: "release 6.9.\(number) published",
                    date: at - Double(600 + 60 * number),
                    groups: ["ReleaseEvent"], url: "https://github.com/ReactiveX/RxSwift/releases/tag/6.9.\(number)")
            })

    /// The `failed` notification of docs/notification-formats.md.
    package static let documentedFailed = FeedNotification(
        id: "0193a4f2-0000-7000-8000-000000000002", notifier: "chat", feed: "planet", type: "eonet", event: .failed,
        at: at, total: 0, items: [], error: "HTTP 503 from eonet.gsfc.nasa.gov: Service Unavailable")

    /// The `digest` of docs/notification-formats.md: an hour of `chat`'s notifications, the documented `new` and
    /// `failed` among them, two feeds.
    package static let documentedDigest = FeedNotification.digest(
        of: [
            FeedNotification(
                id: "0193a4f2-0000-7000-8000-000000000010", notifier: "chat", feed: "rxswift", type: "github",
                event: .new, at: at - 1800, total: 2,
                items: [
                    Item(
                        id: "44012345400", title: "release 6.8.0 published", date: at - 1900,
                        groups: ["ReleaseEvent"], url: "https://github.com/ReactiveX/RxSwift/releases/tag/6.8.0"),
                    Item(id: "44012345399", title: "someone forked the repository", date: at - 2000, groups: []),
                ]),
            documentedFailed, documentedNew,
        ], notifier: "chat", at: at + 1800)

    /// A digest of `feeds` feeds, each with one `new` notification of 60 items and one `failed`.
    package static func digest(feeds: Int) -> FeedNotification {
        .digest(
            of: (1...feeds).flatMap { number in
                let feed = "feed-\(number)"
                var new = sixty
                new.id = "n-\(number)-new"
                new.feed = feed
                var failed = failed
                failed.id = "n-\(number)-failed"
                failed.feed = feed
                return [new, failed]
            }, notifier: "chat", at: at + 3600)
    }
}
