import Foundation
import TestSupport
import Testing

@testable import GitHubSource
@testable import MonitorCore

/// The events page read from its bytes gives the very events that `JSONDecoder` with the `Decodable`
/// conformances gave (`decodablePage`), on the real captures beside the package and on pages made to be odd.
@Suite("Reading GitHub events pages from the response's bytes")
struct GitHubDecodeTests {
    /// A capture and what Python's `json.load` counts in it per event type (a single event counts as a page of one).
    struct Capture: Sendable, CustomTestStringConvertible {
        var file: String
        var types: [String: Int]
        var testDescription: String { file }
    }

    static let captures: [Capture] = [
        Capture(
            file: "realdata/github-network-events-github3py-2018-01-p1.json",
            types: [
                "CommitCommentEvent": 1, "CreateEvent": 7, "DeleteEvent": 5, "ForkEvent": 6, "IssueCommentEvent": 16,
                "IssuesEvent": 6, "MemberEvent": 2, "PullRequestEvent": 22, "PullRequestReviewCommentEvent": 1,
                "PushEvent": 21, "ReleaseEvent": 3, "WatchEvent": 10,
            ]),
        Capture(
            file: "realdata/github-public-events-2017-12.json",
            types: [
                "CreateEvent": 2, "DeleteEvent": 1, "GollumEvent": 1, "PullRequestEvent": 3,
                "PullRequestReviewCommentEvent": 1, "PushEvent": 16, "WatchEvent": 1,
            ]),
        Capture(
            file: "realdata/github-public-events-2020-04.json",
            types: [
                "CommitCommentEvent": 1, "CreateEvent": 6, "DeleteEvent": 2, "MemberEvent": 1, "PullRequestEvent": 1,
                "PushEvent": 16, "WatchEvent": 3,
            ]),
        Capture(
            file: "realdata/github-public-events-2025-06.json",
            types: ["CreateEvent": 2, "DeleteEvent": 1, "IssueCommentEvent": 1, "PushEvent": 6]),
        Capture(
            file: "realdata/github-repo-events-github3py-2018-02.json",
            types: [
                "ForkEvent": 5, "IssueCommentEvent": 45, "IssuesEvent": 10, "PullRequestEvent": 10,
                "PullRequestReviewCommentEvent": 9, "PushEvent": 13, "WatchEvent": 8,
            ]),
        Capture(
            file: "realdata/github-repo-events-jacquev6-PyGithub-2012-05.json",
            types: [
                "CommitCommentEvent": 4, "CreateEvent": 2, "DeleteEvent": 1, "DownloadEvent": 5, "ForkEvent": 1,
                "IssueCommentEvent": 1, "IssuesEvent": 5, "MemberEvent": 2, "PushEvent": 7, "WatchEvent": 2,
            ]),
        Capture(
            file: "realdata/github-repo-events-jacquev6-PyGithub-2013-09.json",
            types: [
                "DeleteEvent": 3, "ForkEvent": 3, "IssueCommentEvent": 11, "IssuesEvent": 2, "PullRequestEvent": 1,
                "PullRequestReviewCommentEvent": 1, "PushEvent": 6, "WatchEvent": 3,
            ]),
        Capture(
            file: "realdata/github-repo-events-rails_admin-2013-06.json",
            types: [
                "ForkEvent": 4, "IssueCommentEvent": 13, "IssuesEvent": 3, "PullRequestEvent": 3, "PushEvent": 2,
                "WatchEvent": 5,
            ]),
        Capture(
            file: "api-samples/github-events-public-2020-04-25-excerpt.json",
            types: [
                "CommitCommentEvent": 1, "CreateEvent": 1, "DeleteEvent": 1, "PullRequestEvent": 1, "PushEvent": 1,
                "WatchEvent": 1,
            ]),
        Capture(
            file: "api-samples/github-pull-request-event-post-2025-10-octocrab-730b70f.json",
            types: ["PullRequestEvent": 1]),
        Capture(file: "api-samples/github-push-event-post-2025-10-octocrab.json", types: ["PushEvent": 1]),
        Capture(file: "api-samples/github-repo-events-octocat-Hello-World-2025-06.json", types: ["ForkEvent": 5]),
    ]

