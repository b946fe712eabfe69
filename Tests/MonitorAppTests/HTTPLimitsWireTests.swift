import Foundation
import GitHubSource
import LoopbackHTTP
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore

/// 2026-11-22 05:00:00 UTC, the `now` of the tests on a manual clock.
private let start = Date(timeIntervalSince1970: 1_795_323_600)

/// A server's timing header that asks for far too long, and what the poll must say of it.
struct FarOffHold: Sendable, CustomTestStringConvertible {
    var name: String
    var status: Int
    var headers: [(name: String, value: String)]
    /// The detail of the error message.
    var detail: String
    /// Why `status` says the feed is held back.
    var reason: String

    var testDescription: String { name }
}

@Suite(
    "HTTP limits on the wire: the timeout bounds the body, timing headers are capped, odd answers fail clearly",
    .timeLimit(.minutes(5)))
struct HTTPLimitsWireTests {
    @Test("a body trickled one byte at a time fails at the timeout, and the request is ended and its slot released")
    func trickledBody() async throws {
        let wire = try Wire(settings: settings(timeout: .seconds(15), retries: 0, concurrency: 1))
        try await withTestHTTPServer({ request in
            // Forty bytes at one every 500ms would take 20s; the timeout is 15s: room for /ok, whose exchange is
            // bounded by the same timeout, on a machine loaded enough to hold a small answer for more than 5s (a
            // clean-clone CI run at load average 19 saw /ok time out at 5s).
            request.path == "/trickle"
                ? .trickling(String(repeating: "0", count: 39) + "7", every: .milliseconds(500)) : .text("2")
        }) { server in
            let feed = wire.feed("slow", urls: ["\(server.baseURL)/trickle", "\(server.baseURL)/ok"])
            let report = await wire.poll(feed)
            #expect(report.status == .partial)
            let timedOut = "group 'trickle': GET \(server.baseURL)/trickle: timed out after 15s"
            #expect(report.error == timedOut)
            // The one slot (global concurrency 1) was released: the second URL was fetched after the first gave up.
            #expect(report.items == 2)
            #expect(server.requests.map(\.path) == ["/trickle", "/ok"])
            // The client closed the connection of the trickling response before it was complete (waited for only
            // when it timed out, else the test would wait for an event that never comes).
            if report.error == timedOut { await server.waitForAbandonedResponses(1) }
            #expect(server.abandonedResponses == 1)
        }
        try await wire.shutdown()
    }

