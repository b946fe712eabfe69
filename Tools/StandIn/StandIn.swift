import Foundation
import LoopbackHTTP
import MonitorCore
import MonitorJSON
import Synchronization

/// The stand-in's answers: EONET v3 and GitHub REST routes over generated data, conditional requests, rate
/// limits, a latency per request, and counters that the benchmarks read at `GET /_stats`.
final class StandIn: Sendable {
    /// How the stand-in behaves.
    struct Behaviour: Sendable {
        /// How long each request waits before it is answered.
        var latency: Duration = .zero
        /// Strong ETags (`"…"`) instead of weak ones (`W/"…"`) on GitHub responses.
        var strongETags = false
        /// The `X-Poll-Interval` GitHub responses carry, in seconds.
        var pollInterval = 60
        /// The primary rate limit of the `core` resource per hour, per token (unauthenticated requests share one).
        var rateLimit = 5_000
        /// The rate limit of the `search` resource per minute, per token.
        var searchRateLimit = 30
        /// The tokens accepted, each with the classic scopes it tells in `X-OAuth-Scopes` (nil: a fine-grained
        /// token, which tells none); any other token is refused 401. Empty: every token is accepted, telling none.
        var tokens: [String: [String]?] = [:]
        /// Repositories, organisations and users that do not exist (404), and searches that find nothing; lowercased.
        var missing: Set<String> = []
        /// Repositories answered 404 unless asked with a token that has the `repo` scope or is fine-grained;
        /// lowercased.
        var privateRepositories: Set<String> = []
    }

    /// What the stand-in has answered since it started or its counters were last reset.
    struct Statistics: Sendable {
        /// Requests answered (the `/_…` control routes not counted).
        var requests = 0
        /// Requests answered 304 Not Modified.
        var notModified = 0
        /// The most requests in flight at once (from arrival until the answer is written).
        var maxInFlight = 0
        /// Response body bytes sent.
        var bodyBytes = 0
        /// GitHub rate-limit units spent (a 304 spends none).
        var rateLimitUsed = 0
        /// Requests to the EONET routes.
        var eonetRequests = 0
        /// Requests to the GitHub routes.
        var githubRequests = 0
    }

    private struct Window {
        var used = 0
        var reset: Date
    }

    private struct State {
        var statistics = Statistics()
        var inFlight = 0
        var representations: [String: Representation] = [:]
        var repositories: [Int: String] = [:]
        var windows: [String: Window] = [:]
    }

    /// The EONET data.
    let eonet: EONETData
    /// The GitHub data.
    let github: GitHubData
    /// How it behaves.
    let behaviour: Behaviour
    private let state = Mutex(State())

    /// A stand-in serving `eonet` and `github`.
    init(eonet: EONETData, github: GitHubData, behaviour: Behaviour) {
        self.eonet = eonet
        self.github = github
        self.behaviour = behaviour
    }

    /// The counters now.
    var statistics: Statistics { state.withLock { $0.statistics } }

    /// Answers `request`, after the latency.
    func respond(to request: RecordedRequest) async -> TestResponse {
        if request.path.hasPrefix("/_") { return control(request) }
        state.withLock { state in
            state.inFlight += 1
            state.statistics.requests += 1
            state.statistics.maxInFlight = max(state.statistics.maxInFlight, state.inFlight)
        }
        if behaviour.latency > .zero { try? await Task.sleep(for: behaviour.latency) }
        let response = route(request)
        state.withLock { state in
            state.inFlight -= 1
            state.statistics.bodyBytes += response.body.count
            if response.status == 304 { state.statistics.notModified += 1 }
        }
        return response
    }

    // MARK: - Control