    /// The capture as a page: a single event is wrapped in a list.
    static func page(_ file: String) throws -> [UInt8] {
        let bytes = try SharedSamples.bytes(file)
        guard bytes.first(where: { $0 > 0x20 }) == UInt8(ascii: "{") else { return bytes }
        return Array("[".utf8) + bytes + Array("]".utf8)
    }

    @Test(
        "every captured page of events reads as JSONDecoder read it, with Python's counts per type",
        .enabled(
            if: SharedSamples.folder != nil,
            "../shared/realdata or ../shared/api-samples is absent: the real captures are not checked"),
        arguments: captures)
    func capture(_ capture: Capture) throws {
        let page = try Self.page(capture.file)
        let events = try GitHubEvent.page(page)
        #expect(events == (try GitHubEvent.decodablePage(page)))
        var counts: [String: Int] = [:]
        for event in events { counts[event?.type ?? "unreadable", default: 0] += 1 }
        #expect(counts == capture.types)
        let items = events.compactMap { $0?.item(web: "https://github.com") }
        #expect(items.count == capture.types.values.reduce(0, +))
    }

    @Test(
        "the captures listed are all the event captures beside the package", .enabled(if: SharedSamples.folder != nil))
    func listed() {
        #expect(
            (SharedSamples.captures { name in
                name.hasPrefix("github-") && name.hasSuffix(".json")
                    && (name.contains("events") || name.contains("-event-"))
            }) == Self.captures.map(\.file).sorted())
    }

    /// Pages made to be odd: wrong shapes, missing fields, keys in other spellings, escapes. (Two spellings of
    /// one key in one object are left out: which one `JSONDecoder` keeps depends on the process's hash seed.)
    static let oddPages: [String] = [
        #"[]"#,
        #"[1, "x", null, true, [], {}]"#,
        #"[{"id": 5, "type": "PushEvent", "created_at": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": 12.0, "type": "PushEvent", "created_at": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": 1.5, "type": "PushEvent", "created_at": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": "7", "type": "", "created_at": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": "7", "type": 3, "created_at": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": "7", "type": "PushEvent", "created_at": "2025-01-01 00:00:00"}]"#,
        #"[{"id": "7", "type": "PushEvent", "created_at": "2025-01-01T00:00:00.250Z"}]"#,
        #"[{"id": "7", "type": "PushEvent", "created_at": "2025-01-01T01:00:00+01:00"}]"#,
        #"[{"id": "7", "type": "PushEvent", "created_at": "2025-02-30T00:00:00Z"}]"#,
        #"[{"id": "7", "type": "PushEvent", "createdAt": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": "7", "type": "PushEvent", "CREATED_AT": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": "7", "type": "PushEvent", "_created_at": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": "7", "type": "PushEvent", "created__at": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": "7", "type": "PushEvent", "created_at_": "2025-01-01T00:00:00Z"}]"#,
        #"""
        [{"id": "7", "type": "IssuesEvent", "created_at": "2025-01-01T00:00:00Z", "payload": {"issue": {"number": 3,
          "_links": {"html": {"href": "h"}}, "reactions": {"+1": 1, "-1": 0, "total_count": 1}, "title-": "x",
          "html-url": 5, "title": "T"}}}]
        """#,
        #"[{"id": "7", "type": "PushEvent", "created_\u0061t": "2025-01-01T00:00:00Z"}]"#,
        #"""
        [{"id": "7", "type": "IssuesEvent", "created_at": "2025-01-01T00:00:00Z",
          "actor": {"login": "a", "display_login": "A \u00e9 \ud83d\ude00"}, "repo": {"name": "o/r", "id": 1},
          "payload": {"action": "opened", "number": 3, "issue": {"number": 3, "title": "T\r\nx", "html_url": "https://github.com/o/r/issues/3", "pull_request": 1, "labels": [{"a": [1, 2]}]}}}]
        """#,
        #"""
        [{"id": "7", "type": "PullRequestEvent", "created_at": "2025-01-01T00:00:00Z",
          "actor": {"login": 5}, "repo": "o/r",
          "payload": {"action": 1, "number": "3", "pull_request": {"number": 3.5, "title": "T"}, "issue": {"merged": "yes"},
                      "discussion": {"title": null, "number": 9}, "comment": {"html_url": 4}, "review": [],
                      "pages": [{"html_url": "https://github.com/o/r/wiki/A"}, null], "release": {"tag_name": "v1", "name": null},
                      "forkee": {"full_name": "x/r", "html_url": "https://github.com/x/r"}, "member": {"login": "m"}}}]
        """#,
        #"""
        [{"id": "7", "type": "GollumEvent", "created_at": "2025-01-01T00:00:00Z", "displayLogin": "x",
          "actor": {"Display_Login": "E"}, "repo": {"name": "o/r"},
          "payload": {"pages": [{"html_url": "https://github.com/o/r/wiki/A"}, {"htmlUrl": "u"}],
                      "pullRequest": {"number": 2, "merged": true}}}]
        """#,
        #"[{"id": "7", "type": "PushEvent", "created_at": "2025-01-01T00:00:00Z", "actor": {"login": "\ud800"}}]"#,
        #"[{"id": "\ud800", "type": "PushEvent", "created_at": "2025-01-01T00:00:00Z"}]"#,
        #"[{"id": "7", "type": "PushEvent", "created_at": "2025-01-01T00:00:00Z", "payload": null}]"#,
        #"[{"id": "7", "type": "PushEvent", "created_at": "2025-01-01T00:00:00Z", "payload": [1]}]"#,
    ]

    @Test("odd pages read as JSONDecoder read them", arguments: oddPages)
    func odd(_ page: String) throws {
        let body = Array(page.utf8)
        #expect(try GitHubEvent.page(body) == GitHubEvent.decodablePage(body))
    }

    @Test(
        "a body that is not a list of events is refused with the same message",
        arguments: ["", "<html>", "{}", #"{"message": "Not Found"}"#, "[1,", #"[{"id": "7"}"#, "[] x", "[\u{1}]"])
    func refused(_ page: String) {
        let body = Array(page.utf8)
        #expect(throws: SourceError("the events response is not a JSON list of events")) {
            try GitHubEvent.page(body)
        }
        #expect(throws: SourceError("the events response is not a JSON list of events")) {
            try GitHubEvent.decodablePage(body)
        }
    }

    @Test("an event whose created_at is not a day of the calendar is left out, as one without a date is")
    func impossibleDate() throws {
        let body = Array(
            #"""
            [{"id": "7", "type": "PushEvent", "created_at": "2025-02-30T00:00:00Z"},
             {"id": "8", "type": "PushEvent", "created_at": "2025-01-01T24:00:00Z"},
             {"id": "9", "type": "PushEvent", "created_at": "2024-02-29T00:00:00Z"}]
            """#.utf8)
        let events = try GitHubEvent.page(body)
        #expect(events.map { $0?.id } == [nil, nil, "9"])
        #expect(events.last??.date == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(events == (try GitHubEvent.decodablePage(body)))
    }

    @Test("pages made by the fixtures read as JSONDecoder read them")
    func fixtures() throws {
        let pushes = GitHubFixtures.pushes(120, repo: "o/r", firstID: 5_000, newest: ManualClock.start)
        let body = Array(GitHubFixtures.eventsJSON(pushes).utf8)
        let events = try GitHubEvent.page(body)
        #expect(events.count == 120)
        #expect(events.allSatisfy { $0 != nil })
        #expect(events == (try GitHubEvent.decodablePage(body)))
    }
}
