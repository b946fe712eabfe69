import Foundation
import GitHubSource
import MonitorOptions
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorJSON

/// What the search `language:swift` finds, by stars; the feed follows the top 5.
private let found = [
    "vsouza/awesome-ios", "Alamofire/Alamofire", "ReactiveX/RxSwift", "vapor/vapor", "kean/Nuke", "a/six",
]
private let searchURL =
    "https://api.github.test/search/repositories?q=language%3Aswift&sort=stars&order=desc&per_page=5"

/// A fake API where each found repository has 20 pushes, the repositories' events interleaved in time: the
/// push `k` (0 newest) of repository `r` is `10 * k + r + 1` minutes old.
private func api() -> GitHubFixtures.API {
    let api = GitHubFixtures.API()
    api.setSearch("language:swift", finds: found)
    for (index, name) in found.enumerated() {
        api.setEvents(
            GitHubFixtures.pushes(
                20, repo: name, firstID: 1000 * (index + 1),
                newest: ManualClock.start.addingTimeInterval(-60 * Double(index + 1)),
                spacing: 600, actor: "dev\(index)"),
            of: "repos/\(name)")
    }
    return api
}

/// A search feed named `swift-top`.
private func feed(_ api: GitHubFixtures.API, _ options: [String: OptionValue] = [:]) -> FeedConfig {
    var all: [String: OptionValue] = ["search": .string("language:swift"), "api": .string(api.root)]
    all.merge(options) { _, new in new }
    return PollHarness.feed(GitHubSource.self, name: "swift-top", options: all)
}

/// The event URL of a repository's first page with keep 50.
private func eventsURL(_ name: String) -> String {
    "https://api.github.test/repos/\(name)/events?per_page=50"
}

@Suite("A search feed: the combined activity of the top repositories of a search")
struct GitHubSearchTests {
    @Test("one search, then the events of each of the top 5 repositories; the newest `keep` across them are kept")
    func follows() async throws {
        let harness = PollHarness()
        let api = api()
        let transport = api.transport()
        let clock = ManualClock.fixed()
        let (report, views) = await harness.poll(
            GitHubSource.self, feed: feed(api), transport: transport, clock: clock)

        #expect(report.status == .ok)
        #expect(report.error == nil)
        #expect(transport.requests.first?.url == searchURL)
        #expect(Set(transport.requests.dropFirst().map(\.url)) == Set(found.prefix(5).map(eventsURL)))
        #expect(transport.requests.count == 6)
        #expect(report.requests == 6)
        // 5 × 20 events; the newest 50 are those less than 100 minutes old: k = 0…9 of each repository.
        #expect(report.items == 50)
        #expect(report.new == 50)
        let stored = try await harness.store.items(feed: "swift-top")
        let expected = (0..<5).flatMap { repository in (0..<10).map { String(1000 * (repository + 1) - $0) } }
        #expect(Set(stored.map(\.id)) == Set(expected))
        #expect(Set(stored.compactMap { $0.detail("repo") }) == Set(found.prefix(5)))
        #expect(report.latest.first?.title == "dev0 pushed to main")
        #expect(report.latest.first?.detail("repo") == "vsouza/awesome-ios")
        // Progress: 1 search + 5 repositories.
        #expect(views.last.map { ($0.done, $0.total) }! == (6, 6))
        // The search is kept in the state.
        let values = try await harness.store.snapshot(feed: "swift-top").values
        #expect(values["search.repos"] == JSONValue.array(found.prefix(5).map { .string($0) }).text)
        #expect(values["search.at"] == "2026-11-22T05:00:00Z")
        #expect(values["search.query"] == "language:swift")
        #expect(values["search.top"] == "5")
    }

    @Test("the search is reused while younger than search_every, then made again")
    func cachedSearch() async throws {
        let harness = PollHarness()
        let api = api()
        let clock = ManualClock.fixed()
        let options: [String: OptionValue] = ["search_every": .duration(.seconds(3600))]
        _ = await harness.poll(
            GitHubSource.self, feed: feed(api, options), transport: api.transport(), clock: clock)

        clock.advance(by: .seconds(59 * 60))
        let within = api.transport()
        let second = await harness.poll(
            GitHubSource.self, feed: feed(api, options), transport: within, clock: clock
        ).report
        #expect(Set(within.requests.map(\.url)) == Set(found.prefix(5).map(eventsURL)))
        #expect(within.requests.count == 5)
        #expect(second.status == .notModified)
        #expect(second.notModified == 5)
        #expect((second.items, second.new) == (50, 0))

        clock.advance(by: .seconds(2 * 60))
        // The search now finds another order: the sixth repository is in the top 5 instead of the first.
        api.setSearch("language:swift", finds: Array(found.dropFirst()))
        let after = api.transport()
        let third = await harness.poll(
            GitHubSource.self, feed: feed(api, options), transport: after, clock: clock
        ).report
        #expect(after.requests.first?.url == searchURL)
        #expect(Set(after.requests.dropFirst().map(\.url)) == Set(found.dropFirst().map(eventsURL)))
        #expect(third.status == .ok)
        let values = try await harness.store.snapshot(feed: "swift-top").values
        #expect(values["search.at"] == "2026-11-22T06:01:00Z")
        #expect(values["search.repos"] == JSONValue.array(found.dropFirst().map { .string($0) }).text)
    }

