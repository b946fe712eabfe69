import Foundation
import MonitorItems
import Testing

@testable import MonitorCore

/// Items and tallies for the outcome's rules.
private enum Outcomes {
    static func item(_ id: String, _ groups: [String], day: Int, status: String? = nil) -> Item {
        Item(
            id: id, title: id, date: Date(timeIntervalSince1970: Double(day) * 86_400), groups: groups,
            details: status.map { [Detail("status", $0)] } ?? [])
    }

    static let stored = FeedSnapshot(
        record: {
            var record = FeedRecord(name: "f", type: "t")
            record.failures = 2
            record.itemCount = 3
            record.lastPoll = Date(timeIntervalSince1970: 100)
            return record
        }(),
        items: [item("a1", ["a"], day: 3), item("b1", ["a", "b"], day: 2), item("b2", ["b"], day: 1)],
        groups: [ItemGroup(id: "a", title: "A"), ItemGroup(id: "b", title: "B")])

    static let catalog = [ItemGroup(id: "a", title: "A"), ItemGroup(id: "b", title: "B")]

    static func tally(_ retention: ItemRetention, _ updates: [SourceUpdate], breakdown: String? = nil) -> PollTally {
        var tally = PollTally(stored: stored, retention: retention, breakdown: breakdown)
        for update in updates { tally.apply(update) }
        return tally
    }

    static func record() -> FeedRecord {
        var record = stored.record!
        record.lastPoll = Date(timeIntervalSince1970: 200)
        return record
    }
}

@Suite("A poll's outcome from its tally: status, items, counts and record, as a pure function")
struct PollOutcomeTests {
    @Test("a group answered 304 brings back its stored items; the other's live items replace the stored ones")
    func unchangedGroupCarried() {
        let tally = Outcomes.tally(
            .replace,
            [
                .groups(Outcomes.catalog), .unchanged(groups: ["a"]),
                .items([Outcomes.item("b3", ["b"], day: 4)]), .completed(groups: ["b"]),
            ])
        let outcome = PollOutcome(
            tally: tally, record: Outcomes.record(), statistics: .init(requests: 2, notModified: 1), thrown: nil,
            started: .distantPast)
        #expect(outcome.report.status == .ok)
        #expect(outcome.report.error == nil)
        // a1 and b1 (in a) come back; b1 still names b; b2 is gone; b3 is new.
        #expect(outcome.items?.map(\.id) == ["b3", "a1", "b1"])
        #expect(outcome.report.groups.map { [$0.id: $0.count] } == [["a": 2], ["b": 2]])
        #expect(outcome.report.groups.map(\.new) == [0, 1])
        #expect(outcome.report.newItems.map(\.id) == ["b3"])
        #expect(outcome.record.failures == 0)
        #expect(outcome.record.itemCount == 3)
        #expect(outcome.record.lastSuccess == Date(timeIntervalSince1970: 200))
        #expect(outcome.record.lastNew == Date(timeIntervalSince1970: 200))
        #expect(outcome.record.status == "ok")
    }

    @Test("the whole feed answered 304 keeps every stored item and is not_modified when every request was")
    func feedUnchanged() {
        let tally = Outcomes.tally(.replace, [.feedUnchanged])
        let outcome = PollOutcome(
            tally: tally, record: Outcomes.record(), statistics: .init(requests: 1, notModified: 1), thrown: nil,
            started: .distantPast)
        #expect(outcome.report.status == .notModified)
        #expect(outcome.items == Outcomes.stored.items)
        #expect(outcome.report.newItems == [])
        #expect(outcome.record.lastNew == nil)
        #expect(outcome.report.groups.map(\.count) == [2, 2])
    }

    @Test("a source without requests (an external program) that says the feed is unchanged is not_modified")
    func unchangedWithoutRequests() {
        let unchanged = PollOutcome(
            tally: Outcomes.tally(.replace, [.feedUnchanged]), record: Outcomes.record(), statistics: .init(),
            thrown: nil, started: .distantPast)
        #expect(unchanged.report.status == .notModified)
        #expect(unchanged.record.status == "not_modified")
        #expect(unchanged.items == Outcomes.stored.items)
        #expect(unchanged.report.newItems == [])

        // With an item found as well, something changed: ok.
        let found = PollOutcome(
            tally: Outcomes.tally(.replace, [.feedUnchanged, .items([Outcomes.item("c1", ["a"], day: 5)])]),
            record: Outcomes.record(), statistics: .init(), thrown: nil, started: .distantPast)
        #expect(found.report.status == .ok)
        #expect(found.items?.map(\.id) == ["c1", "a1", "b1", "b2"])
        #expect(found.report.newItems.map(\.id) == ["c1"])

        // Nothing said at all is not "unchanged": ok, with no items.
        let nothing = PollOutcome(
            tally: Outcomes.tally(.replace, []), record: Outcomes.record(), statistics: .init(), thrown: nil,
            started: .distantPast)
        #expect(nothing.report.status == .ok)
        #expect(nothing.items == [])
    }

