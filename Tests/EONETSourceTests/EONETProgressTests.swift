import EONETSource
import Foundation
import TestSupport
import Testing

@testable import MonitorCore

@Suite(
    "Category downloads: bounded concurrency, progress, and counts that fill in one category at a time",
    .timeLimit(.minutes(5)))
struct EONETProgressTests {
    @Test("at most `concurrency` category downloads are in flight, and that many at once", arguments: [1, 2, 4])
    func boundedConcurrency(limit: Int) async throws {
        let harness = PollHarness()
        let server = EONETServer(together: limit)
        let feed = planetFeed(["concurrency": .integer(limit)])
        let report = await harness.poll(EONETSource.self, feed: feed, transport: server.transport).report
        #expect(report.status == .ok)
        #expect(report.counts == EONETPollTests.planetCounts)
        #expect(server.maxInFlight == limit)
    }

    @Test("the feed's concurrency is capped by settings.concurrency")
    func cappedBySettings() async throws {
        var settings = Settings()
        settings.concurrency = 3
        let harness = PollHarness(settings: settings)
        let server = EONETServer(together: 3)
        let feed = planetFeed(["concurrency": .integer(8)])
        _ = await harness.poll(EONETSource.self, feed: feed, transport: server.transport)
        #expect(server.maxInFlight == 3)
    }

    @Test("the default concurrency is 2, as the classic app's maxConcurrent")
    func defaultConcurrency() async throws {
        let harness = PollHarness()
        let server = EONETServer(together: 2)
        _ = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport)
        #expect(server.maxInFlight == 2)
    }

    @Test("progress counts requests done of 1 + the categories, step by step up to (14, 14)")
    func progress() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let views = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport).views
        var steps: [[Int?]] = []
        for view in views where steps.last != [view.done, view.total] { steps.append([view.done, view.total]) }
        #expect(steps == [[0, nil]] + (1...14).map { [$0, 14] })
    }

    @Test("the first poll shows every category at 0 from the start, then each count as its response arrives")
    func firstPollStartsAtZero() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let feed = planetFeed(["concurrency": .integer(1)])
        let views = await harness.poll(EONETSource.self, feed: feed, transport: server.transport).views
        let catalogued = try #require(views.first { !$0.groups.isEmpty })
        #expect(catalogued.groups.map(\.id) == categoryIDs)
        #expect(catalogued.groups.allSatisfy { $0.count == 0 })
        #expect(
            Self.changes(in: views.filter { !$0.groups.isEmpty }) == [
                // Server order; a category whose count stays 0 shows no change.
                ["dustHaze": 1], ["floods": 2], ["seaLakeIce": 1], ["severeStorms": 4], ["volcanoes": 2],
                ["wildfires": 4],
            ])
    }

    @Test("a later poll shows the stored counts first, then replaces them one category at a time")
    func laterPollStartsFromStoredCounts() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let feed = planetFeed(["concurrency": .integer(1)])
        _ = await harness.poll(EONETSource.self, feed: feed, transport: server.transport)

        var later = EONETFixtures.planet
        later.removeAll { ["EONET_9014", "EONET_9004"].contains($0.id) }
        later.append(
            EONETFixtures.Event(
                id: "EONET_9021", title: "Papa Fire", categories: ["wildfires"],
                geometry: [.init(date: EONETFixtures.daysAgo(1), shape: .point(longitude: -120, latitude: 38))]))
        later.append(
            EONETFixtures.Event(
                id: "EONET_9022", title: "Quebec Volcano", categories: ["volcanoes"],
                geometry: [.init(date: EONETFixtures.daysAgo(1), shape: .point(longitude: 15, latitude: 37.7))]))
        server.serve(later)
        let (report, views) = await harness.poll(EONETSource.self, feed: feed, transport: server.transport)
        #expect(views.first?.counts == EONETPollTests.planetCounts)
        #expect(views.first?.groups.map(\.id) == categoryIDs)
        #expect(
            Self.changes(in: views) == [
                ["dustHaze": 0], ["severeStorms": 3], ["volcanoes": 3], ["wildfires": 5],
            ])
        #expect(report.counts["wildfires"] == 5)
        #expect(report.new == 2)
    }

    /// The counts that changed from each view to the next, views without a change left out.
    static func changes(in views: [FeedView]) -> [[String: Int]] {
        zip(views, views.dropFirst()).compactMap { before, after in
            let changed = after.counts.filter { before.counts[$0.key] != $0.value }
            return changed.isEmpty ? nil : changed
        }
    }
}