    @Test(
        "a body is read whole, byte for byte, up to the limit, with or without its length announced; one byte more fails",
        arguments: [false, true])
    func bodyUpToTheLimit(chunked: Bool) async throws {
        let wire = try Wire(settings: settings(retries: 0))
        // Every byte value, in a body larger than one read of the socket, announced by its length or sent chunked.
        let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        try await withTestHTTPServer({ request in
            TestResponse(
                headers: chunked ? [("Transfer-Encoding", "chunked")] : [],
                body: request.path == "/over" ? body + [0] : body)
        }) { server in
            let request = { (path: String) in
                HTTPRequest(url: "\(server.baseURL)\(path)", headers: [:], timeout: .seconds(60), maxBody: body.count)
            }
            let response = try await wire.transport.send(request("/exact"))
            #expect(response.status == 200)
            // Compared without printing 200,000 numbers when they differ.
            #expect(response.body.count == body.count)
            #expect(response.body == body, "the body read differs from the body sent")
            await #expect(throws: TransportError.bodyTooLarge(limit: body.count)) {
                _ = try await wire.transport.send(request("/over"))
            }
        }
        try await wire.shutdown()
    }

    @Test("a 304 answering a request without validators fails its request with a clear message")
    func unrequestedNotModified() async throws {
        let wire = try Wire(settings: settings(retries: 0))
        try await withTestHTTPServer({ _ in TestResponse(status: 304) }) { server in
            let report = await wire.poll(wire.feed("f", urls: ["\(server.baseURL)/a"]))
            // The feed's only sub-request failed: the poll failed.
            #expect(report.status == .failed)
            #expect(
                report.error
                    == "group 'a': GET \(server.baseURL)/a: answered 304 Not Modified to a request without validators")
            #expect((report.requests, report.notModified, report.items) == (1, 0, 0))
            #expect(server.requests.map { $0.header("If-None-Match") } == [nil])
        }
        try await wire.shutdown()
    }

    @Test("a 304 to a github feed's first request fails the poll instead of reporting nothing new")
    func unrequestedNotModifiedGitHub() async throws {
        let wire = try Wire(settings: settings(retries: 0))
        try await withTestHTTPServer({ _ in TestResponse(status: 304) }) { server in
            let feed = PollHarness.feed(
                GitHubSource.self, name: "ab", options: ["repo": .string("a/b"), "api": .string(server.baseURL)])
            let report = await wire.poll(GitHubSource.self, feed)
            #expect(report.status == .failed)
            #expect(
                report.error
                    == "GET \(server.baseURL)/repos/a/b/events?per_page=50: answered 304 Not Modified to a request without validators"
            )
            let record = try await wire.harness.store.snapshot(feed: "ab").record
            #expect(record?.status == "failed")
        }
        try await wire.shutdown()
    }

    @Test("a redirect cycle is a sentence, not HTTPClientError.redirectCycleDetected")
    func redirectCycle() async throws {
        let wire = try Wire(settings: settings(retries: 0))
        try await withTestHTTPServer({ request in
            TestResponse(status: 302, headers: [("Location", request.path == "/a" ? "/b" : "/a")])
        }) { server in
            let report = await wire.poll(wire.feed("f", urls: ["\(server.baseURL)/a"]))
            // The feed's only sub-request failed: the poll failed.
            #expect(report.status == .failed)
            #expect(report.error == "group 'a': GET \(server.baseURL)/a: the server's redirects lead in a circle")
            #expect(server.requests.map(\.path) == ["/a", "/b"])
        }
        try await wire.shutdown()
    }

    @Test("a token with a line break is refused by header name: its value is in no error, report or stored record")
    func headerValueNeverShown() async throws {
        let wire = try Wire(settings: settings(retries: 0))
        try await withTestHTTPServer({ _ in .json("[]") }) { server in
            let request = HTTPRequest(
                url: "\(server.baseURL)/a", headers: ["Authorization": "Bearer ghp_first\nghp_second"],
                timeout: .seconds(10), maxBody: 1024)
            await #expect(
                throws: TransportError.invalid(
                    "the value of the request header 'Authorization' contains a control character (not shown)")
            ) {
                try await wire.transport.send(request)
            }

            let feed = PollHarness.feed(
                GitHubSource.self, name: "ab",
                options: [
                    "repo": .string("a/b"), "api": .string(server.baseURL), "token": .string("ghp_first\nghp_second"),
                ])
            let report = await wire.poll(GitHubSource.self, feed)
            #expect(report.status == .failed)
            #expect(
                report.error
                    == "GET \(server.baseURL)/repos/a/b/events?per_page=50: the value of the request header 'Authorization' contains a control character (not shown)"
            )
            let record = try #require(try await wire.harness.store.snapshot(feed: "ab").record)
            #expect(record.lastError == report.error)
            #expect(server.requests.isEmpty)
        }
        try await wire.shutdown()
    }

    @Test(
        "a server's far-off timing header holds the feed back one hour at most, and status says until when and why",
        arguments: [
            FarOffHold(
                name: "Retry-After as a date in 2099", status: 429,
                headers: [("Retry-After", "Wed, 21 Oct 2099 07:28:00 GMT")],
                detail: "HTTP 429: the server asked to retry after 1h", reason: "HTTP 429 asked to retry later"),
            FarOffHold(
                name: "Retry-After in seconds beyond any integer", status: 503,
                headers: [("Retry-After", "99999999999999999999999")],
                detail: "HTTP 503: the server asked to retry after 1h", reason: "HTTP 503 asked to retry later"),
            FarOffHold(
                name: "X-RateLimit-Reset in the year 3170843", status: 403,
                headers: [
                    ("X-RateLimit-Limit", "60"), ("X-RateLimit-Remaining", "0"),
                    ("X-RateLimit-Reset", "99999999999999"),
                ],
                detail: "HTTP 403: rate limit exhausted (x-ratelimit-remaining: 0)", reason: "rate limit exhausted"),
        ])
    func farOffHold(_ hold: FarOffHold) async throws {
        let clock = ManualClock(start: start)
        let wire = try Wire(settings: settings(retries: 0), clock: clock)
        let recovered = Counter()
        try await withTestHTTPServer({ _ in
            recovered.value > 0
                ? .json("[]") : .json(#"{"message":"slow down"}"#, status: hold.status, headers: hold.headers)
        }) { server in
            let feed = PollHarness.feed(
                GitHubSource.self, name: "ab", options: ["repo": .string("a/b"), "api": .string(server.baseURL)])
            let report = await wire.poll(GitHubSource.self, feed)
            let url = "\(server.baseURL)/repos/a/b/events?per_page=50"
            let hour = start.addingTimeInterval(3600)
            #expect(report.status == .failed)
            #expect(report.error == "GET \(url): \(hold.detail); not polled again before 2026-11-22 06:00:00 UTC")
            #expect(report.notBefore == hour)
            let record = try #require(try await wire.harness.store.snapshot(feed: "ab").record)
            #expect(record.notBefore == hour)
            #expect(record.holdReason == hold.reason)
            #expect(StatusListing.holdLine(record, now: start) == "held back until 06:00:00 UTC (\(hold.reason))")

            // The server recovers; an hour later the feed is polled again.
            recovered.increment()
            clock.advance(by: .seconds(3599))
            #expect(await wire.poll(GitHubSource.self, feed).status == .failed)
            #expect(server.requests.count == 1)
            clock.advance(by: .seconds(1))
            #expect(await wire.poll(GitHubSource.self, feed).status == .ok)
            #expect(server.requests.count == 2)
        }
        try await wire.shutdown()
    }

    @Test("X-Poll-Interval: 99999999999 asks for an hour between polls at most")
    func farOffPollInterval() async throws {
        let wire = try Wire(settings: settings(retries: 0), clock: ManualClock(start: start))
        try await withTestHTTPServer({ _ in .json("[]", headers: [("X-Poll-Interval", "99999999999")]) }) { server in
            let feed = PollHarness.feed(
                GitHubSource.self, name: "ab", options: ["repo": .string("a/b"), "api": .string(server.baseURL)])
            let report = await wire.poll(GitHubSource.self, feed)
            #expect(report.status == .ok)
            #expect(report.minimumInterval == .seconds(3600))
            let record = try await wire.harness.store.snapshot(feed: "ab").record
            #expect(record?.minimumInterval == .seconds(3600))
        }
        try await wire.shutdown()
    }

    @Test("a hold stored by an older version beyond the cap is not believed: the feed is polled an hour later")
    func storedHoldBeyondCap() async throws {
        let clock = ManualClock(start: start)
        let wire = try Wire(settings: settings(retries: 0), clock: clock)
        var record = FeedRecord(name: "f", type: ScriptedSource.type)
        record.status = "failed"
        record.lastPoll = start
        record.notBefore = Date(timeIntervalSince1970: 4_096_000_000)  // 2099-10-18
        record.holdReason = "rate limit exhausted"
        record.minimumInterval = .seconds(99_999_999_999)
        try await wire.harness.store.commit(
            PollCommit(record: record, items: nil, firstSeen: start, groups: nil, validators: [:], values: [:]),
            feed: "f")
        let stored = try #require(try await wire.harness.store.snapshot(feed: "f").record)
        #expect(stored.notBefore == start.addingTimeInterval(3600))
        #expect(stored.minimumInterval == .seconds(3600))
        try await withTestHTTPServer({ _ in .text("1") }) { server in
            let feed = wire.feed("f", urls: ["\(server.baseURL)/a"])
            clock.advance(by: .seconds(1800))
            let held = await wire.poll(feed)
            #expect(held.error == "not polled: the server asked to wait until 2026-11-22 06:00:00 UTC")
            clock.advance(by: .seconds(1800))
            let report = await wire.poll(feed)
            #expect(report.status == .ok)
            #expect(server.requests.count == 1)
            let after = try #require(try await wire.harness.store.snapshot(feed: "f").record)
            #expect(after.notBefore == nil)
            #expect(after.holdReason == nil)
        }
        try await wire.shutdown()
    }
}
