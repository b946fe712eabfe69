import Foundation
import GitHubSource
import MonitorOptions
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorJSON

/// The repository these tests follow.
private let repo = "ReactiveX/RxSwift"
/// Its events under the API root.
private let path = "repos/ReactiveX/RxSwift"
/// The newest event stored by the first poll of each test: 2024-06-01T12:00:00Z.
private let stored = Date(timeIntervalSince1970: 1_717_243_200)

/// A feed named `rx` following `repo` on `api`, keeping `keep` events, of `types` when given.
private func feed(_ api: GitHubFixtures.API, keep: Int = 300, types: [String]? = nil) -> FeedConfig {
    var options: [String: OptionValue] = [
        "repo": .string(repo), "api": .string(api.root), "keep": .integer(keep), "details": .boolean(false),
    ]
    if let types { options["types"] = .list(types) }
    return PollHarness.feed(GitHubSource.self, name: "rx", options: options)
}

/// `count` pushes to `repo`, newest first from id `firstID` dated `newest`, a minute apart.
private func pushes(_ count: Int, firstID: Int, newest: Date) -> [GitHubFixtures.Event] {
    GitHubFixtures.pushes(count, repo: repo, firstID: firstID, newest: newest)
}

/// A harness whose state holds a first poll of `feed(api, keep:)`, 40 pushes the newest at `stored`, with its
/// report.
private func synced(keep: Int = 300) async -> (PollHarness, GitHubFixtures.API, PollReport) {
    let harness = PollHarness()
    let api = GitHubFixtures.API()
    api.setEvents(pushes(40, firstID: 5000, newest: stored), of: path)
    let first = await harness.poll(GitHubSource.self, feed: feed(api, keep: keep), transport: api.transport()).report
    return (harness, api, first)
}

@Suite("Events missed between two polls: GitHub's window of 300 events")
struct GitHubGapTests {
    @Test("more new events than the window: every page read, none stored reached — a gap, and the poll is ok")
    func beyondTheWindow() async throws {
        let (harness, api, first) = await synced()
        // A first sync reads every page and reaches nothing stored: it has nothing to miss.
        #expect((first.status, first.items, first.gap) == (.ok, 40, nil))

        // 350 events a day later: the API serves the newest 300, the oldest of them 19h01m after the stored one.
        api.prepend(pushes(350, firstID: 5350, newest: stored + 86_400), to: path)
        let transport = api.transport()
        let report = await harness.poll(GitHubSource.self, feed: feed(api), transport: transport).report
        #expect(transport.requests.count == 3)
        #expect(report.status == .ok)
        #expect(report.error == nil)
        #expect((report.items, report.new) == (300, 300))
        #expect(report.gap == PollGap(since: stored, until: stored + 86_400 - 299 * 60))
        #expect(
            SummaryText.headline(report).split(separator: "\n").last
                == "  older events may be missing: 2024-06-01T12:00:00Z to 2024-06-02T07:01:00Z (19h1m)")
        #expect(
            report.json.text.contains(
                #","gap":{"since":"2024-06-01T12:00:00Z","until":"2024-06-02T07:01:00Z"},"#))
        #expect(try await harness.store.record(feed: "rx")?.status == "ok")
    }

