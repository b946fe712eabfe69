import Foundation
import MonitorItems
import MonitorOptions
import TestSupport
import Testing

@testable import MonitorCore

/// A source that returns fixed items whose `kind` detail the report breaks each group's count down by.
private struct KindsSource: FeedSource {
    static let type = "kinds"
    static let summary = "Fixed items with a kind"
    static let options: [any OptionDeclaration] = []
    static var breakdown: Breakdown? { Breakdown(detail: "kind", values: ["open", "closed"]) }

    let options: FeedOptions

    init(options: FeedOptions) { self.options = options }

    var retention: ItemRetention { .replace }

    func poll(_ context: PollContext, _ found: Findings) async throws {
        let date = Date(timeIntervalSince1970: 1_000_000)
        let item = { (id: String, groups: [String], kind: String?) in
            Item(id: id, title: id, date: date, groups: groups, details: kind.map { [Detail("kind", $0)] } ?? [])
        }
        found.groups([ItemGroup(id: "a", title: "A"), ItemGroup(id: "b", title: "B")])
        found.items([
            item("1", ["a"], "open"), item("2", ["a", "b"], "closed"), item("3", ["a"], "open"), item("4", ["b"], nil),
        ])
        found.completed(["a", "b"])
    }
}

/// The same items, from a source that names no breakdown detail.
private struct PlainSource: FeedSource {
    static let type = "plain"
    static let summary = "Fixed items without a breakdown"
    static let options: [any OptionDeclaration] = []
    let inner: KindsSource

    init(options: FeedOptions) { inner = KindsSource(options: options) }

    var retention: ItemRetention { .replace }

    func poll(_ context: PollContext, _ found: Findings) async throws { try await inner.poll(context, found) }
}

@Suite("Per-group breakdown of the counts by a detail the source names")
struct PollBreakdownTests {
    @Test("each group's items are counted by their value of the detail; items without it are left out")
    func breakdown() async throws {
        let harness = PollHarness()
        let transport = StubTransport { _ in HTTPResponse(status: 200) }
        let report = await harness.poll(
            KindsSource.self, feed: PollHarness.feed(KindsSource.self), transport: transport
        ).report
        #expect(
            report.groups == [
                .init(id: "a", title: "A", count: 3, new: 3, breakdown: ["open": 2, "closed": 1]),
                .init(id: "b", title: "B", count: 2, new: 2, breakdown: ["closed": 1]),
            ])
    }

    @Test("a source that names no detail gets no breakdown")
    func none() async throws {
        #expect(PlainSource.breakdown == nil)
        let harness = PollHarness()
        let transport = StubTransport { _ in HTTPResponse(status: 200) }
        let report = await harness.poll(
            PlainSource.self, feed: PollHarness.feed(PlainSource.self), transport: transport
        ).report
        #expect(report.groups.map(\.breakdown) == [[:], [:]])
        #expect(report.groups.map(\.count) == [3, 2])
    }
}
