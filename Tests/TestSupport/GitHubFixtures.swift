import Foundation
import Synchronization

@testable import MonitorCore
@testable import MonitorJSON

/// GitHub-shaped JSON built from Swift data, so that every count in a test is known by construction, and a
/// fake GitHub API serving it (for a `StubTransport` or a real test HTTP server).
package enum GitHubFixtures {
    /// One event, as the events API lists it.
    package struct Event: Sendable, Hashable {
        /// The id, a string of digits.
        package var id: String
        /// `PushEvent`, `WatchEvent`… or any other type.
        package var type: String
        /// The actor's login.
        package var actor: String
        /// The repository, `owner/name`.
        package var repo: String
        /// `created_at`.
        package var date: Date
        /// The payload object.
        package var payload: JSONValue

        /// An event.
        package init(
            id: String, type: String, actor: String, repo: String, date: Date, payload: JSONValue = .object([])
        ) {
            self.id = id
            self.type = type
            self.actor = actor
            self.repo = repo
            self.date = date
            self.payload = payload
        }

        /// The event as the API's JSON object (actor and repository ids derived from their names).
        package var json: JSONValue {
            .object([
                ("id", .string(id)), ("type", .string(type)),
                (
                    "actor",
                    .object([
                        ("id", .integer(GitHubFixtures.number(actor))), ("login", .string(actor)),
                        ("display_login", .string(actor)), ("gravatar_id", ""),
                        ("url", .string("https://api.github.com/users/\(actor)")),
                        (
                            "avatar_url",
                            .string("https://avatars.githubusercontent.com/u/\(GitHubFixtures.number(actor))?")
                        ),
                    ])
                ),
                (
                    "repo",
                    .object([
                        ("id", .integer(GitHubFixtures.number(repo))), ("name", .string(repo)),
                        ("url", .string("https://api.github.com/repos/\(repo)")),
                    ])
                ),
                ("payload", payload), ("public", true), ("created_at", .date(date)),
            ])
        }
    }

    // MARK: - Events

    /// `count` push events to `repo`, newest first: ids `firstID`, `firstID - 1`, …, dated `spacing` seconds
    /// apart back from `newest`, with the slim payload GitHub sends since October 2025.
    package static func pushes(
        _ count: Int, repo: String, firstID: Int, newest: Date, spacing: TimeInterval = 60, actor: String = "kzaher",
        branch: String = "main"
    ) -> [Event] {
        (0..<count).map { index in
            let id = firstID - index
            return Event(
                id: String(id), type: "PushEvent", actor: actor, repo: repo,
                date: newest.addingTimeInterval(-spacing * Double(index)),
                payload: pushPayload(repo: repo, id: id, branch: branch))
        }
    }

    /// A slim push payload (`repository_id`, `push_id`, `ref`, `head`, `before`), commits derived from `id`.
    package static func pushPayload(repo: String, id: Int, branch: String = "main") -> JSONValue {
        .object([
            ("repository_id", .integer(number(repo))), ("push_id", .integer(id)),
            ("ref", .string("refs/heads/\(branch)")), ("head", .string(sha(id))), ("before", .string(sha(id - 1))),
        ])
    }

    /// A 40-digit commit hash made from `seed`.
    package static func sha(_ seed: Int) -> String {
        let hex = String(UInt64(bitPattern: Int64(seed)) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
        return String(repeating: "0", count: 40 - hex.count) + hex
    }

    /// The events as the JSON array of an events page.
    package static func eventsJSON(_ events: [Event]) -> String {
        JSONValue.array(events.map(\.json)).text
    }

    // MARK: - Search, headers

    /// The answer of a repository search finding `fullNames`, by stars (the first has the most).
    package static func searchJSON(_ fullNames: [String], totalCount: Int? = nil) -> String {
        JSONValue.object([
            ("total_count", .integer(totalCount ?? fullNames.count)), ("incomplete_results", false),
            (
                "items",
                .array(
                    fullNames.enumerated().map { index, name in
                        .object([
                            ("id", .integer(number(name))),
                            ("name", .string(String(name.split(separator: "/").last ?? ""))),
                            ("full_name", .string(name)), ("private", false),
                            ("html_url", .string("https://github.com/\(name)")),
                            ("stargazers_count", .integer(100_000 - index * 1000)), ("score", .number(1)),
                        ])
                    })
            ),
        ]).text
    }

    /// A `Link` header value: `<next>; rel="next", <last>; rel="last"`.
    package static func link(next: String? = nil, last: String? = nil, prev: String? = nil, first: String? = nil)
        -> String
    {
        [(prev, "prev"), (next, "next"), (last, "last"), (first, "first")].compactMap { url, rel in
            url.map { "<\($0)>; rel=\"\(rel)\"" }
        }.joined(separator: ", ")
    }

    /// The `X-RateLimit-*` headers GitHub sends.
    package static func rateLimitHeaders(limit: Int, remaining: Int, reset: Date, resource: String = "core")
        -> HTTPHeaders
    {
        [
            "X-RateLimit-Limit": "\(limit)", "X-RateLimit-Remaining": "\(remaining)",
            "X-RateLimit-Reset": "\(Int(reset.timeIntervalSince1970))", "X-RateLimit-Used": "\(limit - remaining)",
            "X-RateLimit-Resource": resource,
        ]
    }

    /// An HTTP date, `Sun, 22 Nov 2026 05:00:00 GMT`.
    package static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// A stable positive number made from `text` (ids of actors and repositories, ETags).
    package static func number(_ text: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int(hash % 900_000_000) + 100_000
    }
}

// MARK: - A fake API

extension GitHubFixtures {
    /// A fake GitHub REST API answering the events and repository search endpoints from data the test sets:
    /// pages through `Link` headers pointing at `/repositories/{id}/events` as GitHub does, weak ETags
    /// answered 304 on `If-None-Match`, `X-Poll-Interval`, a counting primary rate limit, and 403 without a
    /// `User-Agent` or 401 with a wrong token.
    package final class API: Sendable {
        /// A request it answered.
        package struct Exchange: Sendable {
            /// The request.
            package var request: HTTPRequest
            /// The answer.
            package var response: HTTPResponse
        }

        private struct Feed {
            var id: Int
            var events: [Event]
        }

        private struct State {
            var feeds: [String: Feed] = [:]
            var searches: [String: [String]] = [:]
            var overrides: [String: HTTPResponse] = [:]
            var remaining: [String: Int] = [:]
            var exchanges: [Exchange] = []
        }

        /// The API root of `respond(to:)`, `https://api.github.test` unless said otherwise (`serve(_:)` answers
        /// at the test server's origin with this root's path).
        package let root: String
        /// The token it accepts; nil: any `Authorization` is refused.
        package let token: String?
        /// The primary rate limit per hour of the `core` resource (the `search` one allows 10).
        package let limit: Int
        /// When the rate limit windows reset.
        package let reset: Date
        /// `X-Poll-Interval`, in seconds.
        package let pollInterval: Int
        private let state = Mutex(State())

        /// An API at `root` accepting `token`.
        package init(
            root: String = "https://api.github.test", token: String? = nil, limit: Int = 60,
            reset: Date = Date(timeIntervalSince1970: 1_795_324_320), pollInterval: Int = 60
        ) {
            self.root = root
            self.token = token
            self.limit = limit
            self.reset = reset
            self.pollInterval = pollInterval
        }

        /// Sets the events of `path` (`repos/owner/name`, `orgs/name`, `users/name`), newest first.
        package func setEvents(_ events: [Event], of path: String) {
            state.withLock { state in
                state.feeds[path] = Feed(id: Self.id(of: path), events: events)
            }
        }

        /// Adds `events` on top of those of `path`, as new activity does.
        package func prepend(_ events: [Event], to path: String) {
            state.withLock { state in
                var feed = state.feeds[path] ?? Feed(id: Self.id(of: path), events: [])
                feed.events = events + feed.events
                state.feeds[path] = feed
            }
        }

        /// The id of what `path` names: a repository's is the `repo.id` of its events.
        package static func id(of path: String) -> Int {
            GitHubFixtures.number(path.hasPrefix("repos/") ? String(path.dropFirst("repos/".count)) : path)
        }

        /// Makes a repository search for `query` find `fullNames`, in that order.
        package func setSearch(_ query: String, finds fullNames: [String]) {
            state.withLock { $0.searches[query] = fullNames }
        }

        /// Answers every request for `path` (without the query, relative to the root, like
        /// `repos/a/b/events`) with `response`; nil removes the override.
        package func override(_ path: String, with response: HTTPResponse?) {
            state.withLock { $0.overrides[path] = response }
        }

        /// Every request answered, in order.
        package var exchanges: [Exchange] { state.withLock { $0.exchanges } }

        /// A stub transport answering with this API (each call makes a new one, with its own record).
        package func transport() -> StubTransport {
            StubTransport { [self] request in respond(to: request) }
        }

        /// The answer to `request`.
        package func respond(to request: HTTPRequest) -> HTTPResponse {
            respond(to: request, root: root)
        }

        /// The answer to a request that came over the wire (from `TestHTTPServer`): the API's root is then at the
        /// request's origin, with the path of `root`, so that `Link`s point back at the server. As the server's
        /// handler: `withTestHTTPServer { TestResponse(api.serve(HTTPRequest($0))) } { server in … }`.
        @Sendable package func serve(_ request: HTTPRequest) -> HTTPResponse {
            var origin = URLComponents(string: request.url) ?? URLComponents()
            origin.path = URLComponents(string: root)?.path ?? ""
            origin.query = nil
            return respond(to: request, root: origin.string ?? root)
        }

        private func respond(to request: HTTPRequest, root: String) -> HTTPResponse {
            let response = answer(request, root: root)
            state.withLock { $0.exchanges.append(Exchange(request: request, response: response)) }
            return response
        }

        private func answer(_ request: HTTPRequest, root: String) -> HTTPResponse {
            guard request.url.hasPrefix(root + "/"), let components = URLComponents(string: request.url) else {
                return Self.error(404, "Not Found")
            }
            let rootPath = URLComponents(string: root)?.path ?? ""
            let path = String(components.path.dropFirst(rootPath.count + 1))
            let query = Dictionary(
                (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first }
            )

            guard request.headers["User-Agent"].map({ !$0.isEmpty }) == true else {
                return Self.error(
                    403,
                    "Request forbidden by administrative rules. Please make sure your request has a User-Agent header")
            }
            if let authorization = request.headers["Authorization"] {
                guard let token, authorization == "Bearer \(token)" else { return Self.error(401, "Bad credentials") }
            }
            if let response = state.withLock({ $0.overrides[path] }) { return response }

            let perPage = min(100, max(1, Int(query["per_page"] ?? "") ?? 30))
            let page = max(1, Int(query["page"] ?? "") ?? 1)
            let parts = path.split(separator: "/").map(String.init)
            if parts == ["search", "repositories"] {
                guard let found = state.withLock({ $0.searches[query["q"] ?? ""] }) else {
                    return Self.error(422, "Validation Failed")
                }
                let body = Array(GitHubFixtures.searchJSON(Array(found.prefix(perPage))).utf8)
                return success("search", limit: 10, headers: ["Cache-Control": "no-cache"], body: body)
            }
            guard parts.last == "events", parts.count >= 3 else { return Self.error(404, "Not Found") }
            let feedPath = parts.dropLast().joined(separator: "/")
            let found = state.withLock { state -> (path: String, feed: Feed)? in
                if parts[0] == "repositories", let id = Int(parts[1]) {
                    return state.feeds.first { $0.value.id == id }.map { ($0.key, $0.value) }
                }
                return state.feeds[feedPath].map { (feedPath, $0) }
            }
            guard let (foundPath, feed) = found else { return Self.error(404, "Not Found") }

            // GitHub serves at most 300 events.
            let events = Array(feed.events.prefix(300))
            let lastPage = max(1, (events.count + perPage - 1) / perPage)
            let slice = Array(events.dropFirst((page - 1) * perPage).prefix(perPage))
            let body = Array(GitHubFixtures.eventsJSON(slice).utf8)
            let etag = "W/\"\(String(GitHubFixtures.number(String(decoding: body, as: UTF8.self)), radix: 16))\""
            var headers: HTTPHeaders = [
                "Content-Type": "application/json; charset=utf-8", "ETag": etag,
                "X-Poll-Interval": "\(pollInterval)",
            ]
            if let newest = slice.first?.date { headers.add("Last-Modified", GitHubFixtures.httpDate(newest)) }
            if request.headers["If-None-Match"] == etag {
                let left = state.withLock { $0.remaining["core"] ?? limit }
                let rateLimit = GitHubFixtures.rateLimitHeaders(limit: limit, remaining: left, reset: reset)
                for field in rateLimit { headers.add(field.name, field.value) }
                return HTTPResponse(status: 304, headers: headers)
            }
            let pages =
                foundPath.hasPrefix("repos/") ? "\(root)/repositories/\(feed.id)/events" : "\(root)/\(foundPath)/events"
            let pageURL = { (number: Int) in "\(pages)?per_page=\(perPage)&page=\(number)" }
            let link = GitHubFixtures.link(
                next: page < lastPage ? pageURL(page + 1) : nil, last: page < lastPage ? pageURL(lastPage) : nil,
                prev: page > 1 ? pageURL(page - 1) : nil, first: page > 1 ? pageURL(1) : nil)
            if !link.isEmpty { headers.add("Link", link) }
            return success("core", limit: limit, headers: headers, body: body)
        }

        /// A 200 that spends one request of `resource`, or the 403 of an exhausted limit.
        private func success(_ resource: String, limit: Int, headers: HTTPHeaders, body: [UInt8]) -> HTTPResponse {
            let left = state.withLock { state -> Int? in
                let left = state.remaining[resource] ?? limit
                guard left > 0 else { return nil }
                state.remaining[resource] = left - 1
                return left - 1
            }
            guard let left else {
                return Self.error(
                    403, "API rate limit exceeded for 127.0.0.1.",
                    headers: GitHubFixtures.rateLimitHeaders(
                        limit: limit, remaining: 0, reset: reset, resource: resource))
            }
            var all = headers
            let rateLimit = GitHubFixtures.rateLimitHeaders(
                limit: limit, remaining: left, reset: reset, resource: resource)
            for field in rateLimit { all.add(field.name, field.value) }
            return HTTPResponse(status: 200, headers: all, body: body)
        }

        /// A GitHub error answer: `{"message": …, "documentation_url": …}`.
        package static func error(_ status: Int, _ message: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
            var all = headers
            all.add("Content-Type", "application/json; charset=utf-8")
            let body = JSONValue.object([
                ("message", .string(message)), ("documentation_url", "https://docs.github.com/rest"),
                ("status", .string(String(status))),
            ])
            return HTTPResponse(status: status, headers: all, body: Array(body.text.utf8))
        }
    }
}
