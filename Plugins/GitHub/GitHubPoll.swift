import Foundation
import MonitorCore
import MonitorJSON
import MonitorOptions

/// One poll of a github feed: the events of its target, page by page, or of the top repositories of its
/// search, as many at once as the core allows.
struct GitHubPoll: Sendable {
    /// What the feed follows.
    let target: GitHubTarget
    /// How long a search result is reused.
    let searchEvery: Duration
    /// The API.
    let api: GitHubAPI
    /// The page follower.
    let pager: EventPager
    /// The poll's context.
    let context: PollContext

    /// The poll of the feed with `options` in `context`.
    init(options: FeedOptions, context: PollContext) throws {
        guard let target = GitHubTarget(options: options) else {
            throw SourceError("a github feed needs one of 'repo', 'org', 'user' or 'search'")
        }
        self.target = target
        searchEvery = options[GitHubSource.searchEvery]
        api = GitHubAPI(root: options[GitHubSource.api], token: options[GitHubSource.token], http: context.http)
        pager = EventPager(
            api: api, keep: options[GitHubSource.keep], known: context.known,
            types: options[GitHubSource.types].map(Set.init), logger: context.logger,
            believed: context.clock.now.date.addingTimeInterval(86_400),
            fill: options[GitHubSource.details] ? FillInAsker(api: api, context: context) : nil)
        self.context = context
    }

    /// Polls, reporting to `found`; throws what fails the whole poll. A first page answered 304 means nothing
    /// happened since the last poll: the feed is unchanged. Pages that end before an event stored before are a gap.
    func run(_ found: Findings) async throws {
        defer {
            if let note = pager.fill?.note { found.note(note) }
            pager.fill?.trim()
        }
        if case .search(let query, let top) = target {
            try await followSearch(query: query, top: top, found)
        } else if let path = target.eventsPath {
            let readThrough = ReadThrough(values: context.values, key: ReadThrough.key)
            let since = readThrough.date
            let fetched = try await pager.fetch(api.events(path, perPage: pager.perPage), readThrough: since) { page in
                if page.notModified, page.number == 1 { found.unchanged() }
                found.items(page.items)
                if let until = page.gapUntil { found.gap(since: since, until: until) }
                found.progress(done: page.number, total: page.number + (page.more ? 1 : 0))
            }
            readThrough.date = fetched.newest
        }
    }

    // MARK: - Search

    /// What fetching one repository's events gave.
    private enum Outcome: Sendable {
        /// What the pages gave, and the newest event the previous poll of them read.
        case items(EventPager.Fetched, since: Date?)
        case failure(SubRequestFailure)
    }

    private func followSearch(query: String, top: Int, _ found: Findings) async throws {
        let repos = try await repositories(query: query, top: top)
        let pager = self.pager
        let values = context.values
        try await context.fetchEach(repos, after: 1, progress: found) { repo -> Outcome in
            do {
                let readThrough = ReadThrough(values: values, key: ReadThrough.key + "." + repo)
                let since = readThrough.date
                let fetched = try await pager.fetch(
                    pager.api.events("repos/\(repo)", perPage: pager.perPage), readThrough: since)
                readThrough.date = fetched.newest
                return .items(fetched, since: since)
            } catch let error as FetchError where error.isRepositoryFailure {
                return .failure(SubRequestFailure(what: "repository '\(repo)'", message: "\(error)"))
            } catch let error as SourceError {
                return .failure(SubRequestFailure(what: "repository '\(repo)'", message: error.message))
            }
        } report: { outcome in
            switch outcome {
            case .items(let fetched, let since):
                found.items(fetched.items)
                if let until = fetched.gapUntil { found.gap(since: since, until: until) }
                found.completed()
            case .failure(let failure):
                found.failed(failure)
            }
        }
    }

    /// The repositories to follow: the cached search result while younger than `search_every`, else a new
    /// search; the cached one also when searching is rate-limited.
    private func repositories(query: String, top: Int) async throws -> [String] {
        let cache = SearchCache(values: context.values)
        let cached = cache.entry(query: query, top: top)
        let now = context.clock.now.date
        if let cached {
            let age = now.timeIntervalSince(cached.date)
            if age >= 0, age < Double(searchEvery.components.seconds) { return cached.repos }
        }
        let response: HTTPResponse
        do {
            response = try await api.get(api.search(query, top: top), resource: "search")
        } catch let error as FetchError where error.isRateLimit {
            guard let cached else { throw error }
            context.logger.notice(
                "the search is rate-limited: following the repositories found before", metadata: ["error": "\(error)"])
            return cached.repos
        }
        let repos: [String]
        if response.status == 304 {
            guard let cached else { throw SourceError("the search answered 304 but no earlier result is stored") }
            repos = cached.repos
        } else {
            repos = Array(try Self.repositories(in: response.body).prefix(top))
        }
        cache.store(SearchCache.Entry(repos: repos, date: now), query: query, top: top)
        return repos
    }

    /// The `owner/name`s of a repository search's answer, in order; odd names are left out.
    static func repositories(in body: [UInt8]) throws -> [String] {
        let names = try? JSONReader.document(body) { (reader) throws(JSONError) in
            var names: [String]?
            try reader.members { (key, reader) throws(JSONError) in
                guard JSONSnakeKey(key, in: reader).is("items"), try reader.kind() == .array else { return }
                var found: [String] = []
                try reader.elements { (reader) throws(JSONError) in
                    // An element that is not an object with a text (or no) `full_name` is left out.
                    var name: String?
                    let valid = try reader.strictObject { (key, reader, valid) throws(JSONError) in
                        if key.is("full_name") { name = try reader.strictString(&valid) }
                    }
                    if valid, let name { found.append(name) }
                }
                names = found
            }
            return names
        }
        guard let names else { throw SourceError("the search response has no list of repositories") }
        return names.filter(GitHubEvent.isRepositoryName)
    }
}

extension FetchError {
    /// Whether the server's rate limit stopped the request.
    var isRateLimit: Bool {
        if case .rateLimited = reason { return true }
        return false
    }

    /// Whether the failure concerns one repository of a search (it may be gone, or the server busy) rather
    /// than the whole feed.
    var isRepositoryFailure: Bool {
        if case .status(let code, _) = reason, [404, 410, 451].contains(code) { return true }
        return isTransient && !isRateLimit
    }
}

/// The date of the newest event a poll read from one events URL, kept in the feed's source values for the next poll's
/// gap check (`EventPager.fetch(_:readThrough:onPage:)`).
struct ReadThrough: Sendable {
    /// The key of a repository, organisation or user feed; a search's repository adds `.owner/name`.
    static let key = "events.newest"

    let values: SourceValues
    let key: String

    /// The date kept; setting nil (nothing read, a 304) or the same date keeps the one stored, unwritten.
    var date: Date? {
        get { values[key].flatMap(ISO8601.date) }
        nonmutating set {
            guard let newValue, newValue != date else { return }
            values[key] = ISO8601.string(newValue)
        }
    }
}
