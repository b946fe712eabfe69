import Foundation
import GitHubSource
import LoopbackHTTP
import MonitorText
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

/// A fake API with a rate limit per token: `limit` requests per window, then 403 with `x-ratelimit-remaining: 0`.
private final class LimitedAPI: Sendable {
    let limits: [String: Int]
    let reset: Int
    private let spent = Mutex<[String: Int]>([:])

    init(limits: [String: Int], reset: Int) {
        self.limits = limits
        self.reset = reset
    }

    /// Requests sent with each `Authorization` value.
    var requests: [String: Int] { spent.withLock { $0 } }

    func answer(_ request: RecordedRequest) -> TestResponse {
        let token = request.header("Authorization") ?? ""
        let limit = limits[token] ?? 60
        let used = spent.withLock { spent -> Int in
            spent[token, default: 0] += 1
            return spent[token]!
        }
        let headers: [(name: String, value: String)] = [
            ("x-ratelimit-limit", "\(limit)"), ("x-ratelimit-remaining", "\(max(limit - used, 0))"),
            ("x-ratelimit-reset", "\(reset)"), ("x-ratelimit-resource", "core"),
        ]
        guard used <= limit else {
            return .json(#"{"message":"API rate limit exceeded"}"#, status: 403, headers: headers)
        }
        return .json("[]", headers: headers)
    }
}

@Suite(
    "A rate limit learned by one feed holds for every feed with the same API host and token", .timeLimit(.minutes(5)))
struct RateBudgetWireTests {
    @Test("six feeds with one token and a limit of 3 send exactly 3 requests; another token and another host go on")
    func sharedBudget() async throws {
        let reset = Int(Date().timeIntervalSince1970) + 1800
        let until = UTCTime.full(Date(timeIntervalSince1970: Double(reset)))
        let api = LimitedAPI(limits: ["Bearer ghp_shared": 3, "Bearer ghp_other": 5000], reset: reset)
        let elsewhere = LimitedAPI(limits: ["Bearer ghp_shared": 3], reset: reset)
        // Two requests in flight at once: the budget must hold for feeds whose requests overlap.
        let wire = try Wire(settings: settings(retries: 0, concurrency: 2))
        try await withTestHTTPServer({ api.answer($0) }) { server in
            try await withTestHTTPServer({ elsewhere.answer($0) }) { other in
                func feed(_ index: Int, token: String, api root: String) -> FeedConfig {
                    PollHarness.feed(
                        GitHubSource.self, name: "f\(index)",
                        options: ["repo": .string("o/r\(index)"), "api": .string(root), "token": .string(token)])
                }
                let feeds = (0..<6).map { feed($0, token: "ghp_shared", api: server.baseURL) }
                let reports = await withTaskGroup(of: PollReport.self) { group in
                    for feed in feeds { group.addTask { await wire.poll(GitHubSource.self, feed) } }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(api.requests == ["Bearer ghp_shared": 3])
                #expect(server.requests.count == 3)
                let ok = reports.filter { $0.status == .ok }
                let held = reports.filter { $0.status == .failed }
                #expect((ok.count, held.count) == (3, 3))
                for report in held {
                    let index = report.feed.dropFirst()
                    #expect(
                        report.error
                            == "GET \(server.baseURL)/repos/o/r\(index)/events?per_page=50: rate limit exhausted; not polled again before \(until)"
                    )
                    let record = try #require(try await wire.harness.store.snapshot(feed: report.feed).record)
                    #expect(record.notBefore == Date(timeIntervalSince1970: Double(reset)))
                    #expect(record.holdReason == "rate limit exhausted")
                }
                // A feed that polled fine is held back too on its next poll, without sending.
                let again = await wire.poll(GitHubSource.self, feeds.first { $0.name == ok[0].feed }!)
                #expect(again.status == .failed)
                #expect(server.requests.count == 3)

                // Another token on the same host, and the same token on another host, have budgets of their own.
                let otherToken = await wire.poll(GitHubSource.self, feed(6, token: "ghp_other", api: server.baseURL))
                #expect(otherToken.status == .ok)
                let otherHost = await wire.poll(GitHubSource.self, feed(7, token: "ghp_shared", api: other.baseURL))
                #expect(otherHost.status == .ok)
                #expect(api.requests == ["Bearer ghp_shared": 3, "Bearer ghp_other": 1])
                #expect(elsewhere.requests == ["Bearer ghp_shared": 1])
            }
        }
        try await wire.shutdown()
    }

    @Test("200 feeds with one token polled at once, 8 requests in flight, spend exactly the 50 the server allows")
    func manyFeeds() async throws {
        let reset = Int(Date().timeIntervalSince1970) + 1800
        let api = LimitedAPI(limits: ["Bearer ghp_many": 50], reset: reset)
        let wire = try Wire(settings: settings(retries: 0, concurrency: 8))
        try await withTestHTTPServer({ api.answer($0) }) { server in
            let reports = await withTaskGroup(of: PollReport.Status.self) { group in
                for index in 0..<200 {
                    let feed = PollHarness.feed(
                        GitHubSource.self, name: "f\(index)",
                        options: [
                            "repo": .string("o/r\(index)"), "api": .string(server.baseURL),
                            "token": .string("ghp_many"),
                        ])
                    group.addTask { await wire.poll(GitHubSource.self, feed).status }
                }
                return await group.reduce(into: [:]) { $0[$1, default: 0] += 1 }
            }
            #expect(api.requests == ["Bearer ghp_many": 50])
            #expect(server.requests.count == 50)
            #expect(reports == [.ok: 50, .failed: 150])
        }
        try await wire.shutdown()
    }
}
