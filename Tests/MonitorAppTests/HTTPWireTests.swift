import Foundation
import Logging
import LoopbackHTTP
import MonitorConcurrency
import MonitorOptions
import MonitorSQLite
import MonitorText
import Synchronization
import TestSupport
import Testing

@testable import MonitorApp
@testable import MonitorCore

/// Polls scripted feeds through the real HTTP stack (AsyncHTTPClient) against a real server on 127.0.0.1, into a
/// SQLite state.
struct Wire {
    let harness: PollHarness
    let transport: HTTPClientTransport
    let runner: PollRunner

    init(settings: Settings = Settings(), clock: any PollClock = WallClock()) throws {
        let directory = try TemporaryDirectory()
        harness = PollHarness(
            store: try SQLiteStateStore(directory: directory.url), keeping: directory, settings: settings)
        transport = HTTPClientTransport(timeout: settings.timeout, concurrency: settings.concurrency)
        var runner = PollRunner(
            store: harness.store, transport: transport, settings: settings, clock: clock,
            logger: Logger(label: "test"))
        runner.policy.retryBaseDelay = .milliseconds(10)
        self.runner = runner
    }

    func feed(_ name: String, urls: [String], parallel: Bool = false, concurrency: Int? = nil) -> FeedConfig {
        var options: [String: OptionValue] = ["urls": .list(urls), "parallel": .boolean(parallel)]
        if let concurrency { options["concurrency"] = .integer(concurrency) }
        return PollHarness.feed(ScriptedSource.self, name: name, options: options)
    }

    func poll(_ feed: FeedConfig) async -> PollReport {
        await runner.poll(feed, source: ScriptedSource(options: feed.options))
    }

    /// Polls `feed` with a source of type `Source`.
    func poll<Source: FeedSource>(_ source: Source.Type, _ feed: FeedConfig) async -> PollReport {
        await runner.poll(feed, source: Source(options: feed.options))
    }

    func shutdown() async throws {
        try await transport.shutdown()
    }
}

func settings(
    timeout: Duration = .seconds(3600), maxBody: Int = 1 << 20, retries: Int = 2, concurrency: Int = 4
)
    -> Settings
{
    var settings = Settings()
    settings.timeout = timeout
    settings.maxBody = maxBody
    settings.retries = retries
    settings.concurrency = concurrency
    return settings
}

