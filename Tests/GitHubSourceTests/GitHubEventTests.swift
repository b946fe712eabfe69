import Foundation
import MonitorItems
import MonitorText
import TestSupport
import Testing

@testable import GitHubSource
@testable import MonitorCore
@testable import MonitorJSON

/// One event and the item it must make.
struct EventCase: Sendable, CustomTestStringConvertible {
    var type: String
    var actor = "x"
    var repo = "a/b"
    var payload: JSONValue = .object([])
    var title: String
    var url: String?
    /// The details after `actor` and `repo`.
    var details: [Detail] = []

    var testDescription: String { "\(type): \(title)" }

    /// The item the plugin makes of the event, with web pages on github.com.
    func item() throws -> Item {
        let event = GitHubFixtures.Event(
            id: "42", type: type, actor: actor, repo: repo, date: ManualClock.start, payload: payload)
        let decoded = try GitHubEvent.page(Array(GitHubFixtures.eventsJSON([event]).utf8))
        return try #require(decoded.first??.item(web: "https://github.com"))
    }
}

private let before = "9b2afb3a8e03fb30cc09e5efb64823bde802cf59"
private let head = "eb1a60c03544dcea290f2d57bb66ae188ce25778"

/// Every event type the plugin words, with full and slim payloads.
private let cases: [EventCase] = [
    EventCase(
        type: "PushEvent", actor: "kzaher", repo: "ReactiveX/RxSwift",
        payload: .object([("ref", "refs/heads/main"), ("head", .string(head)), ("before", .string(before))]),
        title: "kzaher pushed to main", url: "https://github.com/ReactiveX/RxSwift/compare/\(before)...\(head)",
        details: [Detail("ref", "main")]),
    EventCase(
        type: "PushEvent", actor: "kzaher",
        payload: .object([
            ("ref", "refs/heads/feature/x"), ("head", .string(head)),
            ("before", "0000000000000000000000000000000000000000"),
        ]),
        title: "kzaher pushed to feature/x", url: "https://github.com/a/b/commits/feature/x",
        details: [Detail("ref", "feature/x")]),
    EventCase(type: "PushEvent", actor: "kzaher", title: "kzaher pushed to a/b", url: "https://github.com/a/b"),
    EventCase(
        type: "WatchEvent", actor: "jshier", repo: "Alamofire/Alamofire", payload: .object([("action", "started")]),
        title: "jshier starred Alamofire/Alamofire", url: "https://github.com/Alamofire/Alamofire"),
    EventCase(
        type: "ForkEvent",
        payload: .object([
            ("forkee", .object([("full_name", "x/b"), ("html_url", "https://github.com/x/b")]))
        ]),
        title: "x forked a/b to x/b", url: "https://github.com/x/b"),
    EventCase(type: "ForkEvent", title: "x forked a/b", url: "https://github.com/a/b"),
    EventCase(
        type: "PullRequestEvent", actor: "0xTim", repo: "vapor/vapor",
        payload: .object([
            ("action", "opened"), ("number", 3120),
            (
                "pull_request",
                .object([
                    ("number", 3120), ("title", "Swift 6 mode"),
                    ("html_url", "https://github.com/vapor/vapor/pull/3120"),
                ])
            ),
        ]),
        title: "0xTim opened pull request #3120: Swift 6 mode", url: "https://github.com/vapor/vapor/pull/3120",
        details: [Detail("number", "3120"), Detail("action", "opened")]),
    EventCase(
        type: "PullRequestEvent",
        payload: .object([
            ("action", "closed"), ("number", 7), ("pull_request", .object([("merged", true), ("title", "Fix")])),
        ]),
        title: "x merged pull request #7: Fix", url: "https://github.com/a/b/pull/7",
        details: [Detail("number", "7"), Detail("action", "closed")]),
    EventCase(
        type: "PullRequestEvent", payload: .object([("action", "closed"), ("number", 8)]),
        title: "x closed pull request #8 in a/b", url: "https://github.com/a/b/pull/8",
        details: [Detail("number", "8"), Detail("action", "closed")]),
    EventCase(
        type: "PullRequestReviewEvent",
        payload: .object([
            ("action", "created"), ("review", .object([("html_url", "https://github.com/a/b/pull/3#review-1")])),
            ("pull_request", .object([("number", 3)])),
        ]),
        title: "x reviewed pull request #3 in a/b", url: "https://github.com/a/b/pull/3#review-1",
        details: [Detail("number", "3"), Detail("action", "created")]),
    EventCase(
        type: "PullRequestReviewCommentEvent",
        payload: .object([
            ("action", "created"), ("comment", .object([("html_url", "https://github.com/a/b/pull/3#r9")])),
            ("pull_request", .object([("number", 3), ("title", "Speed up")])),
        ]),
        title: "x commented on pull request #3: Speed up", url: "https://github.com/a/b/pull/3#r9",
        details: [Detail("number", "3"), Detail("action", "created")]),
    EventCase(
        type: "IssuesEvent",
        payload: .object([
            ("action", "opened"),
            (
                "issue",
                .object([("number", 5), ("title", "Crash"), ("html_url", "https://github.com/a/b/issues/5")])
            ),
        ]),
        title: "x opened issue #5: Crash", url: "https://github.com/a/b/issues/5",
        details: [Detail("number", "5"), Detail("action", "opened")]),
    // Without a number: "an issue", never "a issue".
    EventCase(
        type: "IssuesEvent", payload: .object([("action", "closed")]), title: "x closed an issue in a/b",
        url: "https://github.com/a/b", details: [Detail("action", "closed")]),
    EventCase(
        type: "IssuesEvent", payload: .object([("action", "opened"), ("issue", .object([("title", "Crash")]))]),
        title: "x opened an issue: Crash", url: "https://github.com/a/b", details: [Detail("action", "opened")]),
    EventCase(
        type: "IssueCommentEvent",
        payload: .object([
            ("action", "created"), ("issue", .object([("number", 12), ("title", "Leak")])),
            ("comment", .object([("html_url", "https://github.com/a/b/issues/12#issuecomment-1")])),
        ]),
        title: "x commented on issue #12: Leak", url: "https://github.com/a/b/issues/12#issuecomment-1",
        details: [Detail("number", "12"), Detail("action", "created")]),
    EventCase(
        type: "IssueCommentEvent",
        payload: .object([
            ("issue", .object([("number", 13), ("title", "Docs"), ("pull_request", .object([("url", "…")]))]))
        ]),
        title: "x commented on pull request #13: Docs", url: "https://github.com/a/b/issues/13",
        details: [Detail("number", "13")]),
    EventCase(
        type: "CreateEvent", payload: .object([("ref", "feature"), ("ref_type", "branch")]),
        title: "x created branch feature in a/b", url: "https://github.com/a/b"),
    EventCase(
        type: "CreateEvent", payload: .object([("ref", .null), ("ref_type", "repository")]),
        title: "x created repository a/b", url: "https://github.com/a/b"),
    EventCase(
        type: "DeleteEvent", payload: .object([("ref", "v1"), ("ref_type", "tag")]),
        title: "x deleted tag v1 in a/b", url: "https://github.com/a/b"),
    EventCase(
        type: "ReleaseEvent",
        payload: .object([
            ("action", "published"),
            (
                "release",
                .object([("tag_name", "v1.2"), ("html_url", "https://github.com/a/b/releases/tag/v1.2")])
            ),
        ]),
        title: "x published release v1.2 of a/b", url: "https://github.com/a/b/releases/tag/v1.2"),
    EventCase(
        type: "ReleaseEvent", payload: .object([("release", .object([("tag_name", "v 2")]))]),
        title: "x published release v 2 of a/b", url: "https://github.com/a/b/releases/tag/v%202"),
    EventCase(
        type: "MemberEvent", payload: .object([("action", "added"), ("member", .object([("login", "y")]))]),
        title: "x added y to a/b", url: "https://github.com/a/b"),
    EventCase(type: "PublicEvent", title: "x made a/b public", url: "https://github.com/a/b"),
    EventCase(
        type: "GollumEvent",
        payload: .object([
            ("pages", .array([.object([("page_name", "Home"), ("html_url", "https://github.com/a/b/wiki/Home")])]))
        ]),
        title: "x edited the wiki of a/b", url: "https://github.com/a/b/wiki/Home"),
    EventCase(type: "GollumEvent", title: "x edited the wiki of a/b", url: "https://github.com/a/b/wiki"),
    EventCase(
        type: "CommitCommentEvent",
        payload: .object([("comment", .object([("html_url", "https://github.com/a/b/commit/abc#commitcomment-1")]))]),
        title: "x commented on a commit in a/b", url: "https://github.com/a/b/commit/abc#commitcomment-1"),
    EventCase(
        type: "DiscussionEvent", payload: .object([("action", "created")]),
        title: "x started a discussion in a/b", url: "https://github.com/a/b"),
    EventCase(
        type: "DiscussionEvent",
        payload: .object([
            ("action", "created"),
            (
                "discussion",
                .object([
                    ("number", 4), ("title", "Roadmap"), ("html_url", "https://github.com/a/b/discussions/4"),
                ])
            ),
        ]),
        title: "x started a discussion in a/b: Roadmap", url: "https://github.com/a/b/discussions/4"),
    EventCase(
        type: "SomethingNewEvent", payload: .object([("whatever", .array([1, 2, 3]))]),
        title: "x: SomethingNewEvent in a/b", url: "https://github.com/a/b"),
    // Network text cannot carry control characters or odd links into an item.
    EventCase(
        type: "IssuesEvent", actor: "e\u{1B}[2Jvil",
        payload: .object([
            ("action", "opened"),
            (
                "issue",
                .object([
                    ("number", 6), ("title", "Title\u{1B}]0;owned\u{07} with\nbreak\u{202E}"),
                    ("html_url", "javascript:alert(1)"),
                ])
            ),
        ]),
        title: "evil opened issue #6: Title with break", url: "https://github.com/a/b/issues/6",
        details: [Detail("number", "6"), Detail("action", "opened")]),
    // A payload field of an unexpected shape is ignored, not fatal.
    EventCase(
        type: "PullRequestEvent", payload: .object([("action", 3), ("number", "seven"), ("pull_request", "odd")]),
        title: "x updated a pull request in a/b", url: "https://github.com/a/b"),
]