    @Test("a failed group keeps its stored items and makes the poll partial, naming it")
    func partial() {
        let tally = Outcomes.tally(
            .replace,
            [
                .groups(Outcomes.catalog), .items([Outcomes.item("a2", ["a"], day: 5)]), .completed(groups: ["a"]),
                .failure(SubRequestFailure(what: "group 'b'", message: "HTTP 500", group: "b")),
            ])
        let outcome = PollOutcome(
            tally: tally, record: Outcomes.record(), statistics: .init(requests: 2), thrown: nil, started: .distantPast)
        #expect(outcome.report.status == .partial)
        #expect(outcome.report.error == "group 'b': HTTP 500")
        #expect(outcome.items?.map(\.id) == ["a2", "b1", "b2"])
        #expect(outcome.report.groups.map(\.phase) == [.done, .failed])
        #expect(outcome.report.groups.map(\.count) == [2, 2])
        #expect(outcome.record.failures == 0)
    }

    @Test("a source's failed parts are kept up to the bound; a group failing past it still keeps its stored items")
    func boundedFailures() {
        let parts = (1...1_000).map { SubRequestFailure(what: "item \($0)", message: "no id", group: nil) }
        let tally = Outcomes.tally(
            .replace,
            [.groups(Outcomes.catalog), .items([Outcomes.item("a2", ["a"], day: 5)]), .completed(groups: ["a"])]
                + parts.map(SourceUpdate.failure)
                + [.failure(SubRequestFailure(what: "group 'b'", message: "HTTP 500", group: "b"))])
        #expect(tally.failures.count == PollTally.maximumFailures)
        #expect(tally.failures.last?.what == "item 100")
        #expect(tally.failedGroups == ["b"])
        let outcome = PollOutcome(
            tally: tally, record: Outcomes.record(), statistics: .init(requests: 1), thrown: nil, started: .distantPast)
        #expect(outcome.report.status == .partial)
        #expect(outcome.items?.map(\.id) == ["a2", "b1", "b2"])
        #expect(outcome.report.error?.hasPrefix("item 1: no id; item 2: no id; ") == true)
    }

    @Test("when every sub-request failed the poll failed: nothing is stored and the streak grows")
    func everySubRequestFailed() {
        let tally = Outcomes.tally(
            .replace,
            [
                .groups(Outcomes.catalog), .failure(SubRequestFailure(what: "group 'a'", message: "x", group: "a")),
                .failure(SubRequestFailure(what: "group 'b'", message: "y\u{1B}[2J", group: "b")),
            ])
        let outcome = PollOutcome(
            tally: tally, record: Outcomes.record(), statistics: .init(requests: 2), thrown: nil, started: .distantPast)
        #expect(outcome.report.status == .failed)
        #expect(outcome.report.error == "group 'a': x; group 'b': y")
        #expect(outcome.items == nil)
        #expect(outcome.catalog == nil)
        #expect(outcome.report.groups == [])
        #expect(outcome.record.failures == 3)
        #expect(outcome.record.itemCount == 3)
        #expect(outcome.record.status == "failed")
        #expect(outcome.record.lastError == "group 'a': x; group 'b': y")
    }

    @Test("a thrown error fails the poll whatever was found")
    func thrown() {
        let tally = Outcomes.tally(.replace, [.items([Outcomes.item("z", ["a"], day: 9)])])
        let outcome = PollOutcome(
            tally: tally, record: Outcomes.record(), statistics: .init(requests: 1), thrown: "bad answer",
            started: .distantPast)
        #expect(outcome.report.status == .failed)
        #expect(outcome.report.error == "bad answer")
        #expect(outcome.items == nil)
        #expect(outcome.record.failures == 3)
    }

