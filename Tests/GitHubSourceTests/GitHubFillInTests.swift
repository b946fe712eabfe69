import Foundation
import MonitorItems
import TestSupport
import Testing

@testable import GitHubSource

/// What GitHub's events stopped carrying in October 2025, asked of the REST API and read back into the item: which
/// request an event needs, how each answer reads, and the sentences and details that follow. (Asking, keeping the
/// answers and the budget are the poll's.)
@Suite("Filling in what GitHub's events no longer carry")
struct GitHubFillInTests {
    static let excerpts = "api-samples/turn3/github-users-events-public-boostcamp-2026-01-excerpts.json"

    /// The real 2026 events of the excerpts, in their order.
    static func excerptEvents() throws -> [GitHubEvent] {
        try GitHubEvent.page(SharedSamples.bytes(excerpts)).compactMap { $0 }
    }

    static let pull = #"""
        {"url": "https://api.github.com/repos/o/r/pulls/3", "id": 1, "number": 3, "state": "closed",
         "title": "Speed up the parser", "user": {"login": "alice", "id": 2}, "body": "…", "draft": false,
         "merged": true, "merged_at": "2026-01-25T10:00:00Z", "head": {"ref": "x", "sha": "y"}}
        """#

    static let compare = #"""
        {"url": "…", "status": "ahead", "ahead_by": 3, "behind_by": 0, "total_commits": 3,
         "commits": [{"sha": "a", "commit": {"message": "First"}}, {"sha": "b", "commit": {"message": "Second"}},
                     {"sha": "c", "commit": {"message": "Fix the retry loop\n\nThe loop retried forever."}}],
         "files": [{"filename": "a.swift", "patch": "@@ -1 +1 @@"}]}
        """#

    @Test(
        "the real 2026 events ask for their pull request or their comparison, the others for nothing",
        .enabled(if: SharedSamples.folder != nil, "../shared is absent"))
    func requests() throws {
        let events = try Self.excerptEvents()
        #expect(
            events.map(\.type) == [
                "PushEvent", "PullRequestEvent", "IssuesEvent", "PullRequestReviewEvent", "PullRequestReviewEvent",
                "CreateEvent", "DeleteEvent", "IssueCommentEvent", "ReleaseEvent",
            ])
        #expect(
            events.map { GitHubFillIn.request(for: $0) } == [
                GitHubFillIn.Request(
                    path: "/repos/honki12345/htdp/compare/b18c41491c22486ef43c443f931138e969a2e358"
                        + "...dbcad646933a590e6677d34ec6f03c07ca036e0a", kind: .compare),
                GitHubFillIn.Request(path: "/repos/honki12345/htdp/pulls/3", kind: .pullRequest),
                nil,
                GitHubFillIn.Request(
                    path: "/repos/boostcampwm2025/web19-estrogenquattro/pulls/239", kind: .pullRequest),
                GitHubFillIn.Request(
                    path: "/repos/boostcampwm2025/web19-estrogenquattro/pulls/242", kind: .pullRequest),
                nil, nil, nil, nil,
            ])
    }

    @Test(
        "the real 2026 events read as today without a fill-in, and with one say what happened",
        .enabled(if: SharedSamples.folder != nil, "../shared is absent"))
    func sentences() throws {
        let events = try Self.excerptEvents()
        let push = try #require(GitHubFillIn.read(Array(Self.compare.utf8), as: .compare))
        let pull = try #require(GitHubFillIn.read(Array(Self.pull.utf8), as: .pullRequest))
        #expect(events[0].item(web: "https://github.com").title == "honki12345 pushed to test/minor-update-1769336830")
        #expect(
            events[0].item(web: "https://github.com", fillIn: push).title
                == "honki12345 pushed 3 commits to test/minor-update-1769336830: Fix the retry loop")
        #expect(events[0].item(web: "https://github.com", fillIn: push).details.last == Detail("commits", "3"))
        #expect(
            events[1].item(web: "https://github.com").title == "honki12345 merged pull request #3 in honki12345/htdp")
        let merged = events[1].item(web: "https://github.com", fillIn: pull)
        #expect(merged.title == "honki12345 merged pull request #3: Speed up the parser")
        #expect(merged.details.suffix(2) == [Detail("author", "alice"), Detail("state", "merged")])
        #expect(
            events[3].item(web: "https://github.com").title
                == "honki12345 reviewed pull request #239 in boostcampwm2025/web19-estrogenquattro")
        #expect(
            events[3].item(web: "https://github.com", fillIn: pull).title
                == "honki12345 reviewed pull request #239: Speed up the parser")
    }

    /// An event of `type` in `o/r` with `payload`.
    static func event(_ type: String, _ payload: GitHubEvent.Payload) -> GitHubEvent {
        GitHubEvent(
            id: "1", type: type, actor: GitHubEvent.Actor(login: "bob"), repo: GitHubEvent.Repository(name: "o/r"),
            payload: payload, date: Date(timeIntervalSince1970: 0))
    }

    @Test("a push that made a branch asks for its head commit; a force push says so instead of counting")
    func pushes() throws {
        let zeros = String(repeating: "0", count: 40)
        let head = String(repeating: "a", count: 40)
        let made = Self.event("PushEvent", GitHubEvent.Payload(ref: "refs/heads/topic", head: head, before: zeros))
        #expect(
            GitHubFillIn.request(for: made) == GitHubFillIn.Request(path: "/repos/o/r/commits/\(head)", kind: .commit))
        let commit = #"{"sha": "aaa", "commit": {"author": {"name": "B"}, "message": "Add the topic\r\nbody"}}"#
        let first = try #require(GitHubFillIn.read(Array(commit.utf8), as: .commit))
        #expect(first == .push(GitHubFillIn.Push(headline: "Add the topic")))
        #expect(made.item(web: "https://github.com", fillIn: first).title == "bob pushed to topic: Add the topic")

        let forced = Self.event("PushEvent", GitHubEvent.Payload(ref: "refs/heads/main", head: head, before: head))
        let diverged = #"{"status": "diverged", "ahead_by": 2, "behind_by": 5, "total_commits": 2, "commits": []}"#
        let rewritten = try #require(GitHubFillIn.read(Array(diverged.utf8), as: .compare))
        #expect(rewritten == .push(GitHubFillIn.Push(rewritten: "diverged")))
        #expect(
            forced.item(web: "https://github.com", fillIn: rewritten).title == "bob force-pushed to main (diverged)")

        // 300 commits, of which a comparison lists the 250 oldest: counted, the newest's line not known.
        let listed = (1...250).map { #"{"commit": {"message": "c\#($0)"}}"# }.joined(separator: ",")
        let long = #"{"status": "ahead", "total_commits": 300, "commits": [\#(listed)]}"#
        let many = try #require(GitHubFillIn.read(Array(long.utf8), as: .compare))
        #expect(many == .push(GitHubFillIn.Push(commits: 300)))
        #expect(forced.item(web: "https://github.com", fillIn: many).title == "bob pushed 300 commits to main")
        let one = #"{"status": "ahead", "total_commits": 1, "commits": [{"commit": {"message": "Only"}}]}"#
        #expect(
            forced.item(web: "https://github.com", fillIn: GitHubFillIn.read(Array(one.utf8), as: .compare)).title
                == "bob pushed 1 commit to main: Only")
    }

    @Test("what carries its title or cannot be asked about asks for nothing")
    func nothingAsked() {
        var titled = GitHubEvent.Payload(number: 4)
        titled.pullRequest = GitHubEvent.Topic(number: 4, title: "Kept")
        #expect(GitHubFillIn.request(for: Self.event("PullRequestEvent", titled)) == nil)
        #expect(GitHubFillIn.request(for: Self.event("PullRequestEvent", GitHubEvent.Payload())) == nil)
        #expect(GitHubFillIn.request(for: Self.event("PullRequestEvent", GitHubEvent.Payload(number: 0))) == nil)
        #expect(
            GitHubFillIn.request(for: Self.event("PushEvent", GitHubEvent.Payload(head: "main", before: "x"))) == nil)
        var elsewhere = Self.event("PullRequestEvent", GitHubEvent.Payload(number: 4))
        elsewhere.repo = GitHubEvent.Repository(name: "../etc")
        #expect(GitHubFillIn.request(for: elsewhere) == nil)
        #expect(
            GitHubFillIn.request(for: Self.event("PullRequestEvent", GitHubEvent.Payload(number: 4)))
                == GitHubFillIn.Request(path: "/repos/o/r/pulls/4", kind: .pullRequest))
    }

    @Test(
        "an answer that is not of its kind fills in nothing",
        arguments: [
            ("", GitHubFillIn.Request.Kind.pullRequest), ("[]", .pullRequest), ("{}", .pullRequest),
            (#"{"title": 5}"#, .pullRequest), (#"{"title": ""}"#, .pullRequest), (#"{"title": "T"} x"#, .pullRequest),
            (#"{"message": "Not Found"}"#, .compare), (#"{"status": "weird"}"#, .compare), ("null", .compare),
            (#"{"commit": {"message": ""}}"#, .commit), (#"{"commit": "x"}"#, .commit), (#"{"sha": "a"}"#, .commit),
        ])
    func garbage(_ body: String, _ kind: GitHubFillIn.Request.Kind) {
        #expect(GitHubFillIn.read(Array(body.utf8), as: kind) == nil)
    }

    @Test("a hostile title is shown without its control sequences, cut to 300 characters")
    func hostile() throws {
        let title = "\u{1B}]0;owned\u{07}Fix\u{1B}[2J it " + String(repeating: "x", count: 10_000)
        let body = try String(data: JSONEncoder().encode(["title": title, "state": "open"]), encoding: .utf8) ?? ""
        guard case .pullRequest(let pull) = try #require(GitHubFillIn.read(Array(body.utf8), as: .pullRequest)) else {
            Issue.record("not a pull request")
            return
        }
        #expect(pull.title.hasPrefix("Fix it xxx"))
        #expect(pull.title.count == 300)
        #expect(pull.title.hasSuffix("…"))
        #expect(pull.status == "open")
        #expect(pull.author == nil)
    }

    @Test("a draft, an open, a closed and a merged pull request each say their state")
    func states() {
        let cases: [(String, String)] = [
            (#"{"title": "T", "state": "open", "draft": true}"#, "draft"),
            (#"{"title": "T", "state": "open", "draft": false}"#, "open"),
            (#"{"title": "T", "state": "closed", "merged": false, "draft": true}"#, "closed"),
            (#"{"title": "T", "state": "closed", "merged": true}"#, "merged"),
            (#"{"title": "T", "draft": "yes", "merged": 1}"#, "open"),
        ]
        for (body, state) in cases {
            guard case .pullRequest(let pull) = GitHubFillIn.read(Array(body.utf8), as: .pullRequest) else {
                Issue.record("\(body) is not read")
                continue
            }
            #expect(pull.status == state, "\(body)")
        }
    }
}