@Suite("HTTP on the wire: conditional requests, retries, rate limits, limits", .timeLimit(.minutes(5)))
struct HTTPWireTests {
    @Test("validators come back byte for byte, a 304 is not_modified, never retried, and its new ETag is kept")
    func conditional() async throws {
        let wire = try Wire()
        try await withTestHTTPServer({ request in
            switch request.header("If-None-Match") {
            case nil:
                return .text(
                    "3", headers: [("ETag", "W/\"abc-123\""), ("Last-Modified", "Wed, 21 Oct 2026 07:28:00 GMT")])
            case "W/\"abc-123\"":
                return TestResponse(status: 304, headers: [("ETag", "\"fresh\"")])
            default:
                return TestResponse(status: 304)
            }
        }) { server in
            let feed = wire.feed("f", urls: ["\(server.baseURL)/a"])
            let first = await wire.poll(feed)
            #expect(first.status == .ok)
            #expect(first.items == 3)
            let second = await wire.poll(feed)
            #expect(second.status == .notModified)
            #expect((second.requests, second.notModified, second.items, second.new) == (1, 1, 3, 0))
            _ = await wire.poll(feed)
            let sent = server.requests
            #expect(sent.count == 3)
            #expect(sent.map { $0.header("If-None-Match") } == [nil, "W/\"abc-123\"", "\"fresh\""])
            #expect(
                sent.map { $0.header("If-Modified-Since") } == [
                    nil, "Wed, 21 Oct 2026 07:28:00 GMT", "Wed, 21 Oct 2026 07:28:00 GMT",
                ])
            #expect(sent.allSatisfy { $0.header("User-Agent") == "monitor/\(MonitorVersion.current)" })
            #expect(sent.map(\.uri) == ["/a", "/a", "/a"])
        }
        try await wire.shutdown()
    }

    @Test("a transient 503 is retried and the poll succeeds")
    func retries() async throws {
        let wire = try Wire(settings: settings(retries: 2))
        let answered = Counter()
        try await withTestHTTPServer({ _ in
            answered.increment() <= 2 ? TestResponse(status: 503) : .text("2")
        }) { server in
            let report = await wire.poll(wire.feed("f", urls: ["\(server.baseURL)/a"]))
            #expect(report.status == .ok)
            #expect(report.requests == 3)
            #expect(report.items == 2)
            #expect(server.requests.count == 3)
        }
        try await wire.shutdown()
    }

    @Test("an exhausted rate limit fails at once with the reset time, without retries")
    func rateLimit() async throws {
        let wire = try Wire()
        let reset = Int(Date().timeIntervalSince1970) + 3600
        try await withTestHTTPServer({ _ in
            .json(
                #"{"message":"API rate limit exceeded for 127.0.0.1."}"#, status: 403,
                headers: [
                    ("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "\(reset)"),
                ])
        }) { server in
            let report = await wire.poll(wire.feed("f", urls: ["\(server.baseURL)/a"]))
            let until = UTCTime.full(Date(timeIntervalSince1970: Double(reset)))
            // Its only sub-request failed: the poll failed.
            #expect(report.status == .failed)
            #expect(
                report.error
                    == "group 'a': GET \(server.baseURL)/a: HTTP 403: rate limit exhausted (x-ratelimit-remaining: 0); not polled again before \(until)"
            )
            #expect(server.requests.count == 1)
            #expect(report.rateLimit?.remaining == 0)
            #expect(report.rateLimit?.limit == 60)
        }
        try await wire.shutdown()
    }

    @Test("a timeout and an oversize body fail only their own feed")
    func timeoutAndOversize() async throws {
        // The timeout that fires is short; the others' is far beyond the suite's time limit, so that a loaded
        // machine never makes their answers late.
        let short = try Wire(settings: settings(timeout: .milliseconds(500), maxBody: 1024, retries: 0))
        let wire = try Wire(settings: settings(timeout: .seconds(3600), maxBody: 1024, retries: 0))
        try await withTestHTTPServer({ request in
            switch request.path {
            case "/slow": return .hang
            case "/big": return .text(String(repeating: "9", count: 4096))
            default: return .text("2")
            }
        }) { server in
            async let slow = short.poll(short.feed("slow", urls: ["\(server.baseURL)/slow"]))
            async let big = wire.poll(wire.feed("big", urls: ["\(server.baseURL)/big"]))
            async let fine = wire.poll(wire.feed("fine", urls: ["\(server.baseURL)/ok"]))
            let (slowReport, bigReport, fineReport) = await (slow, big, fine)
            // Each feed's only sub-request failed: those polls failed.
            #expect(slowReport.status == .failed)
            #expect(slowReport.error == "group 'slow': GET \(server.baseURL)/slow: timed out after 500ms")
            #expect(bigReport.status == .failed)
            #expect(
                bigReport.error
                    == "group 'big': GET \(server.baseURL)/big: the response is larger than 1KiB (settings.max_body)")
            #expect(fineReport.status == .ok)
            #expect(fineReport.items == 2)
        }
        try await short.shutdown()
        try await wire.shutdown()
    }

    @Test("a failed poll leaves the stored items and validators as they were")
    func failedPollKeepsState() async throws {
        let wire = try Wire()
        let broken = Counter()
        try await withTestHTTPServer({ request in
            if request.path == "/gone", broken.value > 0 { return .json(#"{"message":"Not Found"}"#, status: 404) }
            return .text("4", headers: [("ETag", "\"v1\"")])
        }) { server in
            let feed = wire.feed("f", urls: ["\(server.baseURL)/a", "\(server.baseURL)/gone"])
            #expect(await wire.poll(feed).status == .ok)
            let before = try await wire.harness.store.snapshot(feed: "f")
            broken.increment()
            let report = await wire.poll(feed)
            #expect(report.status == .failed)
            #expect(report.error == "GET \(server.baseURL)/gone: HTTP 404 Not Found: Not Found")
            let after = try await wire.harness.store.snapshot(feed: "f")
            #expect(after.items == before.items)
            #expect(after.items.count == 8)
            #expect(after.validators == before.validators)
            #expect(after.validators.count == 2)
        }
        try await wire.shutdown()
    }

    @Test(
        "the global limit holds across feeds, and a feed's own lower limit holds",
        arguments: [(3, nil, 3), (4, 2, 2)] as [(Int, Int?, Int)])
    func concurrency(global: Int, perFeed: Int?, expected: Int) async throws {
        let wire = try Wire(settings: settings(concurrency: global))
        // The first `expected` requests are answered only once all of them are in flight.
        let together = Rendezvous(expected)
        try await withTestHTTPServer({ _ in
            await together.arrive()
            return TestResponse(status: 200, body: Array("1".utf8))
        }) { server in
            let urls = (0..<8).map { "\(server.baseURL)/u\($0)" }
            let others = perFeed == nil ? urls : []
            async let first = wire.poll(wire.feed("one", urls: urls, parallel: true, concurrency: perFeed))
            async let second = wire.poll(wire.feed("two", urls: others, parallel: true, concurrency: perFeed))
            let reports = await [first, second]
            #expect(reports.allSatisfy { $0.status == .ok })
            #expect(server.maxInFlight == expected)
        }
        try await wire.shutdown()
    }
}

/// A thread-safe counter for server handlers.
final class Counter: Sendable {
    private let count = Mutex(0)

    /// Adds one and returns the new value.
    @discardableResult
    func increment() -> Int {
        count.withLock {
            $0 += 1; return $0
        }
    }

    /// The current value.
    var value: Int { count.withLock { $0 } }
}
