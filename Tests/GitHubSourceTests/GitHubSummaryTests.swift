import Foundation
import TestSupport
import Testing

@testable import GitHubSource
@testable import MonitorCore
@testable import MonitorJSON

private let repo = "ReactiveX/RxSwift"

/// An event `minutes` before the tests' `now`.
private func event(
    _ id: Int, _ type: String, _ actor: String, minutes: Double, _ payload: JSONValue = .object([])
) -> GitHubFixtures.Event {
    GitHubFixtures.Event(
        id: String(id), type: type, actor: actor, repo: repo, date: ManualClock.start.addingTimeInterval(-60 * minutes),
        payload: payload)
}

@Suite("The text summary of a github feed's poll")
struct GitHubSummaryTests {
    @Test("event types by count with what is new, the latest events with their repository, the rate limit")
    func summary() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        let path = "repos/\(repo)"
        api.setEvents(
            [
                event(
                    105, "IssuesEvent", "freak4pc", minutes: 20,
                    .object([("action", "opened"), ("issue", .object([("number", 5), ("title", "Crash on launch")]))])),
                event(104, "WatchEvent", "jshier", minutes: 30),
                event(103, "PushEvent", "kzaher", minutes: 40, GitHubFixtures.pushPayload(repo: repo, id: 103)),
                event(102, "WatchEvent", "0xTim", minutes: 50),
                event(101, "ForkEvent", "someone", minutes: 6 * 60),
                event(
                    100, "PushEvent", "kzaher", minutes: 3 * 24 * 60,
                    GitHubFixtures.pushPayload(repo: repo, id: 100, branch: "develop")),
            ], of: path)
        let feed = PollHarness.feed(
            GitHubSource.self, name: "rx",
            options: ["repo": .string(repo), "api": .string(api.root), "details": .boolean(false)])
        let clock = ManualClock.fixed()
        _ = await harness.poll(GitHubSource.self, feed: feed, transport: api.transport(), clock: clock)

        api.prepend(
            [
                event(108, "PushEvent", "kzaher", minutes: 1, GitHubFixtures.pushPayload(repo: repo, id: 108)),
                event(
                    107, "PullRequestEvent", "0xTim", minutes: 5,
                    .object([
                        ("action", "opened"), ("number", 3120),
                        ("pull_request", .object([("title", "Add \u{1B}[31mcolour\u{1B}[0m to the \u{07}logs")])),
                    ])),
                event(106, "WatchEvent", "jshier", minutes: 10),
            ], to: path)
        let report = await harness.poll(
            GitHubSource.self, feed: feed, transport: api.transport(), clock: clock
        )
        .report
        let text = GitHubSource(options: feed.options).summary(of: report, now: clock.date)
        #expect(
            text == """
                rx (github): ok — 9 items, 3 new, 1 request, 0ms
                  event type        items  new
                  PushEvent             3   +1
                  WatchEvent            3   +1
                  ForkEvent             1
                  IssuesEvent           1
                  PullRequestEvent      1   +1
                  latest (UTC):
                  *        04:59  kzaher pushed to main  (ReactiveX/RxSwift)
                  *        04:55  0xTim opened pull request #3120: Add colour to the logs  (ReactiveX/RxSwift)
                  *        04:50  jshier starred ReactiveX/RxSwift  (ReactiveX/RxSwift)
                           04:40  freak4pc opened issue #5: Crash on launch  (ReactiveX/RxSwift)
                           04:30  jshier starred ReactiveX/RxSwift  (ReactiveX/RxSwift)
                  rate limit: 58/60 remaining, resets 05:12 UTC

                """)
    }

    @Test(
        "the rate limit line shows what the server said",
        arguments: [
            ("rate limit: 4999/5000 remaining, resets 05:12 UTC", 5000, 4999, "core"),
            ("rate limit: 9/10 remaining, resets 05:12 UTC (search)", 10, 9, "search"),
        ])
    func rateLimit(line: String, limit: Int, remaining: Int, resource: String) throws {
        let headers = GitHubFixtures.rateLimitHeaders(
            limit: limit, remaining: remaining, reset: ManualClock.start.addingTimeInterval(720), resource: resource)
        let limit = try #require(RateLimit(headers: headers, resource: resource))
        let report = PollReport(
            feed: "rx", type: "github", status: .notModified, requests: 1, notModified: 1, started: ManualClock.start,
            rateLimit: limit)
        let source = GitHubSource(
            options: PollHarness.feed(GitHubSource.self, options: ["repo": .string("a/b")]).options)
        #expect(
            source.summary(of: report, now: ManualClock.start)
                == "rx (github): not modified — 0 items, 0 new, 1 request (1 not modified), 0ms\n  \(line)\n")
    }

    @Test("negative rate-limit counts are ignored, never shown as '-1/-5 remaining'")
    func negativeRateLimit() throws {
        let negative: HTTPHeaders = ["X-RateLimit-Limit": "-5", "X-RateLimit-Remaining": "-1"]
        #expect(RateLimit(headers: negative) == nil)
        let halfWrong: HTTPHeaders = ["X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "-1"]
        let limit = try #require(RateLimit(headers: halfWrong))
        #expect(limit == RateLimit(headers: ["X-RateLimit-Limit": "60"]))
        #expect(GitHubSource.rateLimitLine(limit) == nil)
    }
}
