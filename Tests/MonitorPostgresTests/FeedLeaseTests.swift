import Foundation
import MonitorItems
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorPostgres

@Suite("Feeds leased from the schedule in PostgreSQL, fenced by their term", .timeLimit(.minutes(5)))
struct FeedLeaseTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    static func commit(_ feed: String, title: String) -> PollCommit {
        var record = FeedRecord(name: feed, type: "eonet")
        record.status = "ok"
        record.itemCount = 1
        return PollCommit(
            record: record, items: [Item(id: "e1", title: title, date: start, groups: [])], firstSeen: start,
            groups: nil, validators: [:], values: [:])
    }

    @Test("three instances claiming 20 due feeds at once get each feed exactly once, at term 1; then none is due")
    func claimsAtOnce() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let feeds = (1...20).map { String(format: "feed%02d", $0) }
        try await PostgresStateStore.open(url).schedule(feeds: feeds, now: Self.start)
        var instances: [PostgresStateStore] = []
        for _ in 0..<3 { instances.append(try await PostgresStateStore.open(url)) }
        let claimed = try await withThrowingTaskGroup(of: [FeedLease].self) { group in
            for (index, store) in instances.enumerated() {
                group.addTask {
                    try await store.claim(owner: "instance\(index)", limit: 20, lease: .seconds(30), now: Self.at(0))
                }
            }
            var all: [FeedLease] = []
            for try await leases in group { all += leases }
            return all
        }
        #expect(claimed.count == 20)
        #expect(claimed.map(\.feed).sorted() == feeds)
        #expect(claimed.allSatisfy { $0.term == 1 && $0.expires == Self.at(30) })
        for (index, store) in instances.enumerated() {
            #expect(
                try await store.claim(owner: "instance\(index)", limit: 20, lease: .seconds(30), now: Self.at(1))
                    .isEmpty)
        }
    }

    @Test(
        "an expired lease is taken over at a higher term: the stale instance's late commit is refused and changes nothing"
    )
    func staleCommit() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let first = try await PostgresStateStore.open(url)
        let second = try await PostgresStateStore.open(url)
        try await first.schedule(feeds: ["planet"], now: Self.start)

        let stale = try #require(
            try await first.claim(owner: "first", limit: 5, lease: .seconds(30), now: Self.at(0)).first)
        #expect(stale == FeedLease(feed: "planet", owner: "first", term: 1, expires: Self.at(30)))
        // Renewed while polling; the other instance cannot claim it before the lease expires.
        let renewed = try #require(try await first.renew(stale, for: .seconds(30), now: Self.at(20)))
        #expect(renewed.expires == Self.at(50))
        #expect(try await second.claim(owner: "second", limit: 5, lease: .seconds(30), now: Self.at(49)).isEmpty)
        // The first instance pauses past its lease: the second takes the feed over.
        let current = try #require(
            try await second.claim(owner: "second", limit: 5, lease: .seconds(30), now: Self.at(51)).first)
        #expect(current == FeedLease(feed: "planet", owner: "second", term: 2, expires: Self.at(81)))

        await #expect(
            throws: StateError(
                "the lease of 'planet' in \(url) was lost (the feed's term is 2, this poll held 1): its results were "
                    + "not stored")
        ) {
            try await first.commit(Self.commit("planet", title: "stale"), lease: renewed, nextDue: Self.at(300))
        }
        #expect(try await first.record(feed: "planet") == nil)
        #expect(try await first.renew(renewed, for: .seconds(30), now: Self.at(52)) == nil)

        // The holder's commit is stored; the feed is released, due again at the time it gave, held back longer.
        let written = try await second.commit(
            Self.commit("planet", title: "current"), lease: current, nextDue: Self.at(300), heldUntil: Self.at(600))
        #expect(written.itemsInserted == 1)
        #expect(try await first.items(feed: "planet").map(\.title) == ["current"])
        #expect(try await first.claim(owner: "first", limit: 5, lease: .seconds(30), now: Self.at(599)).isEmpty)
        let next = try #require(
            try await first.claim(owner: "first", limit: 5, lease: .seconds(30), now: Self.at(600)).first)
        #expect(next.term == 3)
        // A lease released by its commit cannot commit again.
        await #expect(throws: StateError.self) {
            try await second.commit(Self.commit("planet", title: "again"), lease: current, nextDue: Self.at(900))
        }
        #expect(try await first.items(feed: "planet").map(\.title) == ["current"])
    }

    @Test(
        "a claim of one feed answers with its row in the same statement: claimed, leased by another, not due, unknown")
    func claimAnswers() async throws {
        let server = try await PostgresServer.forTest()
        let url = try await server.makeDatabase()
        let first = try await PostgresStateStore.open(url)
        let second = try await PostgresStateStore.open(url)
        try await first.schedule(feeds: ["planet"], now: Self.at(10))
        #expect(
            try await first.claim(
                feed: "moon", owner: "first", lease: .seconds(30), now: Self.at(10), dueBy: Self.at(10))
                == nil)
        // Not due yet.
        #expect(
            try await first.claim(
                feed: "planet", owner: "first", lease: .seconds(30), now: Self.at(5), dueBy: Self.at(5))
                == FeedClaim(slot: FeedSlot(due: Self.at(10))))
        let claimed = try await first.claim(
            feed: "planet", owner: "first", lease: .seconds(30), now: Self.at(12), dueBy: Self.at(12))
        let lease = FeedLease(feed: "planet", owner: "first", term: 1, expires: Self.at(42))
        #expect(
            claimed
                == FeedClaim(
                    slot: FeedSlot(due: Self.at(10), owner: "first", expires: Self.at(42), term: 1), lease: lease))
        // Held by the first instance: the second is told by whom and until when, even when asked to poll now.
        #expect(
            try await second.claim(
                feed: "planet", owner: "second", lease: .seconds(30), now: Self.at(13), dueBy: .distantFuture)
                == FeedClaim(slot: FeedSlot(due: Self.at(10), owner: "first", expires: Self.at(42), term: 1)))
        try await first.commit(Self.commit("planet", title: "one"), lease: lease, nextDue: Self.at(40))
        // Released, due at 40: a "poll now" claims it before then.
        #expect(
            try await second.claim(
                feed: "planet", owner: "second", lease: .seconds(30), now: Self.at(20), dueBy: Self.at(20))
                == FeedClaim(slot: FeedSlot(due: Self.at(40), term: 1)))
        #expect(
            try await second.claim(
                feed: "planet", owner: "second", lease: .seconds(30), now: Self.at(20), dueBy: .distantFuture)?.lease
                == FeedLease(feed: "planet", owner: "second", term: 2, expires: Self.at(50)))
    }
}
