import Foundation
import JSONAPISource
import MonitorCore
import MonitorItems
import MonitorOptions
import TestSupport
import Testing

/// The `json` source on answers that are not what its paths expect: garbage, nothing, an id that is a list.
@Suite("json: garbage and odd items, with exact messages and nothing stored lost")
struct JSONAPIEdgeTests {
    static let url = "http://api.example/items"

    /// Polls `bodies` in order, returning the reports and the items stored.
    static func poll(_ bodies: [String]) async throws -> (reports: [PollReport], items: [Item]) {
        let harness = PollHarness()
        let feed = PollHarness.feed(
            JSONAPISource.self, name: "j", options: ["url": .string(url), "items": .string("items[*]")])
        var reports: [PollReport] = []
        for body in bodies {
            let transport = StubTransport { _ in
                HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
            }
            reports.append(await harness.poll(JSONAPISource.self, feed: feed, transport: transport).report)
        }
        return (reports, try await harness.store.items(feed: "j"))
    }

    @Test("garbage and an empty body fail the poll saying where; what was stored stays")
    func garbage() async throws {
        let (reports, items) = try await Self.poll([#"{"items":[{"id":1,"title":"one"}]}"#, "<html>", ""])
        #expect(reports.map(\.status) == [.ok, .failed, .failed])
        #expect(
            reports.dropFirst().map(\.error) == [
                "GET \(Self.url): not valid JSON: unexpected '<' at byte 1",
                "GET \(Self.url): not valid JSON: the body is empty",
            ])
        #expect(items.map(\.id) == ["1"])
    }

    @Test("an item whose id is a list, or missing, is a failed part; the others are stored")
    func oddIDs() async throws {
        let (reports, items) = try await Self.poll([#"{"items":[{"id":[1]},{"title":"x"},{"id":"k","title":"ok"}]}"#])
        #expect(reports.map(\.status) == [.partial])
        #expect(
            reports.first?.error
                == "item 1: 'id: id': it is not a text or a number; item 2: 'id: id': 'id' matched nothing: it has 'title'"
        )
        #expect(items.map(\.id) == ["k"])
    }
}
