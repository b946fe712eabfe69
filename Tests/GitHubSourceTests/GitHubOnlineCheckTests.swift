import Foundation
import GitHubSource
import Logging
import MonitorOptions
import TestSupport
import Testing

@testable import MonitorCore

/// One GitHub answer to a check and the line it must give.
struct CheckAnswer: Sendable, CustomTestStringConvertible {
    var what: String
    var options: [String: OptionValue]
    var url: String
    var answer: HTTPResponse
    var expected: OnlineCheck

    var testDescription: String { what }

    static let root = "https://api.github.test"

    static func json(_ text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    static let cases: [CheckAnswer] = [
        CheckAnswer(
            what: "a classic token without scopes", options: ["repo": .string("o/r"), "token": .string("ghp_t")],
            url: "\(root)/repos/o/r", answer: json("{}", headers: ["X-OAuth-Scopes": ""]),
            expected: .ok("repository o/r, token has no scopes")),
        CheckAnswer(
            what: "a scopes header of 8,001 scopes (48 KB): 30 of 40 cells at most, and how many more",
            options: ["repo": .string("o/r"), "token": .string("ghp_t")], url: "\(root)/repos/o/r",
            answer: json(
                "{}",
                headers: [
                    "X-OAuth-Scopes": (0..<8_000).map { "s\($0)" }.joined(separator: ", ") + ", "
                        + String(repeating: "x", count: 50)
                ]),
            expected: .ok(
                "repository o/r, token scopes \((0..<30).map { "s\($0)" }.joined(separator: ", ")) and 7,971 more")),
        CheckAnswer(
            what: "one long scope is cut to 40 cells",
            options: ["repo": .string("o/r"), "token": .string("ghp_t")], url: "\(root)/repos/o/r",
            answer: json("{}", headers: ["X-OAuth-Scopes": String(repeating: "x", count: 50)]),
            expected: .ok("repository o/r, token scopes \(String(repeating: "x", count: 39))…")),
        CheckAnswer(
            what: "no token, no rate headers", options: ["repo": .string("o/r")], url: "\(root)/repos/o/r",
            answer: json("{}"),
            expected: .ok("repository o/r")),
        CheckAnswer(
            what: "a user not found without a token", options: ["user": .string("ghost")], url: "\(root)/users/ghost",
            answer: json(#"{"message":"Not Found"}"#, status: 404), expected: .wrong("user ghost not found")),
        CheckAnswer(
            what: "an organisation not found with a token",
            options: ["org": .string("acme"), "token": .string("ghp_t")],
            url: "\(root)/orgs/acme", answer: json(#"{"message":"Not Found"}"#, status: 404),
            expected: .wrong("organisation acme not found or not visible with this token")),
        CheckAnswer(
            what: "a 403 that is no rate limit (SAML), its message without control characters",
            options: ["repo": .string("o/r"), "token": .string("ghp_t")], url: "\(root)/repos/o/r",
            answer: json(#"{"message":"Resource protected by SAML\u001b[31m enforcement"}"#, status: 403),
            expected: .wrong(
                "GET \(root)/repos/o/r: HTTP 403 Forbidden: Resource protected by SAML enforcement")),
        CheckAnswer(
            what: "a server error says nothing of the feed", options: ["repo": .string("o/r")],
            url: "\(root)/repos/o/r",
            answer: json("", status: 502), expected: .notChecked("GET \(root)/repos/o/r: HTTP 502 Bad Gateway")),
        CheckAnswer(
            what: "a 429 without a rate-limit header says nothing of the feed either",
            options: ["repo": .string("o/r")], url: "\(root)/repos/o/r", answer: json("", status: 429),
            expected: .notChecked("GET \(root)/repos/o/r: HTTP 429 Too Many Requests")),
        CheckAnswer(
            what: "a search finding one repository, the query encoded",
            options: ["search": .string("language:swift stars:>5")],
            url: "\(root)/search/repositories?q=language%3Aswift%20stars%3A%3E5&per_page=1",
            answer: json(
                #"{"total_count":1,"items":[]}"#,
                headers: ["x-ratelimit-limit": "10", "x-ratelimit-remaining": "9", "x-ratelimit-resource": "search"]),
            expected: .ok("search 'language:swift stars:>5' finds 1 repository; 9 of 10 search requests left")),
        CheckAnswer(
            what: "a search answer without total_count", options: ["search": .string("x")],
            url: "\(root)/search/repositories?q=x&per_page=1", answer: json(#"{"items":[]}"#),
            expected: .wrong(
                "GET \(root)/search/repositories?q=x&per_page=1: the answer is not a repository search's (no total_count)"
            )),
        CheckAnswer(
            what: "a search the API refuses", options: ["search": .string("x")],
            url: "\(root)/search/repositories?q=x&per_page=1",
            answer: json(#"{"message":"Validation Failed"}"#, status: 422),
            expected: .wrong(
                "GET \(root)/search/repositories?q=x&per_page=1: HTTP 422 Unprocessable Entity: Validation Failed")),
        CheckAnswer(
            what: "a count of thousands", options: ["repo": .string("o/r")], url: "\(root)/repos/o/r",
            answer: json("{}", headers: ["x-ratelimit-limit": "15000", "x-ratelimit-remaining": "1234567"]),
            expected: .ok("repository o/r; 1,234,567 of 15,000 requests left")),
    ]
}

@Suite("A github feed's online check: one request, and what its answer says")
struct GitHubOnlineCheckTests {
    @Test("the answer and the line", arguments: CheckAnswer.cases)
    func check(_ answer: CheckAnswer) async throws {
        let transport = StubTransport { _ in answer.answer }
        var options = answer.options
        options["api"] = .string(CheckAnswer.root)
        let feed = PollHarness.feed(GitHubSource.self, name: "rx", options: options)
        var policy = HTTPPolicy(settings: Settings())
        policy.retries = 0
        let logger = Logger(label: "test")
        let http = FeedHTTP(
            transport: transport, policy: policy, sourcePolicy: GitHubSource.httpPolicy, limiters: [], logger: logger)
        let context = OnlineCheckContext(
            feed: feed.name, options: feed.options, http: http, environment: [:], shared: SharedAnswers(),
            logger: logger)
        let check = await GitHubSource(options: feed.options).checkOnline(context)
        #expect(check == answer.expected)
        #expect(transport.requests.map(\.url) == [answer.url])
    }
}
