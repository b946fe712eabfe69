import Foundation
import GitHubSource
import LoopbackHTTP
import MonitorItems
import MonitorOptions
import MonitorSQLite
import PostgresTestSupport
import Synchronization
import TestSupport
import Testing

@testable import MonitorCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A plain URLSession transport, enough to poll the fake API through a real HTTP server in these tests (the
/// app's AsyncHTTPClient transport is not a dependency of this test target).
private final class SessionTransport: HTTPTransport {
    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let url = URL(string: request.url) else { throw TransportError.invalid("bad URL \(request.url)") }
        var outgoing = URLRequest(url: url)
        outgoing.httpMethod = request.method
        for field in request.headers { outgoing.addValue(field.value, forHTTPHeaderField: field.name) }
        let (data, response) = try await session.data(for: outgoing)
        guard let http = response as? HTTPURLResponse else { throw TransportError.invalid("not HTTP") }
        let headers = HTTPHeaders(
            http.allHeaderFields.compactMap { key, value in (key as? String).map { ($0, "\(value)") } })
        return HTTPResponse(status: http.statusCode, headers: headers, body: Array(data))
    }
}

@Suite("The github source over real HTTP, against the fake API served by TestHTTPServer", .timeLimit(.minutes(5)))
struct GitHubWireTests {
    @Test("a first sync through Link pages, then a 304")
    func wire() async throws {
        let api = GitHubFixtures.API(token: "ghp_wire")
        api.setEvents(
            GitHubFixtures.pushes(130, repo: "a/b", firstID: 7000, newest: Date(timeIntervalSince1970: 1_795_323_600)),
            of: "repos/a/b")
        try await withTestHTTPServer({ TestResponse(api.serve(HTTPRequest($0))) }) { server in
            let harness = PollHarness()
            let feed = PollHarness.feed(
                GitHubSource.self, name: "ab",
                options: [
                    "repo": .string("a/b"), "api": .string(server.baseURL), "keep": .integer(150),
                    "token": .string("ghp_wire"),
                ])
            let transport = SessionTransport()
            let first = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect(first.status == .ok)
            #expect((first.requests, first.items, first.new) == (2, 130, 130))
            let second = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect(second.status == .notModified)
            #expect((second.requests, second.notModified, second.items, second.new) == (1, 1, 130, 0))
            let id = GitHubFixtures.API.id(of: "repos/a/b")
            #expect(
                server.requests.map(\.uri) == [
                    "/repos/a/b/events?per_page=100", "/repositories/\(id)/events?per_page=100&page=2",
                    "/repos/a/b/events?per_page=100",
                ])
            #expect(server.requests.allSatisfy { $0.header("Authorization") == "Bearer ghp_wire" })
            #expect(server.requests.last?.header("If-None-Match") == api.exchanges.first?.response.headers["ETag"])
        }
    }

    /// The 64-bit FNV-1a fingerprint versions before SHA-256 stored for a credential.
    static func legacyFingerprint(_ credential: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "monitor-credential:\(credential)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test("validators stored under the old FNV-1a fingerprint: one unconditional request, no item lost, then deleted")
    func legacyFingerprint() async throws {
        let token = "ghp_wire"
        let api = GitHubFixtures.API(token: token)
        api.setEvents(
            GitHubFixtures.pushes(30, repo: "a/b", firstID: 7000, newest: Date(timeIntervalSince1970: 1_795_323_600)),
            of: "repos/a/b")
        try await withTestHTTPServer({ TestResponse(api.serve(HTTPRequest($0))) }) { server in
            let directory = try TemporaryDirectory()
            let harness = PollHarness(store: try SQLiteStateStore(directory: directory.url), keeping: directory)
            let feed = PollHarness.feed(
                GitHubSource.self, name: "ab",
                options: [
                    "repo": .string("a/b"), "api": .string(server.baseURL), "keep": .integer(150),
                    "token": .string(token),
                ])
            let transport = SessionTransport()
            let first = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect((first.status, first.requests, first.items, first.new) == (.ok, 1, 30, 30))
            let url = "\(server.baseURL)/repos/a/b/events?per_page=100"
            let current = ValidatorKey(
                url: url, credential: "baf9dad058bd3c949cde5a5d39673dc90383d653ee400dff8a71cdab92899430")
            let stored = try await harness.store.snapshot(feed: "ab")
            let validators = try #require(stored.validators[current])
            let etag = try #require(validators.etag)
            #expect(stored.validators.count == 1)

            // The state as an earlier version left it: the same validators under the FNV-1a fingerprint.
            let legacy = ValidatorKey(url: url, credential: Self.legacyFingerprint(token))
            #expect(legacy.credential == "984ae34fbdebbb06")
            try await harness.store.commit(
                PollCommit(
                    record: try #require(stored.record), items: nil, firstSeen: Date(), groups: nil,
                    validators: [current: Validators(etag: nil, lastModified: nil), legacy: validators],
                    values: [:]),
                feed: "ab")
            #expect(
                try await harness.store.snapshot(feed: "ab").validators.keys.map(\.credential) == [legacy.credential])

            // The old key is not used: the request is unconditional, answered whole, and no item is lost or new.
            let second = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect(
                (second.status, second.requests, second.notModified, second.items, second.new) == (.ok, 1, 0, 30, 0))
            #expect(server.requests.count == 2)
            #expect(server.requests.last?.header("If-None-Match") == nil)
            let after = try await harness.store.snapshot(feed: "ab")
            #expect(after.items.count == 30)
            #expect(after.items.map(\.id) == stored.items.map(\.id))
            // The old row is gone; the validators are under the SHA-256 fingerprint again.
            #expect(after.validators == [current: validators])
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            where name.hasPrefix("state.sqlite") {
                let bytes = try Data(contentsOf: directory.url.appendingPathComponent(name))
                #expect(bytes.range(of: Data(token.utf8)) == nil, "the token is in \(name)")
            }

            // And the next poll is conditional again.
            let third = await harness.poll(GitHubSource.self, feed: feed, transport: transport).report
            #expect((third.status, third.requests, third.notModified) == (.notModified, 1, 1))
            #expect(server.requests.last?.header("If-None-Match") == etag)
        }
    }
}

