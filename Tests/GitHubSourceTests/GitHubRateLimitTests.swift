import Foundation
import GitHubSource
import TestSupport
import Testing

@testable import MonitorCore

/// The events path of the followed repository.
private let path = "repos/ReactiveX/RxSwift"
private let eventsURL = "https://api.github.test/repos/ReactiveX/RxSwift/events?per_page=50"

/// A feed named `rx` following ReactiveX/RxSwift on `api`.
private func feed(_ api: GitHubFixtures.API) -> FeedConfig {
    PollHarness.feed(
        GitHubSource.self, name: "rx", options: ["repo": .string("ReactiveX/RxSwift"), "api": .string(api.root)])
}

/// A secondary rate limit answer and what the poll must say of it.
struct SecondaryLimit: Sendable, CustomTestStringConvertible {
    var status: Int
    var retryAfter: String?
    var detail: String

    var testDescription: String { "\(status) \(retryAfter.map { "Retry-After: \($0)" } ?? "without Retry-After")" }
}

@Suite("Rate limits: an exhausted or secondary limit fails the poll and holds the feed back")
struct GitHubRateLimitTests {
    @Test("a primary rate limit (403, x-ratelimit-remaining: 0) fails with the reset time; no request before it")
    func primary() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        api.setEvents(
            GitHubFixtures.pushes(5, repo: "ReactiveX/RxSwift", firstID: 10, newest: ManualClock.start), of: path)
        let reset = ManualClock.start.addingTimeInterval(720)
        api.override(
            "\(path)/events",
            with: GitHubFixtures.API.error(
                403, "API rate limit exceeded for 127.0.0.1.",
                headers: GitHubFixtures.rateLimitHeaders(limit: 60, remaining: 0, reset: reset)))
        let clock = ManualClock.fixed()
        let transport = api.transport()
        let report = await harness.poll(
            GitHubSource.self, feed: feed(api), transport: transport, clock: clock
        )
        .report
        #expect(report.status == .failed)
        #expect(
            report.error
                == "GET \(eventsURL): HTTP 403: rate limit exhausted (x-ratelimit-remaining: 0); not polled again before 2026-11-22 05:12:00 UTC"
        )
        #expect(transport.requests.count == 1)
        #expect(report.rateLimit?.remaining == 0)
        #expect(report.notBefore == reset)
        let record = try #require(try await harness.store.snapshot(feed: "rx").record)
        #expect(record.notBefore == reset)
        #expect(record.status == "failed")

        // Before the reset the feed is not polled at all; after it, it is.
        clock.advance(by: .seconds(600))
        let early = api.transport()
        let held = await harness.poll(GitHubSource.self, feed: feed(api), transport: early, clock: clock)
            .report
        #expect(held.status == .failed)
        #expect(held.error == "not polled: the server asked to wait until 2026-11-22 05:12:00 UTC")
        #expect(early.requests.isEmpty)

        clock.advance(by: .seconds(180))
        api.override("\(path)/events", with: nil)
        let later = await harness.poll(
            GitHubSource.self, feed: feed(api), transport: api.transport(), clock: clock
        )
        .report
        #expect(later.status == .ok)
        #expect(later.items == 5)
    }

    @Test(
        "a secondary rate limit fails the poll and sets the feed's notBefore",
        arguments: [
            SecondaryLimit(
                status: 403, retryAfter: "60", detail: "HTTP 403: the server asked to retry after 1m"),
            SecondaryLimit(
                status: 429, retryAfter: "60", detail: "HTTP 429: the server asked to retry after 1m"),
            SecondaryLimit(status: 403, retryAfter: nil, detail: "HTTP 403: secondary rate limit"),
        ])
    func secondary(_ limit: SecondaryLimit) async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        var headers: HTTPHeaders = GitHubFixtures.rateLimitHeaders(
            limit: 5000, remaining: 4990, reset: ManualClock.start.addingTimeInterval(3000))
        if let retryAfter = limit.retryAfter { headers.add("Retry-After", retryAfter) }
        api.override(
            "\(path)/events",
            with: GitHubFixtures.API.error(
                limit.status,
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                headers: headers))
        let clock = ManualClock.fixed()
        let transport = api.transport()
        let report = await harness.poll(
            GitHubSource.self, feed: feed(api), transport: transport, clock: clock
        )
        .report
        #expect(report.status == .failed)
        #expect(report.error == "GET \(eventsURL): \(limit.detail); not polled again before 2026-11-22 05:01:00 UTC")
        #expect(transport.requests.count == 1)
        let record = try #require(try await harness.store.snapshot(feed: "rx").record)
        #expect(record.notBefore == ManualClock.start.addingTimeInterval(60))
        #expect(record.rateLimit?.remaining == 4990)
    }

    @Test("a 403 that is no rate limit fails the poll with GitHub's message, without holding the feed back")
    func forbidden() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        api.override("\(path)/events", with: GitHubFixtures.API.error(403, "Resource not accessible by integration"))
        let report = await harness.poll(
            GitHubSource.self, feed: feed(api), transport: api.transport(), clock: ManualClock.fixed()
        ).report
        #expect(report.status == .failed)
        #expect(report.error == "GET \(eventsURL): HTTP 403 Forbidden: Resource not accessible by integration")
        #expect(try await harness.store.snapshot(feed: "rx").record?.notBefore == nil)
    }
}
