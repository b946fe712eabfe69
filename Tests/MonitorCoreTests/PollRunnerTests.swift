import Foundation
import MonitorText
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

@Suite("The poll pipeline: counts, new items, retention, partial and failed polls, on each state backend")
struct PollRunnerTests {
    @Test(
        "counts per group fill in, groups without items show 0, and everything is new on the first poll",
        arguments: StateBackend.allCases)
    func firstPoll(backend: StateBackend) async throws {
        let harness = try await PollHarness.make(backend)
        let transport = StubTransport { request in
            let counts = ["a": "3", "b": "2", "c": "0"]
            return HTTPResponse(
                status: 200, headers: ["ETag": "\"v1\""],
                body: Array((counts[String(request.url.suffix(1))] ?? "0").utf8))
        }
        let feed = PollHarness.feed(
            ScriptedSource.self,
            options: [
                "urls": .list(["http://x/a", "http://x/b", "http://x/c"]), "catalog": .list(["a", "b", "c", "d"]),
            ])
        let (report, views) = await harness.poll(ScriptedSource.self, feed: feed, transport: transport)
        #expect(report.status == .ok)
        #expect(report.error == nil)
        #expect(report.requests == 3)
        #expect(report.items == 5)
        #expect(report.new == 5)
        #expect(
            report.groups == [
                .init(id: "a", title: "A", count: 3, new: 3), .init(id: "b", title: "B", count: 2, new: 2),
                .init(id: "c", title: "C", count: 0, new: 0), .init(id: "d", title: "D", count: 0, new: 0),
            ])
        // The first view is the stored snapshot (empty), the last has every count.
        #expect(views.first?.groups.isEmpty == true)
        #expect(views.last?.groups.map(\.count) == [3, 2, 0, 0])
        #expect(views.last.map { ($0.done, $0.total) }! == (3, 3))
        // Counts only grow as responses arrive.
        let totals = views.map(\.items)
        #expect(totals == totals.sorted())
        #expect(try await harness.store.items(feed: "test").count == 5)
    }

    @Test("with thousands of groups, showing a poll stays in proportion to it: not every step lists every group")
    func manyGroupsViews() async throws {
        let harness = PollHarness()
        let urls = (0..<4_000).map { "http://x/g" + String(10_000 + $0) }
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("1".utf8)) }
        let feed = PollHarness.feed(ScriptedSource.self, options: ["urls": .list(urls)])
        let (report, views) = await harness.poll(ScriptedSource.self, feed: feed, transport: transport)
        #expect(report.items == 4_000)
        #expect(report.groups.count == 4_000)
        // Each URL's answer is three steps (its item, its group completed, progress). With a view of every step,
        // the views listed 24 million groups in all (1 + 2 + … + 4,000, three times); with the first 500 groups'
        // every step and then a view whenever the work since the last one makes a quarter of the groups, under
        // 600,000.
        let listed = views.reduce(0) { $0 + $1.groups.count }
        #expect(listed < 600_000, "\(listed) groups listed in \(views.count) views")
        #expect(views.last.map(\.groups.count) ?? 0 >= 3_500)
        #expect(views.last.map(\.items) == views.last?.groups.count)
    }

    @Test(
        "an item id with control characters is stored cleaned, and is not new again on the next poll",
        arguments: StateBackend.allCases)
    func controlCharactersInIDs(backend: StateBackend) async throws {
        let harness = try await PollHarness.make(backend)
        // The scripted source names its items after the URL's last part: here "\u{1B}[2Jalerts-0" and "-1".
        let transport = StubTransport { _ in HTTPResponse(status: 200, body: Array("2".utf8)) }
        let feed = PollHarness.feed(ScriptedSource.self, options: ["urls": .list(["http://x/\u{1B}[2Jalerts"])])
        let first = await harness.poll(ScriptedSource.self, feed: feed, transport: transport).report
        #expect((first.status, first.items, first.new) == (.ok, 2, 2))
        #expect(try await harness.store.items(feed: "test").map(\.id).sorted() == ["alerts-0", "alerts-1"])
        let second = await harness.poll(ScriptedSource.self, feed: feed, transport: transport).report
        #expect((second.status, second.items, second.new) == (.ok, 2, 0))
        #expect(try await harness.store.items(feed: "test").map(\.id).sorted() == ["alerts-0", "alerts-1"])
    }

    @Test(
        "a second poll answered 304 everywhere is not_modified and sends the validators back",
        arguments: StateBackend.allCases)
    func notModified(backend: StateBackend) async throws {
        let harness = try await PollHarness.make(backend)
        let transport = StubTransport { request in
            if request.headers["If-None-Match"] == "W/\"v1\"" {
                return HTTPResponse(status: 304, headers: ["ETag": "W/\"v2\""])
            }
            return HTTPResponse(status: 200, headers: ["ETag": "W/\"v1\""], body: Array("2".utf8))
        }
        let feed = PollHarness.feed(ScriptedSource.self, options: ["urls": .list(["http://x/a"])])
        let first = await harness.poll(ScriptedSource.self, feed: feed, transport: transport).report
        #expect(first.status == .ok)
        let second = await harness.poll(ScriptedSource.self, feed: feed, transport: transport).report
        #expect(second.status == .notModified)
        #expect(second.items == 2)
        #expect(second.new == 0)
        #expect(second.notModified == 1)
        #expect(transport.requests.map { $0.headers["If-None-Match"] } == [nil, "W/\"v1\""])
        // The 304 carried a new ETag: it is the one sent next.
        _ = await harness.poll(ScriptedSource.self, feed: feed, transport: transport)
        #expect(transport.requests.last?.headers["If-None-Match"] == "W/\"v2\"")
        #expect(transport.requests.allSatisfy { $0.headers["User-Agent"] == "monitor/\(MonitorVersion.current)" })
    }

    @Test(
        "one failing sub-request makes the poll partial and keeps that group's stored items",
        arguments: StateBackend.allCases)
    func partial(backend: StateBackend) async throws {
        let harness = try await PollHarness.make(backend)
        let failing = StubTransport { request in
            request.url.hasSuffix("/b") ? HTTPResponse(status: 500) : HTTPResponse(status: 200, body: Array("1".utf8))
        }
        let healthy = StubTransport { _ in HTTPResponse(status: 200, body: Array("2".utf8)) }
        let feed = PollHarness.feed(ScriptedSource.self, options: ["urls": .list(["http://x/a", "http://x/b"])])
        #expect(await harness.poll(ScriptedSource.self, feed: feed, transport: healthy).report.items == 4)
        let report = await harness.poll(ScriptedSource.self, feed: feed, transport: failing).report
        #expect(report.status == .partial)
        #expect(report.error == "group 'b': GET http://x/b: HTTP 500 Internal Server Error (after 3 attempts)")
        #expect(failing.requests.count == 4)  // a once, b three times (two retries)
        // a now has 1 item; b keeps its 2 stored ones.
        #expect(report.groups.map(\.count) == [1, 2])
        #expect(try await harness.store.items(feed: "test").map(\.id).sorted() == ["a-0", "b-0", "b-1"])
    }

    @Test("a failed poll leaves the stored items and validators as they were", arguments: StateBackend.allCases)
    func failedPoll(backend: StateBackend) async throws {
        let harness = try await PollHarness.make(backend)
        let good = StubTransport { _ in HTTPResponse(status: 200, headers: ["ETag": "\"good\""], body: Array("2".utf8))
        }
        let feed = PollHarness.feed(ScriptedSource.self, options: ["urls": .list(["http://x/a", "http://x/gone"])])
        _ = await harness.poll(ScriptedSource.self, feed: feed, transport: good)
        let before = try await harness.store.snapshot(feed: "test")
        let bad = StubTransport { request in
            request.url.hasSuffix("/gone")
                ? HTTPResponse(status: 404, body: Array(#"{"message":"Not Found"}"#.utf8))
                : HTTPResponse(status: 200, headers: ["ETag": "\"new\""], body: Array("9".utf8))
        }
        let report = await harness.poll(ScriptedSource.self, feed: feed, transport: bad).report
        #expect(report.status == .failed)
        #expect(report.error == "GET http://x/gone: HTTP 404 Not Found: Not Found")
        let after = try await harness.store.snapshot(feed: "test")
        #expect(after.items == before.items)
        #expect(after.validators == before.validators)
        #expect(after.record?.failures == 1)
        #expect(after.record?.status == "failed")
        #expect(after.record?.lastError == "GET http://x/gone: HTTP 404 Not Found: Not Found")
    }

    @Test(
        "keepNewest adds new items to the stored ones and keeps the newest, counting each once",
        arguments: StateBackend.allCases)
    func keepNewest(backend: StateBackend) async throws {
        let harness = try await PollHarness.make(backend)
        let feed = PollHarness.feed(
            ScriptedSource.self, options: ["urls": .list(["http://x/a"]), "mode": .string("keep")])
        let three = StubTransport { _ in HTTPResponse(status: 200, body: Array("3".utf8)) }
        let first = await harness.poll(ScriptedSource.self, feed: feed, transport: three).report
        #expect((first.items, first.new) == (3, 3))
        let five = StubTransport { _ in HTTPResponse(status: 200, body: Array("5".utf8)) }
        let second = await harness.poll(ScriptedSource.self, feed: feed, transport: five).report
        // Items a-0…a-4 dated in order: the newest three are a-4, a-3, a-2; a-2 is the only one seen before.
        #expect(second.items == 3)
        #expect(second.new == 2)
        #expect(second.latest.map(\.id) == ["a-4", "a-3", "a-2"])
        #expect(second.newIDs == ["a-4", "a-3"])
    }

    @Test(
        "an exhausted rate limit fails at once with the reset time, and the feed is not polled before it",
        arguments: StateBackend.allCases)
    func rateLimited(backend: StateBackend) async throws {
        let harness = try await PollHarness.make(backend)
        let reset = Date().addingTimeInterval(1800).timeIntervalSince1970.rounded()
        let transport = StubTransport { _ in
            HTTPResponse(
                status: 403,
                headers: [
                    "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "\(Int(reset))",
                ],
                body: Array(#"{"message":"API rate limit exceeded"}"#.utf8))
        }
        let feed = PollHarness.feed(ScriptedSource.self, options: ["urls": .list(["http://x/a"])])
        let report = await harness.poll(ScriptedSource.self, feed: feed, transport: transport).report
        let until = UTCTime.full(Date(timeIntervalSince1970: reset))
        // Its only sub-request failed: the poll failed, its error naming the group.
        #expect(report.status == .failed)
        #expect(
            report.error
                == "group 'a': GET http://x/a: HTTP 403: rate limit exhausted (x-ratelimit-remaining: 0); not polled again before \(until)"
        )
        #expect(transport.requests.count == 1)
        let again = await harness.poll(ScriptedSource.self, feed: feed, transport: transport).report
        #expect(again.status == .failed)
        #expect(again.error == "not polled: the server asked to wait until \(until)")
        #expect(transport.requests.count == 1)
    }
}