@Suite("Events as items: a readable sentence, the web page of what happened, details")
struct GitHubEventTests {
    @Test("each event type makes its sentence and link", arguments: cases)
    func item(_ example: EventCase) throws {
        let item = try example.item()
        #expect(item.title == example.title)
        #expect(item.url == example.url)
        #expect(item.id == "42")
        #expect(item.groups == [example.type])
        #expect(item.date == ManualClock.start)
        let actor = TerminalText.sanitized(example.actor)
        #expect(item.details == [Detail("actor", actor), Detail("repo", example.repo)] + example.details)
    }

    @Test(
        "the web pages' root follows from the API root",
        arguments: [
            ("https://api.github.com", "https://github.com"), ("https://api.github.com/", "https://github.com"),
            ("https://ghe.example.com/api/v3", "https://ghe.example.com"),
            ("https://ghe.example.com/api/v3/", "https://ghe.example.com"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ])
    func webRoot(api: String, web: String) {
        #expect(GitHubAPI.webRoot(api: api) == web)
    }

    @Test(
        "Link headers are read as RFC 8288 says",
        arguments: [
            (
                #"<https://api.github.com/repositories/1/events?page=2>; rel="next", <https://api.github.com/repositories/1/events?page=10>; rel="last""#,
                "https://api.github.com/repositories/1/events?page=2"
            ),
            (
                #"<https://x.test/e?page=1>; rel="prev first", <https://x.test/e?a=1,2&page=3>; REL=next"#,
                "https://x.test/e?a=1,2&page=3"
            ),
            (#"</repositories/1/events?page=4>; rel="next""#, "https://api.github.com/repositories/1/events?page=4"),
            (#"<https://x.test/e?page=9>; rel="last""#, nil),
            ("garbage", nil),
        ])
    func link(header: String, next: String?) {
        #expect(LinkHeader.url("next", in: header, relativeTo: "https://api.github.com/repos/a/b/events") == next)
    }
}