    @Test("keepNewest adds to the stored items and keeps the newest, counting only those kept")
    func keepNewest() {
        let tally = Outcomes.tally(
            .keepNewest(3), [.items([Outcomes.item("n1", ["b"], day: 7), Outcomes.item("n0", ["a"], day: 0)])])
        let outcome = PollOutcome(
            tally: tally, record: Outcomes.record(), statistics: .init(requests: 1), thrown: nil, started: .distantPast)
        // n0 is older than every stored item: it is not kept, nor counted, nor new.
        #expect(outcome.items?.map(\.id) == ["n1", "a1", "b1"])
        #expect(outcome.report.newItems.map(\.id) == ["n1"])
        #expect(outcome.report.groups.map { [$0.id: $0.count] } == [["a": 2], ["b": 2]])
        #expect(tally.newIDs == ["n1"])
        // What the poll prepares for the state: only the items kept (an id with a control character as stored).
        let control = Outcomes.item("n\u{7}2", ["a"], day: 9)
        let kept = Outcomes.tally(.keepNewest(3), [.items([Outcomes.item("n1", ["b"], day: 7), control])])
        #expect(
            [control, Outcomes.item("n1", [], day: 0), Outcomes.item("b1", [], day: 0)].map(kept.keeps) == [
                true, true, false,
            ])
        #expect(Outcomes.stored.items.map(tally.keeps) == [true, true, false])
    }

    @Test("the report carries the poll's counts, newest items, first sync and the record's holds; a failed one none")
    func reportFields() {
        var record = Outcomes.record()
        record.notBefore = Date(timeIntervalSince1970: 900)
        record.holdReason = "rate limit exhausted"
        let started = Date(timeIntervalSince1970: 150)
        let items = (1...12).map { Outcomes.item("n\($0)", ["a"], day: 10 + $0) }
        let first = PollOutcome(
            tally: Outcomes.tally(.replace, [.items(items)]), record: record,
            statistics: .init(requests: 3, notModified: 1, bytes: 42), thrown: nil, started: started)
        #expect([first.report.feed, first.report.type] == ["f", "t"])
        #expect(first.report.started == started)
        #expect(first.report.requests == 3)
        #expect(first.report.notModified == 1)
        #expect(first.report.bytes == 42)
        #expect(first.report.items == 12)
        #expect(first.report.new == 12)
        #expect(first.report.failures == 0)
        #expect(first.report.latest.map(\.id) == (3...12).reversed().map { "n\($0)" })
        #expect(first.report.isFirstSync)
        #expect(first.report.notBefore == Date(timeIntervalSince1970: 900))
        #expect(first.report.holdReason == "rate limit exhausted")
        // The record's 2 failures before it: a recovery.
        #expect(first.report.failedBefore)
        // When the feed last had a new item, as the record says: this poll's time (new items).
        #expect(first.report.lastNew == record.lastPoll)

        record.lastSuccess = Date(timeIntervalSince1970: 100)
        let later = PollOutcome(
            tally: Outcomes.tally(.replace, [.items(items)]), record: record, statistics: .init(requests: 1),
            thrown: nil, started: started)
        #expect(!later.report.isFirstSync)
        var healthy = record
        healthy.failures = 0
        let unfailed = PollOutcome(
            tally: Outcomes.tally(.replace, [.items(items)]), record: healthy, statistics: .init(requests: 1),
            thrown: nil, started: started)
        #expect(!unfailed.report.failedBefore)

        let failed = PollOutcome(
            tally: Outcomes.tally(.replace, [.items(items)]), record: record, statistics: .init(requests: 1),
            thrown: "bad answer", started: started)
        #expect(failed.report.latest.isEmpty)
        #expect(failed.report.newItems.isEmpty)
        #expect(!failed.report.isFirstSync)
        #expect(failed.report.items == 3)
        #expect(failed.report.new == 0)
        #expect(failed.report.failures == 3)
        record.lastNew = Date(timeIntervalSince1970: 50)
        let stillFailing = PollOutcome(
            tally: Outcomes.tally(.replace, []), record: record, statistics: .init(requests: 1), thrown: "bad answer",
            started: started)
        #expect(stillFailing.report.lastNew == Date(timeIntervalSince1970: 50))
    }

    @Test("the breakdown is counted in the fold, and replaced items are counted once")
    func breakdown() {
        let tally = Outcomes.tally(
            .replace,
            [
                .groups(Outcomes.catalog),
                .items([
                    Outcomes.item("x", ["a"], day: 1, status: "open"),
                    Outcomes.item("y", ["a", "b"], day: 1, status: "open"),
                ]),
                .items([Outcomes.item("y", ["a", "b"], day: 2, status: "closed")]),
                .completed(groups: ["a", "b"]),
            ],
            breakdown: "status")
        let outcome = PollOutcome(
            tally: tally, record: Outcomes.record(), statistics: .init(requests: 1), thrown: nil, started: .distantPast)
        #expect(outcome.report.groups.map(\.breakdown) == [["open": 1, "closed": 1], ["closed": 1]])
        #expect(outcome.report.groups.map(\.count) == [2, 1])
    }

    @Test("while polling, a replace poll shows stored counts for pending groups, live ones once settled")
    func phases() {
        var tally = Outcomes.tally(.replace, [.groups(Outcomes.catalog), .items([Outcomes.item("a9", ["a"], day: 9)])])
        #expect(FeedView(feed: "f", tally: tally).groups.map(\.phase) == [.pending, .pending])
        #expect(FeedView(feed: "f", tally: tally).groups.map(\.count) == [2, 2])
        tally.apply(.completed(groups: ["a"]))
        tally.apply(.failure(SubRequestFailure(what: "b", message: "m", group: "b")))
        let view = FeedView(feed: "f", tally: tally)
        #expect(view.groups.map(\.phase) == [.done, .failed])
        #expect(view.groups.map(\.count) == [2, 2])  // a9 and b1 (carried from the failed b, still naming a)
        let stored = FeedView(feed: "f", stored: Outcomes.stored, breakdown: nil)
        #expect(stored.groups.map(\.phase) == [.done, .done])
        #expect(stored.items == 3)
    }
}
