import Foundation
import GitHubSource
import MonitorItems
import MonitorOptions
import TestSupport
import Testing

@testable import MonitorCore

/// The repository these tests follow.
private let repo = "ReactiveX/RxSwift"
/// Its events under the API root.
private let path = "repos/ReactiveX/RxSwift"

/// A feed named `rx` following `repo` on `api`, with `options` over the defaults.
private func feed(_ api: GitHubFixtures.API, _ options: [String: OptionValue] = [:]) -> FeedConfig {
    var all: [String: OptionValue] = ["repo": .string(repo), "api": .string(api.root)]
    all.merge(options) { _, new in new }
    return PollHarness.feed(GitHubSource.self, name: "rx", options: all)
}

/// `count` pushes to `repo`, newest first from id `firstID`, the newest a minute before the tests' `now`.
private func pushes(_ count: Int, firstID: Int, minutesAgo: Double = 1) -> [GitHubFixtures.Event] {
    GitHubFixtures.pushes(
        count, repo: repo, firstID: firstID, newest: ManualClock.start.addingTimeInterval(-60 * minutesAgo))
}

@Suite("Polling a repository's events: pages, conditional requests, new events, keep")
struct GitHubPollingTests {
    @Test("the first sync follows the Link header exactly as given, page by page")
    func firstSync() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        api.setEvents(pushes(260, firstID: 90_000), of: path)
        let transport = api.transport()
        let clock = ManualClock.fixed()
        let (report, views) = await harness.poll(
            GitHubSource.self, feed: feed(api, ["keep": .integer(300)]), transport: transport, clock: clock)