/// GitHub's events as they have come since the 2025 payload cut, filled in from `pulls`, `compare` and `commits`
/// over real HTTP (`details: true`).
@Suite("The github source fills in trimmed events over real HTTP", .timeLimit(.minutes(5)))
struct GitHubFillInWireTests {
    static let before = String(repeating: "b", count: 40)
    static let head = String(repeating: "c", count: 40)

    /// A trimmed event of `o/r`, as the 2026 API sends it.
    static func event(_ id: Int, _ type: String, _ payload: String) -> String {
        #"{"id": "\#(id)", "type": "\#(type)", "actor": {"id": 1, "login": "alice", "display_login": "alice"}, "#
            + #""repo": {"id": 2, "name": "o/r", "url": "https://api.github.com/repos/o/r"}, "payload": \#(payload), "#
            + #""public": true, "created_at": "2026-11-30T12:00:0\#(id)Z"}"#
    }

    static func pull(_ number: Int) -> String {
        #"{"id": 9, "number": \#(number), "url": "https://api.github.com/repos/o/r/pulls/\#(number)", "#
            + #""head": {"ref": "x", "sha": "\#(head)"}, "base": {"ref": "main", "sha": "\#(before)"}}"#
    }

    static let firstPage =
        "["
        + [
            event(4, "PullRequestEvent", #"{"action": "opened", "number": 812, "pull_request": \#(pull(812))}"#),
            event(3, "PullRequestReviewEvent", #"{"action": "created", "pull_request": \#(pull(812))}"#),
            event(
                2, "PushEvent",
                #"{"repository_id": 2, "push_id": 5, "ref": "refs/heads/main", "head": "\#(head)", "before": "\#(before)"}"#
            ),
            event(1, "PullRequestEvent", #"{"action": "closed", "number": 404, "pull_request": \#(pull(404))}"#),
        ].joined(separator: ",") + "]"

    /// The fake API: the events page (with `remaining` requests left), pull request 812, a comparison; 404 else.
    static func serve(_ request: RecordedRequest, remaining: Int) -> TestResponse {
        let limits = [("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "\(remaining)")]
        switch request.uri {
        case "/repos/o/r/events?per_page=50":
            return TestResponse(headers: limits + [("ETag", "\"events\"")], body: Array(firstPage.utf8))
        case "/repos/o/r/pulls/812":
            let body =
                #"{"number": 812, "state": "open", "title": "Speed up the parser", "user": {"login": "alice"}, "#
                + #""draft": false, "merged": false}"#
            return TestResponse(headers: limits + [("ETag", "\"p812\"")], body: Array(body.utf8))
        case "/repos/o/r/compare/\(before)...\(head)":
            let body =
                #"{"status": "ahead", "total_commits": 2, "commits": [{"commit": {"message": "Read faster"}}, "#
                + #"{"commit": {"message": "Fix the retry loop\nso that it ends"}}]}"#
            return TestResponse(headers: limits, body: Array(body.utf8))
        default:
            return TestResponse(status: 404, headers: limits, body: Array(#"{"message": "Not Found"}"#.utf8))
        }
    }

    static func feed(_ server: TestHTTPServer) -> FeedConfig {
        PollHarness.feed(
            GitHubSource.self, name: "or",
            options: [
                "repo": .string("o/r"), "api": .string(server.baseURL), "token": .string("ghp_fill"),
                "details": .boolean(true),
            ])
    }

    @Test("each pull request and push asked once; titles, authors, states and commits filled in; a 404 leaves its item")
    func filled() async throws {
        try await withTestHTTPServer({ Self.serve($0, remaining: 4000) }) { server in
            let harness = PollHarness()
            let report = await harness.poll(GitHubSource.self, feed: Self.feed(server), transport: SessionTransport())
                .report
            #expect((report.status, report.items, report.new, report.notes) == (.ok, 4, 4, []))
            let items = try await harness.store.snapshot(feed: "or").items
            #expect(
                items.map(\.title) == [
                    "alice opened pull request #812: Speed up the parser",
                    "alice reviewed pull request #812: Speed up the parser",
                    "alice pushed 2 commits to main: Fix the retry loop",
                    "alice closed pull request #404 in o/r",
                ])
            #expect(items[0].details.suffix(2) == [Detail("author", "alice"), Detail("state", "open")])
            #expect(items[2].details.last == Detail("commits", "2"))
            #expect(items[3].details.map(\.name) == ["actor", "repo", "number", "action"])
            // The events first, then each fill-in once (in any order: they run at once).
            #expect(server.requests.first?.uri == "/repos/o/r/events?per_page=50")
            #expect(
                server.requests.dropFirst().map(\.uri).sorted() == [
                    "/repos/o/r/compare/\(Self.before)...\(Self.head)", "/repos/o/r/pulls/404",
                    "/repos/o/r/pulls/812",
                ])
            #expect(server.requests.allSatisfy { $0.header("Authorization") == "Bearer ghp_fill" })
            #expect(server.requests.allSatisfy { $0.header("If-None-Match") == nil })
        }
    }

    @Test(
        "a later poll: a new event of a pull request asked about an hour ago asks with If-None-Match, a 304 keeps it",
        arguments: StateBackend.databases)
    func later(_ backend: StateBackend) async throws {
        let polls = Mutex(0)
        let review = Self.event(
            5, "PullRequestReviewEvent", #"{"action": "created", "pull_request": \#(Self.pull(812))}"#)
        try await withTestHTTPServer({ request in
            if request.uri == "/repos/o/r/events?per_page=50",
                polls.withLock({
                    $0 += 1; return $0
                }) == 2
            {
                let page = "[" + review + "," + Self.firstPage.dropFirst()
                return TestResponse(headers: [("ETag", "\"events2\"")], body: Array(page.utf8))
            }
            if request.uri == "/repos/o/r/pulls/812", request.header("If-None-Match") == "\"p812\"" {
                return TestResponse(status: 304)
            }
            return Self.serve(request, remaining: 4000)
        }) { server in
            // The kept answers and their validators go through the state, as another instance would read them.
            let harness = try await PollHarness.make(backend)
            let clock = ManualClock()
            let feed = Self.feed(server)
            _ = await harness.poll(GitHubSource.self, feed: feed, transport: SessionTransport(), clock: clock)
            let asked = server.requests.count
            clock.advance(by: .seconds(7200))
            let report = await harness.poll(GitHubSource.self, feed: feed, transport: SessionTransport(), clock: clock)
                .report
            #expect((report.status, report.items, report.new) == (.ok, 5, 1))
            let items = try await harness.store.snapshot(feed: "or").items
            #expect(items.first?.title == "alice reviewed pull request #812: Speed up the parser")
            #expect(
                items.dropFirst().map(\.title).prefix(3) == [
                    "alice opened pull request #812: Speed up the parser",
                    "alice reviewed pull request #812: Speed up the parser",
                    "alice pushed 2 commits to main: Fix the retry loop",
                ])
            let later = server.requests.dropFirst(asked)
            #expect(later.map(\.uri) == ["/repos/o/r/events?per_page=50", "/repos/o/r/pulls/812"])
            #expect(later.map { $0.header("If-None-Match") } == ["\"events\"", "\"p812\""])
        }
    }

    @Test("a stored event whose kept answer was dropped (more than 300 kept) keeps its details on a later poll")
    func evicted() async throws {
        // E1, the newest event, is filled in first; then 398 older pull requests' answers push its answer out (the
        // feed keeps 300 answers, the oldest go first), and the same page is polled once more.
        let newest = Self.event(
            1, "PullRequestEvent", #"{"action": "opened", "number": 1, "pull_request": \#(Self.pull(1))}"#)
        let opened = { (numbers: ClosedRange<Int>, day: Int) in
            numbers.map { number in
                #"{"id": "\#(number)", "type": "PullRequestEvent", "actor": {"id": 1, "login": "alice"}, "#
                    + #""repo": {"id": 2, "name": "o/r", "url": "https://api.github.com/repos/o/r"}, "#
                    + #""payload": {"action": "opened", "number": \#(number), "pull_request": \#(Self.pull(number))}, "#
                    + #""public": true, "created_at": "2026-11-\#(day)T12:00:00Z"}"#
            }
        }
        let pages = [[newest], [newest] + opened(2...200, 28), [newest] + opened(201...399, 29)]
        let polls = Mutex(0)
        try await withTestHTTPServer({ request in
            let limits = [("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "4000")]
            if request.uri.hasPrefix("/repos/o/r/events?") {
                let page = polls.withLock {
                    $0 += 1
                    return pages[min($0, 3) - 1]
                }
                return TestResponse(headers: limits, body: Array(("[" + page.joined(separator: ",") + "]").utf8))
            }
            let number = request.uri.split(separator: "/").last.map(String.init) ?? ""
            let body = #"{"number": \#(number), "state": "open", "title": "Pull \#(number)", "user": {"login": "bob"}}"#
            return TestResponse(headers: limits, body: Array(body.utf8))
        }) { server in
            let harness = PollHarness()
            let clock = ManualClock()
            var options: [String: OptionValue] = ["repo": .string("o/r"), "api": .string(server.baseURL)]
            options["details"] = .boolean(true)
            options["keep"] = .integer(300)
            let feed = PollHarness.feed(GitHubSource.self, name: "or", options: options)
            for _ in 0..<4 {
                let report = await harness.poll(
                    GitHubSource.self, feed: feed, transport: SessionTransport(), clock: clock
                )
                .report
                #expect(report.status == .ok, "\(report.error ?? "")")
                clock.advance(by: .seconds(60))
            }
            let values = try await harness.store.snapshot(feed: "or").values
            #expect(values.keys.filter { $0.hasPrefix("fill ") }.count == 300)
            #expect(values["fill /repos/o/r/pulls/1"] == nil)
            let stored = try await harness.store.items(feed: "or", limit: 1)
            #expect(stored.map(\.title) == ["alice opened pull request #1: Pull 1"])
            #expect(stored.first?.details.suffix(2) == [Detail("author", "bob"), Detail("state", "open")])
        }
    }

    @Test("a 409, a 422, a 500 and garbage leave their items as the events say, a huge title is cut; the feed is ok")
    func failures() async throws {
        let numbers = [409, 422, 500, 601, 602]
        let page =
            "["
            + numbers.enumerated().map { index, number in
                Self.event(
                    index, "PullRequestEvent",
                    #"{"action": "opened", "number": \#(number), "pull_request": \#(Self.pull(number))}"#)
            }.joined(separator: ",") + "]"
        let limits = [("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "4000")]
        try await withTestHTTPServer({ request in
            switch request.uri {
            case "/repos/o/r/events?per_page=50": return TestResponse(headers: limits, body: Array(page.utf8))
            case "/repos/o/r/pulls/409": return TestResponse(status: 409, headers: limits)
            case "/repos/o/r/pulls/422": return TestResponse(status: 422, headers: limits)
            case "/repos/o/r/pulls/500": return TestResponse(status: 500, headers: limits)
            case "/repos/o/r/pulls/601": return TestResponse(headers: limits, body: Array("<html>busy</html>".utf8))
            default:
                let title = String(repeating: "x", count: 70_000)
                return TestResponse(headers: limits, body: Array(#"{"title": "\#(title)"}"#.utf8))
            }
        }) { server in
            let harness = PollHarness()
            let report = await harness.poll(GitHubSource.self, feed: Self.feed(server), transport: SessionTransport())
                .report
            #expect((report.status, report.items, report.new, report.notes) == (.ok, 5, 5, []))
            let items = try await harness.store.snapshot(feed: "or").items
            let cut = "alice opened pull request #602: " + String(repeating: "x", count: 299) + "…"
            #expect(
                items.map(\.title) == [cut] + [601, 500, 422, 409].map { "alice opened pull request #\($0) in o/r" })
            #expect(Set(server.requests.dropFirst().map(\.uri)).count == numbers.count)
        }
    }

    @Test("under the reserve of the rate budget nothing is asked: the items are stored as the events say")
    func reserve() async throws {
        try await withTestHTTPServer({ Self.serve($0, remaining: 99) }) { server in
            let harness = PollHarness()
            let report = await harness.poll(GitHubSource.self, feed: Self.feed(server), transport: SessionTransport())
                .report
            #expect((report.status, report.items, report.new, report.requests) == (.ok, 4, 4, 1))
            let note = "4 new items left without details: fewer than 100 requests were left in the rate budget"
            #expect(report.notes == [note])
            #expect(SummaryText.headline(report).hasSuffix("\n  note: \(note)\n"))
            #expect(report.json.text.hasSuffix(#","notes":["\#(note)"]}"#))
            let items = try await harness.store.snapshot(feed: "or").items
            #expect(
                items.map(\.title) == [
                    "alice opened pull request #812 in o/r", "alice reviewed pull request #812 in o/r",
                    "alice pushed to main", "alice closed pull request #404 in o/r",
                ])
            #expect(server.requests.map(\.uri) == ["/repos/o/r/events?per_page=50"])
        }
    }
}
