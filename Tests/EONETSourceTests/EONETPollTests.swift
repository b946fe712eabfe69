import EONETSource
import Foundation
import TestSupport
import Testing

@testable import MonitorCore

@Suite("Polling EONET: the category list, then each category's events, counted per category")
struct EONETPollTests {
    /// The `planet` fixture over the last 360 days: see `EONETFixtures.planet`.
    static let planetCounts: [String: Int] = [
        "drought": 0, "dustHaze": 1, "earthquakes": 0, "floods": 2, "landslides": 0, "manmade": 0, "seaLakeIce": 1,
        "severeStorms": 4, "snow": 0, "tempExtremes": 0, "volcanoes": 2, "waterColor": 0, "wildfires": 4,
    ]

    @Test("counts per category equal the fixture's, zero-count categories included, in the server's order")
    func countsPerCategory() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let (report, views) = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport)
        #expect(report.status == .ok)
        #expect(report.error == nil)
        #expect(report.groups.map(\.id) == categoryIDs)
        #expect(report.groups.map(\.title) == EONETFixtures.categories.map(\.title))
        #expect(report.counts == Self.planetCounts)
        // The same counts, derived from the fixture the other way: what the server lists per category.
        for category in categoryIDs {
            let listed = EONETFixtures.matching(EONETFixtures.planet, categories: [category], days: 360).count
            #expect(report.counts[category] == listed, "\(category)")
        }
        #expect(report.items == 13)
        #expect(report.new == 13)
        #expect(report.requests == 14)
        #expect(views.last.map { [$0.done, $0.total] } == [14, 14])
        #expect(views.last?.counts == Self.planetCounts)
        #expect(try await harness.store.items(feed: "planet").count == 13)
    }

    @Test("an event in two categories counts in both and once in the total, whichever response came last")
    func eventInTwoCategories() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let report = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport).report
        let stored = try await harness.store.items(feed: "planet")
        let bravo = try #require(stored.first { $0.id == "EONET_9002" })
        #expect(bravo.groups == ["severeStorms", "floods"])
        #expect(report.counts["severeStorms"] == 4)
        #expect(report.counts["floods"] == 2)
        #expect(report.groups.map(\.count).reduce(0, +) == 14)
        #expect(report.items == 13)
        #expect(stored.filter { $0.id == "EONET_9002" }.count == 1)
    }

    @Test("the category list is asked first, then each category's events with status, days and limit")
    func exactURLs() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let feed = planetFeed([
            "status": .string("open"), "days": .integer(30), "limit": .integer(5), "concurrency": .integer(1),
        ])
        let report = await harness.poll(EONETSource.self, feed: feed, transport: server.transport).report
        #expect(report.status == .ok)
        #expect(
            server.urls
                == ["http://eonet.test/api/v3/categories"]
                + categoryIDs.map { eventsURL($0, status: "open", days: 30, limit: 5) })
        #expect(
            server.urls[8] == "http://eonet.test/api/v3/events?category=severeStorms&status=open&days=30&limit=5")
        #expect(server.transport.requests.allSatisfy { $0.method == "GET" })
    }

    @Test("an API root with a trailing slash is not doubled, and the default asks for everything of 360 days")
    func trailingSlash() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let feed = planetFeed(["api": .string("http://eonet.test/api/v3/"), "categories": .list(["snow"])])
        _ = await harness.poll(EONETSource.self, feed: feed, transport: server.transport)
        #expect(
            server.urls == [
                "http://eonet.test/api/v3/categories",
                "http://eonet.test/api/v3/events?category=snow&status=all&days=360",
            ])
    }

    /// A poll's status and days, with the counts the fixture gives for them (categories at 0 left out).
    struct Window: Sendable, CustomTestStringConvertible {
        var status: String
        var days: Int
        var counts: [String: Int]
        var distinct: Int
        var testDescription: String { "status \(status), \(days) days" }
    }

    @Test(
        "status and days are asked of the server, and the counts are those of the window",
        arguments: [
            Window(
                status: "all", days: 360,
                counts: [
                    "dustHaze": 1, "floods": 2, "seaLakeIce": 1, "severeStorms": 4, "volcanoes": 2, "wildfires": 4,
                ],
                distinct: 13),
            Window(
                status: "all", days: 30,
                counts: [
                    "dustHaze": 1, "floods": 2, "seaLakeIce": 1, "severeStorms": 3, "volcanoes": 1, "wildfires": 2,
                ],
                distinct: 9),
            Window(
                status: "open", days: 360,
                counts: ["floods": 2, "seaLakeIce": 1, "severeStorms": 2, "volcanoes": 2, "wildfires": 2], distinct: 8),
            Window(
                status: "closed", days: 360, counts: ["dustHaze": 1, "severeStorms": 2, "wildfires": 2], distinct: 5),
            Window(status: "all", days: 1, counts: ["dustHaze": 1], distinct: 1),
        ])
    func window(_ window: Window) async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let feed = planetFeed(["status": .string(window.status), "days": .integer(window.days)])
        let report = await harness.poll(EONETSource.self, feed: feed, transport: server.transport).report
        #expect(report.status == .ok)
        #expect(report.counts.filter { $0.value > 0 } == window.counts)
        #expect(report.groups.count == 13)
        #expect(report.items == window.distinct)
        #expect(
            Set(server.urls.dropFirst())
                == Set(categoryIDs.map { eventsURL($0, status: window.status, days: window.days) }))
    }

    @Test("the days filter: a 30-day feed keeps only the events active in the last 30 days")
    func daysFilter() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let feed = planetFeed(["days": .integer(30), "categories": .list(["wildfires"])])
        let report = await harness.poll(EONETSource.self, feed: feed, transport: server.transport).report
        #expect(report.counts == ["wildfires": 2])
        let stored = try await harness.store.items(feed: "planet")
        #expect(stored.map(\.id) == ["EONET_9006", "EONET_9007"])
        let cutoff = EONETFixtures.daysAgo(30)
        #expect(stored.allSatisfy { $0.date >= cutoff })
        #expect(server.urls.last == eventsURL("wildfires", days: 30))
    }

    @Test("only the categories asked for are fetched and shown, in the server's order, and items name only them")
    func selectedCategories() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let feed = planetFeed(["categories": .list(["wildfires", "floods", "wildfires"])])
        let (report, views) = await harness.poll(EONETSource.self, feed: feed, transport: server.transport)
        #expect(report.status == .ok)
        #expect(report.groups.map(\.id) == ["floods", "wildfires"])
        #expect(report.counts == ["floods": 2, "wildfires": 4])
        #expect(report.items == 6)
        #expect(server.urls.count == 3)
        #expect(Set(server.urls.dropFirst()) == [eventsURL("floods"), eventsURL("wildfires")])
        // EONET_9002 is also a severe storm, but severeStorms is not polled: no partial row for it.
        let stored = try await harness.store.items(feed: "planet")
        #expect(stored.first { $0.id == "EONET_9002" }?.groups == ["floods"])
        #expect(views.last?.groups.map(\.id) == ["floods", "wildfires"])
        #expect(views.last.map { [$0.done, $0.total] } == [3, 3])
    }

    @Test(
        "an unknown category fails the poll before any event is fetched, with the valid ones and a did-you-mean",
        arguments: [
            (
                ["wildfire"],
                "unknown category 'wildfire' (did you mean 'wildfires'? valid: drought, dustHaze, earthquakes, floods, landslides, manmade, seaLakeIce, severeStorms, snow, tempExtremes, volcanoes, waterColor, wildfires)"
            ),
            (
                ["volcanoes", "severestorm"],
                "unknown category 'severestorm' (did you mean 'severeStorms'? valid: drought, dustHaze, earthquakes, floods, landslides, manmade, seaLakeIce, severeStorms, snow, tempExtremes, volcanoes, waterColor, wildfires)"
            ),
            (
                ["tsunamis"],
                "unknown category 'tsunamis' (valid: drought, dustHaze, earthquakes, floods, landslides, manmade, seaLakeIce, severeStorms, snow, tempExtremes, volcanoes, waterColor, wildfires)"
            ),
            (
                ["wildfire", "tsunamis"],
                "unknown categories 'wildfire' (did you mean 'wildfires'?), 'tsunamis' (valid: drought, dustHaze, earthquakes, floods, landslides, manmade, seaLakeIce, severeStorms, snow, tempExtremes, volcanoes, waterColor, wildfires)"
            ),
        ])
    func unknownCategory(categories: [String], message: String) async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let report = await harness.poll(
            EONETSource.self, feed: planetFeed(["categories": .list(categories)]), transport: server.transport
        ).report
        #expect(report.status == .failed)
        #expect(report.error == message)
        #expect(server.urls == ["http://eonet.test/api/v3/categories"])
        #expect(try await harness.store.items(feed: "planet").isEmpty)
    }

    @Test("one failing category makes the poll partial, names it, and keeps its stored events poll after poll")
    func failingCategory() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        let first = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport).report
        #expect(first.status == .ok)

        // Second poll: a new volcano, and wildfires fails (a 500 is retried twice first).
        var later = EONETFixtures.planet
        later.append(
            EONETFixtures.Event(
                id: "EONET_9020", title: "Oscar Volcano", categories: ["volcanoes"],
                geometry: [.init(date: EONETFixtures.daysAgo(1), shape: .point(longitude: 14.4, latitude: 40.8))]))
        server.serve(later)
        server.fail(["wildfires"])
        let requestsBefore = server.urls.count
        let second = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport).report
        #expect(second.status == .partial)
        #expect(
            second.error
                == "category 'wildfires': GET http://eonet.test/api/v3/events?category=wildfires&status=all&days=360: HTTP 500 Internal Server Error: database unavailable (after 3 attempts)"
        )
        var expected = Self.planetCounts
        expected["volcanoes"] = 3
        #expect(second.counts == expected)
        #expect(second.items == 14)
        #expect(second.new == 1)
        #expect(server.urls.count - requestsBefore == 1 + 12 + 3)

        // Third poll: wildfires fails again; its events of the first poll are still counted.
        let third = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport).report
        #expect(third.status == .partial)
        #expect(third.counts == expected)
        #expect(third.counts["wildfires"] == 4)
        let stored = try await harness.store.items(feed: "planet")
        #expect(
            stored.filter { $0.groups.contains("wildfires") }.map(\.id).sorted()
                == ["EONET_9006", "EONET_9007", "EONET_9008", "EONET_9009"])
    }

    @Test("a category failing on the first poll shows 0 and the others are counted")
    func failingOnFirstPoll() async throws {
        let harness = PollHarness()
        let server = EONETServer()
        server.fail(["severeStorms"])
        let report = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport).report
        #expect(report.status == .partial)
        #expect(report.error?.hasPrefix("category 'severeStorms': GET ") == true)
        var expected = Self.planetCounts
        expected["severeStorms"] = 1  // EONET_9002 still arrives through floods, and it is a severe storm
        #expect(report.counts == expected)
        #expect(report.items == 10)
    }

    @Test("a category answering something that is not EONET JSON fails that category only")
    func undecodableCategory() async throws {
        let harness = PollHarness()
        let transport = StubTransport { request in
            if request.url.contains("category=volcanoes") {
                return HTTPResponse(status: 200, body: Array(#"{"events": [{"id": "EONET_1", "geometry": 3}]}"#.utf8))
            }
            return EONETFixtures.response(to: request)
        }
        let report = await harness.poll(EONETSource.self, feed: planetFeed(), transport: transport).report
        #expect(report.status == .partial)
        #expect(
            report.error
                == "category 'volcanoes': GET http://eonet.test/api/v3/events?category=volcanoes&status=all&days=360: not an EONET event list (at events[0].geometry: expected a list)"
        )
        #expect(report.counts["volcanoes"] == 0)
        #expect(report.counts["wildfires"] == 4)
    }

    @Test("the validators of an answer that could not be read are not kept: the next request is not a 304 for it")
    func undecodableCategoryKeepsNoValidators() async throws {
        let harness = PollHarness()
        let transport = StubTransport { request in
            var response = EONETFixtures.response(to: request)
            response.headers.set("ETag", #""v1""#)
            if request.url.contains("category=volcanoes") { response.body = Array("not json".utf8) }
            return response
        }
        let report = await harness.poll(EONETSource.self, feed: planetFeed(), transport: transport).report
        #expect(report.status == .partial)
        let stored = try await harness.store.snapshot(feed: "planet").validators.keys.map(\.url)
        #expect(stored.contains { $0.contains("category=wildfires") })
        #expect(!stored.contains { $0.contains("category=volcanoes") })
    }

    @Test(
        "a category list that cannot be had fails the whole poll",
        arguments: [
            (
                HTTPResponse(status: 404, body: Array(#"{"message":"no such API"}"#.utf8)),
                "GET http://eonet.test/api/v3/categories: HTTP 404 Not Found: no such API"
            ),
            (
                HTTPResponse(status: 200, body: Array("<html>maintenance</html>".utf8)),
                "GET http://eonet.test/api/v3/categories: not an EONET category list (not valid JSON)"
            ),
            (
                HTTPResponse(status: 200, body: Array(#"{"title": "EONET Event Categories"}"#.utf8)),
                "GET http://eonet.test/api/v3/categories: not an EONET category list (missing 'categories')"
            ),
        ])
    func categoriesFail(response: HTTPResponse, message: String) async throws {
        let harness = PollHarness()
        let transport = StubTransport { _ in response }
        let report = await harness.poll(EONETSource.self, feed: planetFeed(), transport: transport).report
        #expect(report.status == .failed)
        #expect(report.error == message)
        #expect(transport.requests.count == 1)
    }

    @Test("answered 304 everywhere, a poll is not_modified and counts the stored events again")
    func notModified() async throws {
        let harness = PollHarness()
        let server = EONETServer(etags: true)
        let first = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport).report
        #expect(first.status == .ok)
        let (second, views) = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport)
        #expect(second.status == .notModified)
        #expect(second.notModified == 14)
        #expect(second.counts == Self.planetCounts)
        #expect(second.items == 13)
        #expect(second.new == 0)
        #expect(views.last?.counts == Self.planetCounts)
        #expect(server.transport.requests.suffix(14).allSatisfy { $0.headers["If-None-Match"] != nil })
        #expect(try await harness.store.items(feed: "planet").count == 13)

        // One category changes: only it is answered 200, the others' stored events still count.
        var later = EONETFixtures.planet
        later.removeAll { $0.id == "EONET_9014" }
        server.serve(later)
        let third = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport).report
        #expect(third.status == .ok)
        #expect(third.notModified == 13)
        var expected = Self.planetCounts
        expected["dustHaze"] = 0
        #expect(third.counts == expected)
        #expect(third.items == 12)
    }

    @Test("stored events counted again after a 304 name only the categories polled now")
    func notModifiedAfterNarrowing() async throws {
        let harness = PollHarness()
        let server = EONETServer(etags: true)
        _ = await harness.poll(EONETSource.self, feed: planetFeed(), transport: server.transport)
        let (report, views) = await harness.poll(
            EONETSource.self, feed: planetFeed(["categories": .list(["floods"])]), transport: server.transport)
        #expect(report.status == .notModified)
        #expect(report.groups.map(\.id) == ["floods"])
        #expect(report.counts == ["floods": 2])
        #expect(views.last?.groups.map(\.id) == ["floods"])
        let stored = try await harness.store.items(feed: "planet")
        #expect(stored.first { $0.id == "EONET_9002" }?.groups == ["floods"])
    }

    @Test("the categories option is checked against the saved list when /categories answers 304")
    func unknownCategoryAfterNotModified() async throws {
        let harness = PollHarness()
        let server = EONETServer(etags: true)
        let all = await harness.poll(
            EONETSource.self, feed: planetFeed(["categories": .list(["snow"])]), transport: server.transport
        ).report
        #expect(all.status == .ok)
        // /categories answers 304 now: the whole list saved from the 200 is used, not only the polled category.
        let volcanoes = await harness.poll(
            EONETSource.self, feed: planetFeed(["categories": .list(["volcanoes"])]), transport: server.transport
        ).report
        #expect(volcanoes.status == .ok)
        #expect(volcanoes.counts == ["volcanoes": 2])
        #expect(server.transport.requests[2].headers["If-None-Match"] != nil)
        let typo = await harness.poll(
            EONETSource.self, feed: planetFeed(["categories": .list(["volcanos"])]), transport: server.transport
        ).report
        #expect(typo.error?.hasPrefix("unknown category 'volcanos' (did you mean 'volcanoes'? valid: drought,") == true)
    }
}