    private func control(_ request: RecordedRequest) -> TestResponse {
        switch request.path {
        case "/_stats":
            let statistics = self.statistics
            let inFlight = state.withLock { $0.inFlight }
            return .json(
                JSONValue.object([
                    ("requests", .integer(statistics.requests)), ("notModified", .integer(statistics.notModified)),
                    ("maxInFlight", .integer(statistics.maxInFlight)), ("bodyBytes", .integer(statistics.bodyBytes)),
                    ("rateLimitUsed", .integer(statistics.rateLimitUsed)), ("inFlight", .integer(inFlight)),
                    ("eonetRequests", .integer(statistics.eonetRequests)),
                    ("githubRequests", .integer(statistics.githubRequests)),
                ]).text + "\n")
        case "/_reset":
            state.withLock { state in
                state.statistics = Statistics()
                state.statistics.maxInFlight = state.inFlight
            }
            return .json(#"{"reset":true}"# + "\n")
        case "/_counts":
            let categories = EONETData.categories.map {
                (key: $0.id, value: JSONValue.integer(eonet.counts[$0.id] ?? 0))
            }
            return .json(
                JSONValue.object([
                    (
                        "eonet",
                        .object([
                            ("events", .integer(eonet.events.count)), ("categories", .object(categories)),
                            ("bytes", .integer(eonet.eventsDocument(eonet.events).count)),
                        ])
                    ),
                    (
                        "github",
                        .object([
                            ("repositories", .integer(github.repositories.count)),
                            ("eventsPerFeed", .integer(github.eventsPerFeed)),
                        ])
                    ),
                ]).text + "\n")
        default:
            return .json(#"{"message":"Not Found"}"#, status: 404)
        }
    }

    // MARK: - Routes

    private func route(_ request: RecordedRequest) -> TestResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.starts(with: ["api", "v3"]) {
            state.withLock { $0.statistics.eonetRequests += 1 }
            return eonetRoute(Array(parts.dropFirst(2)), request)
        }
        state.withLock { $0.statistics.githubRequests += 1 }
        return githubRoute(parts, request)
    }

    // MARK: - EONET

    private func eonetRoute(_ parts: [String], _ request: RecordedRequest) -> TestResponse {
        let query = request.query
        let days = query["days"].map { Int($0) }
        let limit = query["limit"].map { Int($0) }
        if days == .some(nil) || limit == .some(nil) {
            return .json(#"{"error":"days and limit are numbers"}"#, status: 400)
        }
        switch parts {
        case ["categories"]:
            return conditional(request, key: request.uri, strong: true) {
                (eonet.categoriesDocument(), eonet.now)
            }
        case ["events"]:
            let wanted = query["category"].map { Set($0.split(separator: ",").map(String.init)) }
            return conditional(request, key: request.uri, strong: true) {
                let events = eonet.select(
                    categories: wanted, status: query["status"] ?? "open", days: days ?? nil, limit: limit ?? nil)
                return (eonet.eventsDocument(events), eonet.now)
            }
        case _ where parts.count == 2 && parts[0] == "categories":
            guard let category = EONETData.categories.first(where: { $0.id == parts[1] }) else {
                return .json(#"{"error":"no such category"}"#, status: 404)
            }
            return conditional(request, key: request.uri, strong: true) {
                let events = eonet.select(
                    categories: [category.id], status: query["status"] == "closed" ? "closed" : "open",
                    days: days ?? nil, limit: limit ?? nil)
                let document = eonet.eventsDocument(
                    events, title: "EONET Events: \(category.title)", link: "\(eonet.api)/categories/\(category.id)")
                return (document, eonet.now)
            }
        default:
            return .json(#"{"error":"not found"}"#, status: 404)
        }
    }

    // MARK: - GitHub

    /// A GitHub route's answer, as GitHub gives it: a token it does not know refused 401 on any route, and the
    /// scopes of a classic token told in `X-OAuth-Scopes` on every answer.
    private func githubRoute(_ parts: [String], _ request: RecordedRequest) -> TestResponse {
        guard request.header("User-Agent").map({ !$0.isEmpty }) == true else {
            return Self.githubError(
                403, "Request forbidden by administrative rules. Please make sure your request has a User-Agent header")
        }
        let token = request.header("Authorization").flatMap { value -> String? in
            let words = value.split(separator: " ", maxSplits: 1)
            guard words.count == 2, ["bearer", "token"].contains(words[0].lowercased()) else { return nil }
            return String(words[1])
        }
        var scopes: [String]?
        if let token, !behaviour.tokens.isEmpty {
            guard let known = behaviour.tokens[token] else { return Self.githubError(401, "Bad credentials") }
            scopes = known
        }
        // A fine-grained token sees what it was granted: here, every private repository.
        let seesPrivate = token != nil && (scopes?.contains("repo") ?? true)
        var response = githubAnswer(parts, request, seesPrivate: seesPrivate, client: token ?? "")
        if let scopes { response.headers.append((name: "X-OAuth-Scopes", value: scopes.joined(separator: ", "))) }
        return response
    }

    /// Whether the repository, organisation or user `name` exists for a request that `seesPrivate` repositories.
    private func exists(_ name: String, seesPrivate: Bool) -> Bool {
        let name = name.lowercased()
        return !behaviour.missing.contains(name) && (seesPrivate || !behaviour.privateRepositories.contains(name))
    }

    /// `client` is who the rate limits are counted for: the token, or "" for unauthenticated requests (GitHub counts
    /// those per address: here, one).
    private func githubAnswer(
        _ parts: [String], _ request: RecordedRequest, seesPrivate: Bool, client: String
    ) -> TestResponse {
        let now = Date()
        let perPage = min(100, max(1, Int(request.query["per_page"] ?? "") ?? 30))
        if parts == ["search", "repositories"] {
            guard let spent = spend("search", client: client, limit: behaviour.searchRateLimit, window: 60, now: now)
            else {
                return rateLimited("search", client: client, limit: behaviour.searchRateLimit, now: now)
            }
            var headers = rateLimitHeaders(
                "search", limit: behaviour.searchRateLimit, used: spent.used, reset: spent.reset)
            headers.insert((name: "Cache-Control", value: "no-cache"), at: 0)
            let finds = !behaviour.missing.contains((request.query["q"] ?? "").lowercased())
            return .json(
                String(
                    decoding: github.searchDocument(count: finds ? perPage : 0, total: finds ? nil : 0), as: UTF8.self),
                headers: headers)
        }
        if parts.count == 3 && parts[0] == "repos" || parts.count == 2 && ["orgs", "users"].contains(parts[0]) {
            return githubAccount(parts, seesPrivate: seesPrivate, client: client, now: now)
        }
        if parts.count == 5, parts[0] == "repos", ["pulls", "compare", "commits"].contains(parts[3]) {
            return githubDetail(parts, request, seesPrivate: seesPrivate, client: client, now: now)
        }
        guard parts.count >= 3, parts.last == "events" else { return Self.githubError(404, "Not Found") }
        if ["repos", "orgs", "users"].contains(parts[0]),
            !exists(parts.dropFirst().dropLast().joined(separator: "/"), seesPrivate: seesPrivate)
        {
            return Self.githubError(404, "Not Found")
        }
        let feed: GitHubData.Feed
        switch parts[0] {
        case "repos" where parts.count == 4:
            let name = "\(parts[1])/\(parts[2])"
            feed = GitHubData.Feed(kind: "repos", name: name)
            state.withLock { $0.repositories[github.id(of: name)] = name }
        case "repositories" where parts.count == 3:
            guard let id = Int(parts[1]), let name = state.withLock({ $0.repositories[id] }) else {
                return Self.githubError(404, "Not Found")
            }
            feed = GitHubData.Feed(kind: "repos", name: name)
        case "orgs" where parts.count == 3, "users" where parts.count == 3:
            feed = GitHubData.Feed(kind: parts[0], name: parts[1])
        default:
            return Self.githubError(404, "Not Found")
        }
        let count = github.eventCount(of: feed, at: now)
        let page = max(1, Int(request.query["page"] ?? "") ?? 1)
        let representation = self.representation(
            key: "\(feed.path)|\(count)|\(perPage)|\(page)", strong: behaviour.strongETags
        ) {
            let page = github.page(of: feed, count: count, perPage: perPage, page: page)
            return (page.body, page.newest)
        }

        var headers: [(name: String, value: String)] = [
            (name: "Content-Type", value: "application/json; charset=utf-8"),
            (name: "Cache-Control", value: "private, max-age=60, s-maxage=60"),
            (name: "ETag", value: representation.etag),
            (name: "Last-Modified", value: HTTPDate.string(representation.lastModified)),
            (name: "X-Poll-Interval", value: String(behaviour.pollInterval)),
            (name: "X-GitHub-Api-Version-Selected", value: "2022-11-28"),
        ]
        if representation.isNotModified(
            ifNoneMatch: request.header("If-None-Match"), ifModifiedSince: request.header("If-Modified-Since"))
        {
            let window = self.window("core", client: client, window: 3600, now: now)
            headers += rateLimitHeaders("core", limit: behaviour.rateLimit, used: window.used, reset: window.reset)
            return TestResponse(status: 304, headers: headers)
        }
        guard let spent = spend("core", client: client, limit: behaviour.rateLimit, window: 3600, now: now) else {
            return rateLimited("core", client: client, limit: behaviour.rateLimit, now: now)
        }
        let pages =
            parts[0] == "repos" || parts[0] == "repositories"
            ? "\(github.root)/repositories/\(github.id(of: feed.name))/events" : "\(github.root)/\(feed.path)/events"
        let last = max(1, (min(count, GitHubData.maxEvents) + perPage - 1) / perPage)
        let url = { (number: Int) in "<\(pages)?per_page=\(perPage)&page=\(number)>" }
        var links: [String] = []
        if page > 1 { links += ["\(url(page - 1)); rel=\"prev\""] }
        if page < last { links += ["\(url(page + 1)); rel=\"next\"", "\(url(last)); rel=\"last\""] }
        if page > 1 { links += ["\(url(1)); rel=\"first\""] }
        if !links.isEmpty { headers.append((name: "Link", value: links.joined(separator: ", "))) }
        headers += rateLimitHeaders("core", limit: behaviour.rateLimit, used: spent.used, reset: spent.reset)
        return TestResponse(status: 200, headers: headers, body: representation.body)
    }

    /// `GET /repos/O/R`, `/orgs/X` or `/users/X`: the repository, organisation or user, when it exists.
    private func githubAccount(_ parts: [String], seesPrivate: Bool, client: String, now: Date) -> TestResponse {
        let name = parts.dropFirst().joined(separator: "/")
        guard exists(name, seesPrivate: seesPrivate) else { return Self.githubError(404, "Not Found") }
        guard let spent = spend("core", client: client, limit: behaviour.rateLimit, window: 3600, now: now) else {
            return rateLimited("core", client: client, limit: behaviour.rateLimit, now: now)
        }
        let document: JSONValue
        switch parts[0] {
        case "repos":
            document = .object([
                ("id", .integer(github.id(of: name))), ("name", .string(parts[2])), ("full_name", .string(name)),
                ("private", .bool(behaviour.privateRepositories.contains(name.lowercased()))),
                ("owner", .object([("login", .string(parts[1])), ("id", .integer(github.id(of: parts[1])))])),
                ("html_url", .string("https://github.com/\(name)")),
            ])
        default:
            document = .object([
                ("login", .string(name)), ("id", .integer(github.id(of: name))),
                ("type", .string(parts[0] == "orgs" ? "Organization" : "User")),
            ])
        }
        return .json(
            document.text,
            headers: rateLimitHeaders("core", limit: behaviour.rateLimit, used: spent.used, reset: spent.reset))
    }

    /// `GET /repos/O/R/pulls/N`, `/compare/BASE...HEAD` or `/commits/SHA`: what the events no longer carry,
    /// conditional (a 304 costs nothing), 404 for a repository that does not exist or a malformed number or SHA.
    private func githubDetail(
        _ parts: [String], _ request: RecordedRequest, seesPrivate: Bool, client: String, now: Date
    ) -> TestResponse {
        let repo = "\(parts[1])/\(parts[2])"
        let isSHA = { (text: Substring) in (7...40).contains(text.count) && text.allSatisfy(\.isHexDigit) }
        let document: JSONValue
        switch parts[3] {
        case "pulls":
            guard let number = Int(parts[4]), number > 0 else { return Self.githubError(404, "Not Found") }
            document = github.pull(repo: repo, number: number)
        case "compare":
            let shas = parts[4].components(separatedBy: "...")
            guard shas.count == 2, isSHA(Substring(shas[0])), isSHA(Substring(shas[1])) else {
                return Self.githubError(404, "Not Found")
            }
            document = github.compare(repo: repo, base: shas[0], head: shas[1])
        default:
            guard isSHA(Substring(parts[4])) else { return Self.githubError(404, "Not Found") }
            document = github.commit(repo: repo, sha: parts[4])
        }
        guard exists(repo, seesPrivate: seesPrivate) else { return Self.githubError(404, "Not Found") }
        var response = conditional(request, key: parts.joined(separator: "/"), strong: behaviour.strongETags) {
            (Array(document.text.utf8), github.start)
        }
        if response.status == 304 {
            let window = self.window("core", client: client, window: 3600, now: now)
            response.headers += rateLimitHeaders(
                "core", limit: behaviour.rateLimit, used: window.used, reset: window.reset)
            return response
        }
        guard let spent = spend("core", client: client, limit: behaviour.rateLimit, window: 3600, now: now) else {
            return rateLimited("core", client: client, limit: behaviour.rateLimit, now: now)
        }
        response.headers += rateLimitHeaders("core", limit: behaviour.rateLimit, used: spent.used, reset: spent.reset)
        return response
    }

    /// Spends one unit of `resource` for `client`; nil when its limit is exhausted.
    private func spend(_ resource: String, client: String, limit: Int, window seconds: TimeInterval, now: Date)
        -> Window?
    {
        state.withLock { state in
            let key = "\(client) \(resource)"
            var window = state.windows[key] ?? Window(reset: now.addingTimeInterval(seconds))
            if now >= window.reset { window = Window(reset: now.addingTimeInterval(seconds)) }
            guard window.used < limit else { return nil }
            window.used += 1
            state.windows[key] = window
            state.statistics.rateLimitUsed += 1
            return window
        }
    }

    private func window(_ resource: String, client: String, window seconds: TimeInterval, now: Date) -> Window {
        state.withLock { state in
            let window = state.windows["\(client) \(resource)"] ?? Window(reset: now.addingTimeInterval(seconds))
            return now >= window.reset ? Window(reset: now.addingTimeInterval(seconds)) : window
        }
    }

    private func rateLimited(_ resource: String, client: String, limit: Int, now: Date) -> TestResponse {
        let window = self.window(resource, client: client, window: resource == "search" ? 60 : 3600, now: now)
        return Self.githubError(
            403,
            "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a "
                + "higher rate limit. Check out the documentation for more details.)",
            headers: rateLimitHeaders(resource, limit: limit, used: window.used, reset: window.reset))
    }

    private func rateLimitHeaders(_ resource: String, limit: Int, used: Int, reset: Date) -> [(
        name: String, value: String
    )] {
        [
            (name: "x-ratelimit-limit", value: String(limit)),
            (name: "x-ratelimit-remaining", value: String(max(0, limit - used))),
            (name: "x-ratelimit-reset", value: String(Int(reset.timeIntervalSince1970.rounded(.up)))),
            (name: "x-ratelimit-used", value: String(used)), (name: "x-ratelimit-resource", value: resource),
        ]
    }

    private static func githubError(
        _ status: Int, _ message: String, headers: [(name: String, value: String)] = []
    ) -> TestResponse {
        let body = JSONValue.object([
            ("message", .string(message)), ("documentation_url", "https://docs.github.com/rest"),
            ("status", .string(String(status))),
        ])
        return .json(body.text, status: status, headers: headers)
    }

    // MARK: - Conditional requests

    /// The representation made by `make` for `key`, made once and kept (at most a few thousand are kept).
    private func representation(
        key: String, strong: Bool, _ make: () -> (body: [UInt8], lastModified: Date)
    ) -> Representation {
        if let cached = state.withLock({ $0.representations[key] }) { return cached }
        let made = make()
        let representation = Representation(body: made.body, lastModified: made.lastModified, strong: strong)
        state.withLock { state in
            if state.representations.count >= 4_096 { state.representations.removeAll(keepingCapacity: true) }
            state.representations[key] = representation
        }
        return representation
    }

    /// A 200 with the representation of `key`, or a 304 when the request's validators match it.
    private func conditional(
        _ request: RecordedRequest, key: String, strong: Bool, _ make: () -> (body: [UInt8], lastModified: Date)
    ) -> TestResponse {
        let representation = self.representation(key: key, strong: strong, make)
        let headers: [(name: String, value: String)] = [
            (name: "Content-Type", value: "application/json"), (name: "ETag", value: representation.etag),
            (name: "Last-Modified", value: HTTPDate.string(representation.lastModified)),
        ]
        if representation.isNotModified(
            ifNoneMatch: request.header("If-None-Match"), ifModifiedSince: request.header("If-Modified-Since"))
        {
            return TestResponse(status: 304, headers: headers)
        }
        return TestResponse(status: 200, headers: headers, body: representation.body)
    }
}