        let id = GitHubFixtures.API.id(of: path)
        #expect(
            transport.requests.map(\.url) == [
                "https://api.github.test/repos/ReactiveX/RxSwift/events?per_page=100",
                "https://api.github.test/repositories/\(id)/events?per_page=100&page=2",
                "https://api.github.test/repositories/\(id)/events?per_page=100&page=3",
            ])
        #expect(report.status == .ok)
        #expect(report.error == nil)
        #expect(report.requests == 3)
        #expect(report.notModified == 0)
        #expect(report.items == 260)
        #expect(report.new == 260)
        #expect(report.groups == [.init(id: "PushEvent", title: "PushEvent", count: 260, new: 260)])
        #expect(report.latest.first?.id == "90000")
        #expect(report.latest.first?.title == "kzaher pushed to main")
        #expect(
            report.latest.first?.url
                == "https://github.test/\(repo)/compare/\(GitHubFixtures.sha(89_999))...\(GitHubFixtures.sha(90_000))")
        #expect(
            report.latest.first?.details == [Detail("actor", "kzaher"), Detail("repo", repo), Detail("ref", "main")])
        // Progress: the pages as far as known, ending with 3 of 3.
        var progress: [String] = []
        for view in views {
            let step = "\(view.done)/\(view.total.map(String.init) ?? "?")"
            if step != progress.last { progress.append(step) }
        }
        #expect(progress == ["0/?", "1/2", "2/3", "3/3"])
        let stored = try await harness.store.items(feed: "rx")
        #expect(stored.count == 260)
        #expect(Set(stored.map(\.id)) == Set((89_741...90_000).map(String.init)))
        // The rate limit and X-Poll-Interval of the last answer are kept.
        let record = try #require(try await harness.store.snapshot(feed: "rx").record)
        #expect(record.rateLimit?.remaining == 57)
        #expect(record.rateLimit?.limit == 60)
        #expect(record.minimumInterval == .seconds(60))
    }

    @Test(
        "keep bounds the events fetched: per_page is min(100, keep) and paging stops at the page reaching keep",
        arguments: [
            (keep: 30, urls: ["events?per_page=30"], items: 30),
            (keep: 100, urls: ["events?per_page=100"], items: 100),
            (keep: 150, urls: ["events?per_page=100", "events?per_page=100&page=2"], items: 150),
            (
                keep: 300, urls: ["events?per_page=100", "events?per_page=100&page=2", "events?per_page=100&page=3"],
                items: 260
            ),
        ])
    func keep(keep: Int, urls: [String], items: Int) async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        api.setEvents(pushes(260, firstID: 90_000), of: path)
        let transport = api.transport()
        let report = await harness.poll(
            GitHubSource.self, feed: feed(api, ["keep": .integer(keep)]), transport: transport
        ).report
        #expect(transport.requests.map { String($0.url.split(separator: "/").last ?? "") } == urls)
        #expect(report.items == items)
        #expect(report.new == items)
        // The newest ones are kept.
        #expect(try await harness.store.items(feed: "rx").map(\.id) == (0..<items).map { String(90_000 - $0) })
    }

    @Test(
        "every request carries the API's headers, and Authorization only with a token",
        arguments: [nil, "", "ghp_example0123456789"])
    func headers(token: String?) async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API(token: token.flatMap { $0.isEmpty ? nil : $0 })
        api.setEvents(pushes(40, firstID: 1000), of: path)
        let transport = api.transport()
        var options: [String: OptionValue] = ["keep": .integer(30)]
        if let token { options["token"] = .string(token) }
        let first = await harness.poll(GitHubSource.self, feed: feed(api, options), transport: transport).report
        let second = await harness.poll(GitHubSource.self, feed: feed(api, options), transport: transport).report
        #expect(first.status == .ok)
        #expect(second.status == .notModified)
        #expect(transport.requests.count == 2)
        let answer = try #require(api.exchanges.first?.response)
        #expect(answer.status == 200)
        #expect(answer.headers["ETag"]?.hasPrefix("W/\"") == true)
        let validators = [
            [String?](repeating: nil, count: 2), [answer.headers["ETag"], answer.headers["Last-Modified"]],
        ]
        for (index, request) in transport.requests.enumerated() {
            #expect(request.url == "https://api.github.test/repos/ReactiveX/RxSwift/events?per_page=30")
            #expect(request.headers["Accept"] == "application/vnd.github+json")
            #expect(request.headers["X-GitHub-Api-Version"] == "2022-11-28")
            #expect(request.headers["User-Agent"] == "monitor/\(MonitorVersion.current)")
            #expect(request.headers["Authorization"] == token.flatMap { $0.isEmpty ? nil : "Bearer \($0)" })
            #expect([request.headers["If-None-Match"], request.headers["If-Modified-Since"]] == validators[index])
        }
    }

    @Test("a second poll of an unchanged repository is one request answered 304: not_modified, nothing new")
    func notModified() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        api.setEvents(pushes(120, firstID: 5000), of: path)
        let first = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport()).report
        #expect((first.status, first.requests, first.items, first.new) == (.ok, 1, 50, 50))
        let before = try await harness.store.items(feed: "rx")

        let transport = api.transport()
        let second = await harness.poll(GitHubSource.self, feed: feed(api), transport: transport).report
        #expect(second.status == .notModified)
        #expect(second.requests == 1)
        #expect(second.notModified == 1)
        #expect(second.items == 50)
        #expect(second.new == 0)
        #expect(second.newIDs.isEmpty)
        #expect(second.groups == [.init(id: "PushEvent", title: "PushEvent", count: 50, new: 0)])
        #expect(second.json.text.contains(#""status":"not_modified""#))
        #expect(transport.requests.map(\.url) == ["https://api.github.test/\(path)/events?per_page=50"])
        #expect(api.exchanges.map(\.response.status) == [200, 304])
        #expect(try await harness.store.items(feed: "rx") == before)
        // A 304 costs no rate limit: the remaining count is that of the first answer.
        #expect(second.rateLimit?.remaining == 59)
    }

    @Test("new events on top are counted exactly, and paging stops at the first known event")
    func newEvents() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        let options: [String: OptionValue] = ["keep": .integer(300)]
        api.setEvents(pushes(250, firstID: 5000, minutesAgo: 10), of: path)
        let first = await harness.poll(GitHubSource.self, feed: feed(api, options), transport: api.transport()).report
        #expect((first.requests, first.items) == (3, 250))

        api.prepend(pushes(3, firstID: 5003, minutesAgo: 1), to: path)
        let transport = api.transport()
        let report = await harness.poll(GitHubSource.self, feed: feed(api, options), transport: transport).report
        #expect(report.status == .ok)
        // The first page holds the 3 new events and 97 known ones: its next page is not asked for.
        #expect(transport.requests.map(\.url) == ["https://api.github.test/\(path)/events?per_page=100"])
        #expect(report.new == 3)
        #expect(report.newIDs == ["5003", "5002", "5001"])
        #expect(report.items == 253)
        #expect(report.groups == [.init(id: "PushEvent", title: "PushEvent", count: 253, new: 3)])
        #expect(try await harness.store.items(feed: "rx").map(\.id) == (0..<253).map { String(5003 - $0) })
    }

    @Test("with keep reached, the oldest events make room for the new ones")
    func newEventsKeep() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        api.setEvents(pushes(80, firstID: 5000, minutesAgo: 10), of: path)
        _ = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport())

        api.prepend(pushes(3, firstID: 5003, minutesAgo: 1), to: path)
        let report = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport()).report
        #expect((report.items, report.new) == (50, 3))
        #expect(report.groups == [.init(id: "PushEvent", title: "PushEvent", count: 50, new: 3)])
        // The newest 50: the 3 new ones and 47 of the stored ones.
        #expect(try await harness.store.items(feed: "rx").map(\.id) == (0..<50).map { String(5003 - $0) })
    }

    @Test("more new events than a page: the next page is followed until it reaches a known event, no further")
    func newEventsOverTwoPages() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        api.setEvents(pushes(150, firstID: 5000, minutesAgo: 300), of: path)
        let first = await harness.poll(
            GitHubSource.self, feed: feed(api, ["keep": .integer(300)]), transport: api.transport()
        ).report
        #expect((first.requests, first.items) == (2, 150))

        api.prepend(pushes(120, firstID: 5120, minutesAgo: 1), to: path)
        let transport = api.transport()
        let report = await harness.poll(
            GitHubSource.self, feed: feed(api, ["keep": .integer(300)]), transport: transport
        ).report
        let id = GitHubFixtures.API.id(of: path)
        #expect(
            transport.requests.map(\.url) == [
                "https://api.github.test/\(path)/events?per_page=100",
                "https://api.github.test/repositories/\(id)/events?per_page=100&page=2",
            ])
        #expect(report.new == 120)
        #expect(report.items == 270)
        #expect(report.status == .ok)
    }

    @Test("only the listed types become items; the others still count towards keep and stop the paging")
    func typesFilter() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        let start = ManualClock.start
        // 40 events, newest first, cycling Push, Watch, Issues, Push…
        let kinds = ["PushEvent", "WatchEvent", "IssuesEvent", "PushEvent"]
        let events = (0..<40).map { index in
            GitHubFixtures.Event(
                id: String(7000 - index), type: kinds[index % 4], actor: "jshier", repo: repo,
                date: start.addingTimeInterval(-600 - 60 * Double(index)))
        }
        api.setEvents(events, of: path)
        let options: [String: OptionValue] = ["keep": .integer(20), "types": .list(["WatchEvent", "IssuesEvent"])]
        let transport = api.transport()
        let first = await harness.poll(GitHubSource.self, feed: feed(api, options), transport: transport).report
        #expect(transport.requests.count == 1)
        #expect(first.items == 10)
        #expect(
            first.groups == [
                .init(id: "IssuesEvent", title: "IssuesEvent", count: 5, new: 5),
                .init(id: "WatchEvent", title: "WatchEvent", count: 5, new: 5),
            ])

        api.prepend(
            [
                GitHubFixtures.Event(
                    id: "7003", type: "PushEvent", actor: "kzaher", repo: repo, date: start.addingTimeInterval(-60)),
                GitHubFixtures.Event(
                    id: "7002", type: "WatchEvent", actor: "kzaher", repo: repo, date: start.addingTimeInterval(-120)),
                GitHubFixtures.Event(
                    id: "7001", type: "ForkEvent", actor: "kzaher", repo: repo, date: start.addingTimeInterval(-180)),
            ], to: path)
        let again = api.transport()
        let second = await harness.poll(GitHubSource.self, feed: feed(api, options), transport: again).report
        #expect(again.requests.count == 1)
        #expect(second.new == 1)
        #expect(second.newIDs == ["7002"])
        #expect(
            try await harness.store.items(feed: "rx").allSatisfy {
                ["WatchEvent", "IssuesEvent"].contains($0.groups[0])
            })
    }

    @Test("an unknown event type and the slim payloads of 2025 still make items")
    func unknownAndSlim() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        let start = ManualClock.start
        api.setEvents(
            [
                GitHubFixtures.Event(
                    id: "3", type: "SomethingNewEvent", actor: "octocat", repo: repo, date: start,
                    payload: .object([("novelty", .array([1, 2]))])),
                GitHubFixtures.Event(
                    id: "2", type: "PushEvent", actor: "kzaher", repo: repo, date: start.addingTimeInterval(-60),
                    payload: .object([
                        ("repository_id", 33_569_135), ("push_id", 6_080_608_029), ("ref", "refs/heads/develop"),
                        ("head", "eb1a60c03544dcea290f2d57bb66ae188ce25778"),
                        ("before", "9b2afb3a8e03fb30cc09e5efb64823bde802cf59"),
                    ])),
                GitHubFixtures.Event(
                    id: "1", type: "PullRequestEvent", actor: "0xTim", repo: repo, date: start.addingTimeInterval(-120),
                    payload: .object([("action", "opened"), ("number", 3120)])),
            ], of: path)
        let report = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport()).report
        #expect(report.status == .ok)
        #expect(
            report.latest.map(\.title) == [
                "octocat: SomethingNewEvent in ReactiveX/RxSwift", "kzaher pushed to develop",
                "0xTim opened pull request #3120 in ReactiveX/RxSwift",
            ])
        #expect(
            report.latest.map(\.url) == [
                "https://github.test/ReactiveX/RxSwift",
                "https://github.test/ReactiveX/RxSwift/compare/9b2afb3a8e03fb30cc09e5efb64823bde802cf59...eb1a60c03544dcea290f2d57bb66ae188ce25778",
                "https://github.test/ReactiveX/RxSwift/pull/3120",
            ])
        #expect(
            report.groups == [
                .init(id: "PullRequestEvent", title: "PullRequestEvent", count: 1, new: 1),
                .init(id: "PushEvent", title: "PushEvent", count: 1, new: 1),
                .init(id: "SomethingNewEvent", title: "SomethingNewEvent", count: 1, new: 1),
            ])
    }

    @Test("an event that cannot be read is left out, the others still make items")
    func oddEvent() async throws {
        let harness = PollHarness()
        let events = GitHubFixtures.eventsJSON(pushes(2, firstID: 11))
        // An element without an id or a date between the two good ones.
        let body = events.replacingOccurrences(of: "},{\"id\"", with: "},{\"type\":\"PushEvent\"},{\"id\"")
        #expect(body.count > events.count)
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array(body.utf8)) }
        let report = await harness.poll(
            GitHubSource.self, feed: PollHarness.feed(GitHubSource.self, name: "rx", options: ["repo": .string(repo)]),
            transport: transport
        ).report
        #expect(report.status == .ok)
        #expect(report.latest.map(\.id) == ["11", "10"])
    }

    @Test("a response that is not a list of events fails the poll with a readable error")
    func notEvents() async throws {
        let harness = PollHarness()
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array(#"{"message":"hello"}"#.utf8)) }
        let report = await harness.poll(
            GitHubSource.self, feed: PollHarness.feed(GitHubSource.self, name: "rx", options: ["repo": .string(repo)]),
            transport: transport
        ).report
        #expect(report.status == .failed)
        #expect(report.error == "the events response is not a JSON list of events")
    }

    @Test("a next page on another host is not followed (it would be sent the token)")
    func foreignNextPage() async throws {
        let harness = PollHarness()
        let body = GitHubFixtures.eventsJSON(pushes(30, firstID: 100))
        let transport = StubTransport { _ in
            HTTPResponse(
                status: 200, headers: ["Link": GitHubFixtures.link(next: "https://elsewhere.test/events?page=2")],
                body: Array(body.utf8))
        }
        let options: [String: OptionValue] = [
            "repo": .string(repo), "token": .string("ghp_secret"), "keep": .integer(100), "details": .boolean(false),
        ]
        let report = await harness.poll(
            GitHubSource.self, feed: PollHarness.feed(GitHubSource.self, name: "rx", options: options),
            transport: transport
        ).report
        #expect(report.items == 30)
        #expect(transport.requests.map(\.url) == ["https://api.github.com/repos/\(repo)/events?per_page=100"])
    }

    @Test(
        "an organisation's or a user's events are followed the same way",
        arguments: [("org", "swift-server", "orgs/swift-server"), ("user", "kzaher", "users/kzaher")])
    func orgAndUser(option: String, name: String, eventsPath: String) async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        api.setEvents(pushes(170, firstID: 300), of: eventsPath)
        let transport = api.transport()
        let feed = PollHarness.feed(
            GitHubSource.self, name: "who",
            options: [option: .string(name), "api": .string(api.root), "keep": .integer(150)])
        let report = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
        #expect(report.status == .ok)
        #expect(
            transport.requests.map(\.url) == [
                "https://api.github.test/\(eventsPath)/events?per_page=100",
                "https://api.github.test/\(eventsPath)/events?per_page=100&page=2",
            ])
        #expect((report.items, report.new) == (150, 150))
    }
}