    @Test("a cached search made for another query or top is not reused")
    func otherQuery() async throws {
        let harness = PollHarness()
        let api = api()
        api.setSearch("language:rust", finds: ["a/six"])
        let clock = ManualClock.fixed()
        _ = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport(), clock: clock)
        let transport = api.transport()
        let report = await harness.poll(
            GitHubSource.self, feed: feed(api, ["search": .string("language:rust")]), transport: transport,
            clock: clock
        ).report
        #expect(
            transport.requests.map(\.url) == [
                "https://api.github.test/search/repositories?q=language%3Arust&sort=stars&order=desc&per_page=5",
                eventsURL("a/six"),
            ])
        #expect(report.status == .ok)
    }

    @Test("a repository that fails makes the poll partial; the others still count")
    func partial() async throws {
        let harness = PollHarness()
        let api = api()
        api.override("repos/vapor/vapor/events", with: GitHubFixtures.API.error(404, "Not Found"))
        let report = await harness.poll(
            GitHubSource.self, feed: feed(api), transport: api.transport(), clock: ManualClock.fixed()
        ).report
        #expect(report.status == .partial)
        #expect(
            report.error
                == "repository 'vapor/vapor': GET https://api.github.test/repos/vapor/vapor/events?per_page=50: HTTP 404 Not Found: Not Found"
        )
        #expect(report.items == 50)
        #expect(Set(try await harness.store.items(feed: "swift-top").compactMap { $0.detail("repo") }).count == 4)
    }

    @Test("a rate limit on one repository fails the whole poll")
    func rateLimitedRepository() async throws {
        let harness = PollHarness()
        let api = api()
        let reset = ManualClock.start.addingTimeInterval(720)
        api.override(
            "repos/kean/Nuke/events",
            with: GitHubFixtures.API.error(
                403, "API rate limit exceeded for 127.0.0.1.",
                headers: GitHubFixtures.rateLimitHeaders(limit: 60, remaining: 0, reset: reset)))
        let report = await harness.poll(
            GitHubSource.self, feed: feed(api, ["concurrency": .integer(1)]), transport: api.transport(),
            clock: ManualClock.fixed()
        ).report
        #expect(report.status == .failed)
        #expect(
            report.error?.hasSuffix(
                "rate limit exhausted (x-ratelimit-remaining: 0); not polled again before 2026-11-22 05:12:00 UTC")
                == true)
        #expect(try await harness.store.items(feed: "swift-top").isEmpty)
        #expect(try await harness.store.snapshot(feed: "swift-top").record?.notBefore == reset)
    }

    @Test("a rate-limited search falls back to the repositories found before")
    func rateLimitedSearch() async throws {
        let harness = PollHarness()
        let api = api()
        let clock = ManualClock.fixed()
        _ = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport(), clock: clock)
        clock.advance(by: .seconds(2 * 3600))
        api.override(
            "search/repositories",
            with: GitHubFixtures.API.error(
                403, "API rate limit exceeded for 127.0.0.1.",
                headers: GitHubFixtures.rateLimitHeaders(
                    limit: 10, remaining: 0, reset: clock.date.addingTimeInterval(60), resource: "search")))
        let transport = api.transport()
        let report = await harness.poll(
            GitHubSource.self, feed: feed(api), transport: transport, clock: clock
        )
        .report
        #expect(transport.requests.first?.url == searchURL)
        // The search's own limit is exhausted; the events API's is not: the poll goes on with the cached
        // repositories, all unchanged. Not every request was a 304 (the search was refused), so it is ok.
        #expect(report.status == .ok)
        #expect(report.error == nil)
        #expect(Set(transport.requests.dropFirst().map(\.url)) == Set(found.prefix(5).map(eventsURL)))
        #expect(try await harness.store.snapshot(feed: "swift-top").record?.notBefore == nil)
    }
}