    @Test("an event dated 9999 is stored, but not read as the newest: the next poll's gap is seen")
    func farFuture() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        let year9999 = try #require(ISO8601.date("9999-12-31T00:00:00Z"))
        api.setEvents(pushes(1, firstID: 9000, newest: year9999) + pushes(40, firstID: 5000, newest: stored), of: path)
        let first = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport()).report
        #expect((first.status, first.items, first.gap) == (.ok, 41, nil))
        api.prepend(pushes(350, firstID: 5350, newest: stored + 86_400), to: path)
        let report = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport()).report
        // The feed keeps its newest 300: the one dated 9999 and 299 of the new ones.
        #expect((report.status, report.items, report.new) == (.ok, 300, 299))
        #expect(report.gap == PollGap(since: stored, until: stored + 86_400 - 299 * 60))
    }

    @Test("new events whose pages reach a stored event: no gap")
    func reachesStored() async throws {
        let (harness, api, _) = await synced()

        api.prepend(pushes(250, firstID: 5250, newest: stored + 86_400), to: path)
        let report = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport()).report
        #expect((report.status, report.new, report.gap) == (.ok, 250, nil))
        #expect(report.json.text.contains(#","gap":null"#))
    }

    @Test("a stored event anywhere on the last page, beyond keep, is reached: no gap")
    func storedBeyondKeep() async throws {
        let (harness, api, _) = await synced(keep: 150)

        // Page 2 of 100 holds the 50 newer events the feed still keeps, then stored ones.
        api.prepend(pushes(160, firstID: 5160, newest: stored + 86_400), to: path)
        let report = await harness.poll(GitHubSource.self, feed: feed(api, keep: 150), transport: api.transport())
            .report
        #expect((report.status, report.items, report.gap) == (.ok, 150, nil))
    }

    @Test("keep reached while the API offers more pages: the feed has what it keeps, no gap")
    func keepReached() async throws {
        let (harness, api, _) = await synced(keep: 50)

        api.prepend(pushes(350, firstID: 5350, newest: stored + 86_400), to: path)
        let transport = api.transport()
        let report = await harness.poll(GitHubSource.self, feed: feed(api, keep: 50), transport: transport).report
        #expect(transport.requests.count == 1)
        #expect((report.status, report.new, report.gap) == (.ok, 50, nil))
    }

    @Test("with types, events the previous poll read count as reached, none of them stored: no gap until one is missed")
    func typesFilter() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        let release = GitHubFixtures.Event(
            id: "4990", type: "ReleaseEvent", actor: "kzaher", repo: repo, date: stored - 86_400)
        api.setEvents(pushes(5, firstID: 5000, newest: stored) + [release], of: path)
        let releases = feed(api, keep: 50, types: ["ReleaseEvent"])
        let first = await harness.poll(GitHubSource.self, feed: releases, transport: api.transport()).report
        #expect((first.items, first.gap) == (1, nil))

        // The release left the window; the pushes read before are still in it, under 3 new ones.
        api.setEvents(pushes(8, firstID: 5003, newest: stored + 180), of: path)
        let second = await harness.poll(GitHubSource.self, feed: releases, transport: api.transport()).report
        #expect((second.status, second.items, second.new, second.gap) == (.ok, 1, 0, nil))

        // Only newer pushes in the window: the events between the last read (stored + 3 minutes) and them may be gone.
        api.setEvents(pushes(4, firstID: 5100, newest: stored + 3_600), of: path)
        let third = await harness.poll(GitHubSource.self, feed: releases, transport: api.transport()).report
        #expect(third.status == .ok)
        // `since` is the newest event the previous poll read, not the stored release.
        #expect(third.gap == PollGap(since: stored + 180, until: stored + 3_600 - 180))
    }

    @Test("a search: the busy repository's gap runs from what was read of it, not from the quiet one's newer event")
    func search() async throws {
        let harness = PollHarness()
        let api = GitHubFixtures.API()
        api.setSearch("language:swift", finds: ["a/busy", "b/quiet"])
        api.setEvents(GitHubFixtures.pushes(40, repo: "a/busy", firstID: 5000, newest: stored), of: "repos/a/busy")
        api.setEvents(
            GitHubFixtures.pushes(1, repo: "b/quiet", firstID: 9000, newest: stored + 80_000), of: "repos/b/quiet")
        let search = PollHarness.feed(
            GitHubSource.self, name: "rx",
            options: [
                "search": .string("language:swift"), "top": .integer(2), "api": .string(api.root),
                "keep": .integer(300),
            ])
        let first = await harness.poll(GitHubSource.self, feed: search, transport: api.transport()).report
        #expect((first.status, first.items, first.gap) == (.ok, 41, nil))

        api.prepend(
            GitHubFixtures.pushes(350, repo: "a/busy", firstID: 5350, newest: stored + 86_400), to: "repos/a/busy")
        let report = await harness.poll(GitHubSource.self, feed: search, transport: api.transport()).report
        #expect(report.status == .ok)
        #expect(report.gap == PollGap(since: stored, until: stored + 86_400 - 299 * 60))
    }

    @Test("an unchanged repository (304) has no gap")
    func notModified() async throws {
        let (harness, api, _) = await synced()
        let report = await harness.poll(GitHubSource.self, feed: feed(api), transport: api.transport()).report
        #expect((report.status, report.gap) == (.notModified, nil))
    }
}
