import Foundation
import LoopbackHTTP
import MonitorText
import PostgresTestSupport
import TestSupport
import Testing

@testable import MonitorCore

#if canImport(Glibc)
    import Glibc
#endif

/// `monitor validate --online`, run as a user would against the stand-in and loopback servers: one line per feed and
/// notifier in the order of the file, a count, exit 1 only when a check found something wrong, no secret shown.
@Suite("validate --online")
struct ValidateOnlineTests {
    /// The stand-in's tokens: a classic one with two scopes, a classic one without `repo`, a fine-grained one.
    static let standInArguments = [
        "--github-token", "ghp_classicToken0001:repo,read:org", "--github-token", "ghp_publicToken00002:read:org",
        "--github-token", "github_pat_fineGrained03", "--github-missing", "ReactiveX/RxSwfit", "--github-missing",
        "language:cobol stars:>999999", "--github-private", "acme/secret",
    ]
    static let tokens = ["ghp_classicToken0001", "ghp_publicToken00002", "github_pat_fineGrained03", "ghp_revoked0004"]

    /// A directory with an executable `source.sh` and a `plain.sh` without execute permission.
    static func directory() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try directory.write("source.sh", "#!/bin/sh\nexit 0\n")
        chmod(directory.url.appendingPathComponent("source.sh").path, 0o755)
        try directory.write("plain.sh", "#!/bin/sh\nexit 0\n")
        chmod(directory.url.appendingPathComponent("plain.sh").path, 0o644)
        return directory
    }

    /// `monitor validate --online` in `directory` (a new one of ``directory()`` when nil) whose feeds file is `feeds`.
    static func validate(
        _ feeds: String, environment: [String: String] = [:], in directory: TemporaryDirectory? = nil
    ) async throws -> MonitorProcess.Result {
        let directory = try directory ?? Self.directory()
        try directory.write("feeds.yaml", feeds)
        return try await MonitorProcess.run(["validate", "--online"], in: directory.url, environment: environment)
    }

    /// `GET /_stats` of the stand-in, the counters asked for.
    static func requests(_ standIn: StandIn) async throws -> (eonet: Int, github: Int) {
        let stats = try #require(
            try JSONSerialization.jsonObject(with: try await standIn.get("/_stats")) as? [String: Any])
        return (try #require(stats["eonetRequests"] as? Int), try #require(stats["githubRequests"] as? Int))
    }

    @Test("every feed and notifier ok: one line each with what was learnt, the count, exit 0; one request each")
    func allOK() async throws {
        let directory = try Self.directory()
        let dir = directory.url.path
        let standIn = try await StandIn(arguments: Self.standInArguments)
        defer { standIn.stop() }
        let api = "http://127.0.0.1:\(standIn.port)"
        let result = try await Self.validate(
            """
            feeds:
              - {name: rx, type: github, repo: ReactiveX/RxSwift, token: ghp_classicToken0001, api: "\(api)"}
              - {name: swift, type: github, org: swiftlang, token: github_pat_fineGrained03, api: "\(api)"}
              - {name: octo, type: github, user: octocat, api: "\(api)"}
              - {name: top, type: github, search: "language:swift", token: ghp_publicToken00002, api: "\(api)"}
              - {name: fires, type: eonet, categories: [wildfires, volcanoes], api: "\(api)/api/v3"}
              - {name: planet, type: eonet, api: "\(api)/api/v3"}
              - {name: script, type: exec, command: [./source.sh]}
            notify:
              - {name: hook, type: webhook, url: "http://localhost:9/hooks/T0000/B0000/XXXXsecretXXXX"}
              - {name: run, type: command, command: [./source.sh, --flag]}
            """, in: directory)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                feeds.yaml: ok, 7 feeds: rx (github), swift (github), octo (github), top (github), fires (eonet), \
                planet (eonet), script (exec); 2 notifiers: hook (webhook), run (command)
                rx: ok: repository ReactiveX/RxSwift, token scopes repo, read:org; 4,999 of 5,000 requests left
                swift: ok: organisation swiftlang, token scopes not told (a fine-grained token: its permissions are \
                not shown); 4,999 of 5,000 requests left
                octo: ok: user octocat; 4,999 of 5,000 requests left
                top: ok: search 'language:swift' finds 10 repositories, token scopes read:org; 29 of 30 search \
                requests left
                fires: ok: 2 of 13 categories: volcanoes, wildfires
                planet: ok: all 13 categories
                script: ok: program './source.sh' is \(dir)/source.sh
                notifier hook: ok: host localhost resolves (nothing sent)
                notifier run: ok: program './source.sh' is \(dir)/source.sh
                9 ok, 0 wrong, 0 not checked

                """)
        #expect(result.status == 0)
        // One request per GitHub feed; EONET's categories asked once for the two feeds of the same API.
        let counted = try await Self.requests(standIn)
        #expect(counted.github == 4)
        #expect(counted.eonet == 1)
        for token in Self.tokens { #expect(!result.stdout.contains(token)) }
    }

    @Test("a missing repository, no access, an unknown category, programs and a host not there: each wrong, exit 1")
    func problems() async throws {
        let directory = try Self.directory()
        let dir = directory.url.path
        let standIn = try await StandIn(arguments: Self.standInArguments)
        defer { standIn.stop() }
        let api = "http://127.0.0.1:\(standIn.port)"
        let result = try await Self.validate(
            """
            feeds:
              - {name: typo, type: github, repo: ReactiveX/RxSwfit, api: "\(api)"}
              - {name: hidden, type: github, repo: acme/secret, token: ghp_publicToken00002, api: "\(api)"}
              - {name: private, type: github, repo: acme/secret, token: ghp_classicToken0001, api: "\(api)"}
              - {name: revoked, type: github, repo: ReactiveX/RxSwift, token: ghp_revoked0004, api: "\(api)"}
              - {name: cobol, type: github, search: "language:cobol stars:>999999", api: "\(api)"}
              - {name: fires, type: eonet, categories: [wildfire, volcanoes], api: "\(api)/api/v3"}
              - {name: old, type: eonet, api: "\(api)/api/v2.1"}
              - {name: gone, type: exec, command: [./nope.sh]}
              - {name: plain, type: exec, command: [./plain.sh]}
            notify:
              - {name: hook, type: webhook, url: "https://hooks.example.invalid/services/XXXXsecretXXXX"}
              - {name: run, type: command, command: [./missing-notifier]}
            """, in: directory)
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                feeds.yaml: ok, 9 feeds: typo (github), hidden (github), private (github), revoked (github), \
                cobol (github), fires (eonet), old (eonet), gone (exec), plain (exec); 2 notifiers: hook (webhook), \
                run (command)
                typo: wrong: repository ReactiveX/RxSwfit not found (or private: it needs a token)
                hidden: wrong: repository acme/secret not found or not visible with this token
                private: ok: repository acme/secret, token scopes repo, read:org; 4,999 of 5,000 requests left
                revoked: wrong: token rejected (bad credentials)
                cobol: wrong: search 'language:cobol stars:>999999' finds no repositories
                fires: wrong: unknown category 'wildfire' (did you mean 'wildfires'? valid: drought, dustHaze, \
                earthquakes, floods, landslides, manmade, seaLakeIce, severeStorms, snow, tempExtremes, volcanoes, \
                waterColor, wildfires)
                old: wrong: GET \(api)/api/v2.1/categories: HTTP 404 Not Found: Not Found
                gone: wrong: cannot start './nope.sh': \(dir)/nope.sh: no such file
                plain: wrong: cannot start './plain.sh': \(dir)/plain.sh: it is not executable (no execute permission)
                notifier hook: wrong: host hooks.example.invalid does not resolve (no such host)
                notifier run: wrong: cannot start './missing-notifier': \(dir)/missing-notifier: no such file
                1 ok, 10 wrong, 0 not checked

                """)
        #expect(result.status == 1)
        for token in Self.tokens { #expect(!result.stdout.contains(token)) }
        #expect(!result.stdout.contains("XXXXsecretXXXX"))
    }

    @Test("a redirect is not followed: the line says where it goes, and nothing is sent there")
    func redirect() async throws {
        let elsewhere = try await TestHTTPServer.start { _ in .json("{}") }
        let target = "\(elsewhere.baseURL)/latest/meta-data/"
        let api = try await TestHTTPServer.start { _ in TestResponse(status: 302, headers: [("Location", target)]) }
        let result = try await Self.validate(
            "feeds:\n  - {name: rx, type: github, repo: a/b, api: \"\(api.baseURL)\"}\n")
        let sent = elsewhere.requests.count
        try await api.shutdown()
        try await elsewhere.shutdown()
        #expect(
            result.stdout == """
                feeds.yaml: ok, 1 feed: rx (github)
                rx: wrong: GET \(api.baseURL)/repos/a/b: HTTP 302: redirected to \(target), not followed
                0 ok, 1 wrong, 0 not checked

                """)
        #expect(result.status == 1)
        #expect(sent == 0)
    }

    @Test("a refused port and a server that never answers: could not check (after the timeout), exit 0")
    func notChecked() async throws {
        let directory = try Self.directory()
        let dir = directory.url.path
        let refusing = try #require(RefusingPort())
        defer { refusing.close() }
        let silent = try await TestHTTPServer.start { _ in .hang }
        let result = try await Self.validate(
            """
            settings: {timeout: 1s}
            feeds:
              - {name: down, type: github, repo: a/b, api: "http://127.0.0.1:\(refusing.number)"}
              - {name: silent, type: github, repo: a/b, api: "\(silent.baseURL)"}
              - {name: planet, type: eonet, api: "\(silent.baseURL)/api/v3"}
              - {name: script, type: exec, command: [./source.sh]}
            """, in: directory)
        let requests = silent.requests.map(\.uri).sorted()
        try await silent.shutdown()
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                feeds.yaml: ok, 4 feeds: down (github), silent (github), planet (eonet), script (exec)
                down: could not check: GET http://127.0.0.1:\(refusing.number)/repos/a/b: connection refused
                silent: could not check: GET \(silent.baseURL)/repos/a/b: timed out after 1s
                planet: could not check: GET \(silent.baseURL)/api/v3/categories: timed out after 1s
                script: ok: program './source.sh' is \(dir)/source.sh
                1 ok, 0 wrong, 3 not checked

                """)
        #expect(result.status == 0)
        // Each asked once: a check is not retried.
        #expect(requests == ["/api/v3/categories", "/repos/a/b"])
    }

    @Test("the request is the poll's: the token as a Bearer credential, GitHub's headers, no validator; never shown")
    func exactRequest() async throws {
        let server = try await TestHTTPServer.start { _ in
            .json(
                #"{"id":1,"full_name":"o/r"}"#,
                headers: [
                    ("X-OAuth-Scopes", "repo"), ("x-ratelimit-limit", "5000"), ("x-ratelimit-remaining", "4987"),
                    ("x-ratelimit-reset", "2000000000"), ("x-ratelimit-resource", "core"),
                ])
        }
        let token = "ghp_exactRequestToken5"
        let result = try await Self.validate(
            "feeds:\n  - {name: rx, type: github, repo: o/r, token: \"${TOKEN}\", api: \"\(server.baseURL)\"}\n",
            environment: ["TOKEN": token])
        let requests = server.requests
        try await server.shutdown()
        #expect(
            result.stdout == """
                feeds.yaml: ok, 1 feed: rx (github)
                rx: ok: repository o/r, token scopes repo; 4,987 of 5,000 requests left
                1 ok, 0 wrong, 0 not checked

                """)
        #expect(result.status == 0)
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.method == "GET")
        #expect(request.uri == "/repos/o/r")
        #expect(request.header("Authorization") == "Bearer \(token)")
        #expect(request.header("Accept") == "application/vnd.github+json")
        #expect(request.header("X-GitHub-Api-Version") == "2022-11-28")
        #expect(request.header("User-Agent") == "monitor/\(MonitorVersion.current)")
        #expect(request.header("If-None-Match") == nil)
        #expect(request.header("If-Modified-Since") == nil)
        #expect(!result.stdout.contains(token) && !result.stderr.contains(token))
    }

    @Test("GitHub's rate limit exhausted: could not check, with when it resets; exit 0")
    func rateLimited() async throws {
        let reset = Int(Date().timeIntervalSince1970) + 600
        let server = try await TestHTTPServer.start { _ in
            .json(
                #"{"message":"API rate limit exceeded for 127.0.0.1."}"#, status: 403,
                headers: [
                    ("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "\(reset)"),
                ])
        }
        let result = try await Self.validate(
            "feeds:\n  - {name: rx, type: github, repo: o/r, api: \"\(server.baseURL)\"}\n")
        try await server.shutdown()
        let resetAt = UTCTime.full(Date(timeIntervalSince1970: TimeInterval(reset)))
        #expect(
            result.stdout == """
                feeds.yaml: ok, 1 feed: rx (github)
                rx: could not check: rate limit exhausted, it resets at \(resetAt)
                0 ok, 0 wrong, 1 not checked

                """)
        #expect(result.status == 0)
    }

    @Test("checks take from the rate budget like polls: once the limit is spent, the next feed is not asked")
    func rateBudget() async throws {
        let server = try await TestHTTPServer.start { _ in
            .json(
                #"{"id":1}"#,
                headers: [
                    ("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "4102444800"),
                ])
        }
        let result = try await Self.validate(
            """
            settings: {concurrency: 1}
            feeds:
              - {name: one, type: github, repo: o/one, api: "\(server.baseURL)"}
              - {name: two, type: github, repo: o/two, api: "\(server.baseURL)"}
            """)
        let requests = server.requests
        try await server.shutdown()
        #expect(requests.count == 1)
        let asked = try #require(requests.first?.uri == "/repos/o/one" ? "one" : "two")
        let other = asked == "one" ? "two" : "one"
        let lines = [
            "\(asked): ok: repository o/\(asked); 0 of 60 requests left",
            "\(other): could not check: rate limit exhausted, it resets at ",
        ]
        let shown = result.stdout.split(separator: "\n").map(String.init)
        #expect(shown.count == 4)
        #expect(shown.first == "feeds.yaml: ok, 2 feeds: one (github), two (github)")
        #expect(shown.last == "1 ok, 0 wrong, 1 not checked")
        #expect(shown.contains(lines[0]))
        #expect(shown.contains { $0.hasPrefix(lines[1]) })
        #expect(result.status == 0)
    }

    @Test(
        "with a PostgreSQL state, the checks take from the budget run instances share: a token spent is not asked",
        .timeLimit(.minutes(2)))
    func sharedBudget() async throws {
        let database = try await PostgresServer.forTest()
        let state = database.text(of: try await database.makeDatabase())
        let reset = Int(Date().timeIntervalSince1970) + 1800
        let server = try await TestHTTPServer.start { _ in
            .json(
                "[]",
                headers: [
                    ("x-ratelimit-limit", "5000"), ("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "\(reset)"),
                ])
        }
        let directory = try Self.directory()
        try directory.write(
            "feeds.yaml",
            "feeds:\n  - {name: rx, type: github, repo: o/r, token: ghp_sharedBudget0006, api: \"\(server.baseURL)\"}\n"
        )
        // A run polls once and learns, in the state, that the token has nothing left until the reset.
        let run = try await MonitorProcess.run(["run", "--once", "--state", state], in: directory.url)
        #expect(run.status == 0)
        let result = try await MonitorProcess.run(["validate", "--online", "--state", state], in: directory.url)
        let requests = server.requests.map(\.uri)
        try await server.shutdown()
        let resetAt = UTCTime.full(Date(timeIntervalSince1970: TimeInterval(reset)))
        #expect(
            result.stdout == """
                feeds.yaml: ok, 1 feed: rx (github)
                rx: could not check: rate limit exhausted, it resets at \(resetAt)
                0 ok, 0 wrong, 1 not checked

                """)
        #expect(result.stderr == "")
        #expect(result.status == 0)
        // The poll's request only: the check was held by the shared budget.
        #expect(requests == ["/repos/o/r/events?per_page=50"])
    }
}
