import Foundation
import GitHubSource
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore

/// The token of these tests: it must be sent, and never be seen anywhere else.
private let token = "ghp_N3verShowMeAnywhere0123456789abcdef"

@Suite("The token is sent as a Bearer credential and never shown or stored")
struct GitHubTokenTests {
    @Test("the token is not in any report, summary, stored value or byte of the state files")
    func neverStored() async throws {
        let directory = try TemporaryDirectory()
        let harness = PollHarness(store: try SQLiteStateStore(directory: directory.url), keeping: directory)
        let api = GitHubFixtures.API(token: token)
        let start = ManualClock.start
        api.setEvents(GitHubFixtures.pushes(150, repo: "a/b", firstID: 500, newest: start), of: "repos/a/b")
        api.setSearch("topic:monitor", finds: ["a/b", "c/d"])
        api.setEvents(GitHubFixtures.pushes(10, repo: "c/d", firstID: 900, newest: start), of: "repos/c/d")
        let clock = ManualClock.fixed()
        let repoFeed = PollHarness.feed(
            GitHubSource.self, name: "repo",
            options: [
                "repo": .string("a/b"), "api": .string(api.root), "token": .string(token), "keep": .integer(120),
            ])
        let searchFeed = PollHarness.feed(
            GitHubSource.self, name: "search",
            options: ["search": .string("topic:monitor"), "api": .string(api.root), "token": .string(token)])
        let transport = api.transport()

        var reports: [PollReport] = []
        // A full sync over two pages, a 304, a search feed, and a failure whose message is stored.
        reports.append(
            await harness.poll(GitHubSource.self, feed: repoFeed, transport: transport, clock: clock).report)
        reports.append(
            await harness.poll(GitHubSource.self, feed: repoFeed, transport: transport, clock: clock).report)
        reports.append(
            await harness.poll(GitHubSource.self, feed: searchFeed, transport: transport, clock: clock).report
        )
        api.override("repos/a/b/events", with: GitHubFixtures.API.error(404, "Not Found"))
        reports.append(
            await harness.poll(GitHubSource.self, feed: repoFeed, transport: transport, clock: clock).report)
        #expect(reports.map(\.status) == [.ok, .notModified, .ok, .failed])

        // The token was in play: every request carried it.
        #expect(transport.requests.count == 7)
        #expect(transport.requests.allSatisfy { $0.headers["Authorization"] == "Bearer \(token)" })

        let source = GitHubSource(options: repoFeed.options)
        for report in reports {
            #expect(!report.json.text.contains(token))
            #expect(!source.summary(of: report, now: clock.date).contains(token))
            #expect(!"\(report.error ?? "")".contains(token))
        }
        for feed in ["repo", "search"] {
            let snapshot = try await harness.store.snapshot(feed: feed)
            #expect(!snapshot.values.description.contains(token))
            #expect(!snapshot.items.description.contains(token))
            let lastError = snapshot.record?.lastError ?? ""
            #expect(lastError.contains(token) == false)
            // Validators are told apart by a fingerprint of the token.
            #expect(!snapshot.validators.isEmpty)
            #expect(snapshot.validators.keys.allSatisfy { $0.credential == ValidatorKey.fingerprint(token) })
        }

        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(files.contains("state.sqlite"))
        #expect(harness.store.location == directory.url.appendingPathComponent("state.sqlite").path)
        let needle = Data(token.utf8)
        let fingerprint = Data(ValidatorKey.fingerprint(token).utf8)
        var sawFingerprint = false
        for name in files where name.hasPrefix("state.sqlite") {
            let bytes = try Data(contentsOf: directory.url.appendingPathComponent(name))
            #expect(bytes.range(of: needle) == nil, "the token is in \(name)")
            if bytes.range(of: fingerprint) != nil { sawFingerprint = true }
        }
        // The search for the token's bytes is not vacuous: the fingerprint stored beside it is found.
        #expect(sawFingerprint)
    }
}
