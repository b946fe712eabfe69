import Foundation
import MonitorItems
import MonitorOptions
import TestSupport
import Testing

@testable import MonitorCore

@Suite("A feed's where: items it does not match are dropped as they leave the source")
struct FeedRuleTests {
    /// `a` answers five items (a-0 … a-4), `b` three (b-0 … b-2), or 304 when `bUnchanged`.
    static func transport(bUnchanged: Bool = false) -> StubTransport {
        StubTransport { request in
            if request.url.hasSuffix("/b") {
                return bUnchanged
                    ? HTTPResponse(status: 304, headers: ["ETag": "\"b\""])
                    : HTTPResponse(status: 200, headers: ["ETag": "\"b\""], body: Array("3".utf8))
            }
            return HTTPResponse(status: 200, body: Array("5".utf8))
        }
    }

    static func feed(where rule: String?) -> FeedConfig {
        var options: [String: OptionValue] = ["urls": .list(["http://x/a", "http://x/b"])]
        if let rule { options["where"] = .string(rule) }
        return PollHarness.feed(ScriptedSource.self, options: options)
    }

    @Test("neither stored, counted, shown nor reported")
    func dropped() async throws {
        let harness = PollHarness()
        let (report, views) = await harness.poll(
            ScriptedSource.self, feed: Self.feed(where: #"id ~ "^a-[0-2]$" or id == "b-1""#),
            transport: Self.transport())
        #expect(report.status == .ok)
        #expect(report.items == 4)
        #expect(report.new == 4)
        #expect(Set(report.newIDs) == ["a-0", "a-1", "a-2", "b-1"])
        #expect(report.groups.map { "\($0.id)=\($0.count)/\($0.new)" } == ["a=3/3", "b=1/1"])
        #expect(views.last?.items == 4)
        #expect(try await harness.store.items(feed: "test").map(\.id).sorted() == ["a-0", "a-1", "a-2", "b-1"])
        #expect(try await harness.store.record(feed: "test")?.itemCount == 4)
    }

    @Test("items stored before the rule was written are dropped too, those a 304 carries included")
    func storedBefore() async throws {
        let harness = PollHarness()
        let first = await harness.poll(ScriptedSource.self, feed: Self.feed(where: nil), transport: Self.transport())
        #expect(first.report.items == 8)
        let (report, _) = await harness.poll(
            ScriptedSource.self, feed: Self.feed(where: #"id != "a-4" and id != "b-2""#),
            transport: Self.transport(bUnchanged: true))
        #expect(report.status == .ok)
        #expect(report.items == 6)
        #expect(report.new == 0)
        #expect(report.groups.map { "\($0.id)=\($0.count)" } == ["a=4", "b=2"])
        #expect(
            try await harness.store.items(feed: "test").map(\.id).sorted() == [
                "a-0", "a-1", "a-2", "a-3", "b-0", "b-1",
            ])
    }

    @Test(
        "a stored item the rule drops that the answer brings back matching (its title changed) is stored but not new")
    func storedFormDiffers() async throws {
        let harness = PollHarness()
        // a-0 … a-4 stored under other titles (as a state an earlier version wrote might hold them), then the rule.
        var record = FeedRecord(name: "test", type: ScriptedSource.type)
        record.lastPoll = Date(timeIntervalSince1970: 1_000_000)
        let old = (0..<5).map {
            Item(
                id: "a-\($0)", title: "old \($0)", date: Date(timeIntervalSince1970: Double(1_000_000 + $0)),
                groups: ["a"])
        }
        try await harness.store.commit(
            PollCommit(
                record: record, items: old, firstSeen: record.lastPoll!, groups: nil, validators: [:], values: [:]),
            feed: "test")
        let (report, _) = await harness.poll(
            ScriptedSource.self, feed: Self.feed(where: #"title ~ "^a ""#), transport: Self.transport())
        #expect(report.status == .ok)
        #expect(report.items == 5)
        #expect(report.new == 0)
        #expect(report.newIDs.isEmpty)
        #expect(try await harness.store.items(feed: "test").map(\.title).sorted() == (0..<5).map { "a \($0)" })
    }

    @Test("an item a loosened rule lets through is stored but not new: the source reported it before")
    func loosened() async throws {
        let harness = PollHarness()
        let strict = await harness.poll(
            ScriptedSource.self, feed: Self.feed(where: #"id ~ "^a-[0-2]$""#), transport: Self.transport())
        #expect(strict.report.new == 3)
        let wider = await harness.poll(
            ScriptedSource.self, feed: Self.feed(where: #"id ~ "^a-""#), transport: Self.transport())
        #expect(wider.report.items == 5)
        #expect(wider.report.new == 0)
        #expect(try await harness.store.snapshot(feed: "test").values["monitor.rule.dropped"] == "b-0\nb-1\nb-2")
        // Narrowed (a-4 no longer stored), then no rule at all: every item is stored, none new, none remembered.
        _ = await harness.poll(
            ScriptedSource.self, feed: Self.feed(where: #"id != "a-4""#), transport: Self.transport())
        let all = await harness.poll(ScriptedSource.self, feed: Self.feed(where: nil), transport: Self.transport())
        #expect(all.report.items == 8)
        #expect(all.report.new == 0)
        #expect(try await harness.store.snapshot(feed: "test").values["monitor.rule.dropped"] == nil)
    }
}
