import Foundation
import TestSupport
import Testing

@testable import MonitorCore

@Suite("Shared rate budgets: keys, requests in flight, windows and holds", .timeLimit(.minutes(5)))
struct RateBudgetsTests {
    let now = Date(timeIntervalSince1970: 1_795_323_600)

    func limit(remaining: Int, reset: Date) -> RateLimit {
        var headers = HTTPHeaders()
        headers.add("x-ratelimit-limit", "5000")
        headers.add("x-ratelimit-remaining", "\(remaining)")
        headers.add("x-ratelimit-reset", "\(Int(reset.timeIntervalSince1970))")
        return RateLimit(headers: headers)!
    }

    @Test("a key is the origin, a fingerprint of the credential and the resource; never the credential")
    func keys() {
        let key = RateBudgets.Key(
            url: "HTTPS://API.GitHub.com/repos/a/b/events?x=1", credential: "ghp_x", resource: "core")
        #expect(key.origin == "https://api.github.com:443")
        // SHA-256 of "monitor-credential:ghp_x", whole (`printf 'monitor-credential:ghp_x' | sha256sum`).
        #expect(key.credential == "8e0698f9973a22d0c500125ac075ce62afd8717adf3d9252d10267a6584d35ab")
        #expect(key.credential == ValidatorKey.fingerprint("ghp_x"))
        #expect(!key.credential.contains("ghp_x"))
        #expect(ValidatorKey(url: "https://api.github.com/x", credentialValue: "ghp_x").credential == key.credential)
        #expect(
            key == RateBudgets.Key(url: "https://api.github.com:443/users/u", credential: "ghp_x", resource: "core"))
        #expect(key != RateBudgets.Key(url: "https://api.github.com/x", credential: "ghp_y", resource: "core"))
        #expect(key != RateBudgets.Key(url: "https://api.github.com/x", credential: "ghp_x", resource: "search"))
        #expect(key != RateBudgets.Key(url: "http://api.github.com/x", credential: "ghp_x", resource: "core"))
        #expect(RateBudgets.Key(url: "http://h/x", credential: nil, resource: "core").credential == "")
    }

    @Test("two different tokens never share a budget key, nor a validator key; no key contains its token")
    func distinctTokens() {
        // Tokens a character apart, of every length up to 70, and 2,000 random ones.
        var tokens = Set<String>()
        for length in 1...70 {
            let base = String(repeating: "a", count: length)
            tokens.insert(base)
            tokens.insert(String(base.dropLast()) + "b")
            tokens.insert("ghp_" + base)
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
        while tokens.count < 2_210 {
            tokens.insert("ghp_" + String((0..<36).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        #expect(tokens.count == 2_210)
        let keys = tokens.map { RateBudgets.Key(url: "https://api.github.com/x", credential: $0, resource: "core") }
        #expect(Set(keys).count == tokens.count)
        #expect(Set(tokens.map { ValidatorKey(url: "https://api.github.com/x", credentialValue: $0) }).count == 2_210)
        for (token, key) in zip(tokens, keys) {
            #expect(key.credential.utf8.count == 64)
            #expect(key.credential.allSatisfy { "0123456789abcdef".contains($0) })
            // (A token of one or two letters may well be in 64 hexadecimal digits: the ghp_ ones cannot.)
            if token.hasPrefix("ghp_") { #expect(!key.credential.contains(token)) }
        }
    }

    @Test("requests in flight count against what is left; one that may not fit waits for their answers")
    func inFlight() async throws {
        let budgets = RateBudgets()
        let key = RateBudgets.Key(url: "https://api.test/a", credential: "t", resource: "core")
        let reset = now.addingTimeInterval(600)
        // Nothing known: both go.
        #expect(try await budgets.spend(key, now: now).hold == nil)
        #expect(try await budgets.spend(key, now: now).hold == nil)
        // The server counted both when it answered the first (1 left): with the second in flight, a third waits.
        await budgets.settle(key, answer: limit(remaining: 1, reset: reset))
        async let third = budgets.spend(key, now: now)
        // The second's answer was counted before the first's: 2 left by it, 1 by the least. The third goes.
        await budgets.settle(key, answer: limit(remaining: 2, reset: reset))
        #expect(try await third.hold == nil)
        await budgets.settle(key, answer: limit(remaining: 0, reset: reset))
        #expect(
            try await budgets.spend(key, now: now).hold
                == RateBudgets.Hold(until: reset, reason: "rate limit exhausted"))
        // At the reset the window is new and the count unknown.
        #expect(try await budgets.spend(key, now: reset).hold == nil)
        // A late answer from the old window changes nothing; the new one's count holds.
        await budgets.settle(key, answer: limit(remaining: 1, reset: reset.addingTimeInterval(3600)))
        await budgets.learn(limit(remaining: 0, reset: reset), for: key)
        #expect(try await budgets.spend(key, now: reset).hold == nil)
        await budgets.settle(key, answer: limit(remaining: 0, reset: reset.addingTimeInterval(3600)))
        #expect(
            try await budgets.spend(key, now: reset).hold
                == RateBudgets.Hold(until: reset.addingTimeInterval(3600), reason: "rate limit exhausted"))
    }

    @Test("a hold closes the budget until it ends; an earlier hold does not shorten a later one")
    func holds() async throws {
        let budgets = RateBudgets()
        let key = RateBudgets.Key(url: "https://api.test/a", credential: nil, resource: "core")
        let later = RateBudgets.Hold(until: now.addingTimeInterval(60), reason: "secondary rate limit")
        await budgets.hold(key, later)
        await budgets.hold(
            key, RateBudgets.Hold(until: now.addingTimeInterval(5), reason: "HTTP 429 asked to retry later"))
        #expect(try await budgets.spend(key, now: now.addingTimeInterval(30)).hold == later)
        #expect(try await budgets.spend(key, now: now.addingTimeInterval(60)).hold == nil)
    }
}

@Suite("Without its source's policy, the core follows only the generic HTTP rules")
struct GenericHTTPPolicyTests {
    @Test("a 403 saying 'secondary rate limit' and X-Poll-Interval mean nothing to a source without GitHub's policy")
    func genericRules() async throws {
        let harness = PollHarness()
        let transport = StubTransport { request in
            request.url.hasSuffix("/a")
                ? HTTPResponse(
                    status: 403, headers: ["x-ratelimit-resource": "search"],
                    body: Array(#"{"message":"You have exceeded a secondary rate limit."}"#.utf8))
                : HTTPResponse(status: 200, headers: ["X-Poll-Interval": "600"], body: Array("1".utf8))
        }
        let feed = PollHarness.feed(ScriptedSource.self, options: ["urls": .list(["http://x/a", "http://x/b"])])
        let report = await harness.poll(ScriptedSource.self, feed: feed, transport: transport).report
        #expect(report.status == .partial)
        #expect(
            report.error == "group 'a': GET http://x/a: HTTP 403 Forbidden: You have exceeded a secondary rate limit.")
        #expect(report.notBefore == nil)
        #expect(report.minimumInterval == nil)
    }
}
