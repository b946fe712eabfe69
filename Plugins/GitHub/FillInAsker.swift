import Foundation
import Logging
import MonitorConcurrency
import MonitorCore
import MonitorJSON
import Synchronization

/// Asks the API for what a poll's new events lack (``GitHubFillIn``): each URL once a poll, conditionally, from the
/// answer kept in the feed's values while it is young enough, at most the feed's concurrency at once, and never while
/// the rate budget left is under ``reserve``. A failed answer leaves its events as they are.
final class FillInAsker: Sendable {
    /// The requests a fill-in never takes the rate budget below: unauthenticated use (60 an hour) never fills in.
    static let reserve = 100
    /// How long a pull request's kept answer stands without asking (its title changes rarely); a comparison of two
    /// commits, or a commit, never changes and is kept for good.
    static let pullRequestAge: TimeInterval = 3600
    /// The most answers the feed keeps; the oldest go first.
    static let maximumKept = 300
    /// The prefix of a kept answer's key in the feed's values, before its request's path.
    static let keyPrefix = "fill "

    let api: GitHubAPI
    let values: SourceValues
    let now: Date
    let concurrency: Int
    let logger: Logger
    /// This poll's fill-ins by request path (nil: none to be had), the paths not asked for under the reserve, and how
    /// many new items were left without details because of it.
    private let answers = Mutex<(byPath: [String: GitHubFillIn?], reserved: Set<String>, unfilled: Int)>(([:], [], 0))

    init(api: GitHubAPI, context: PollContext) {
        self.api = api
        values = context.values
        now = context.clock.now.date
        concurrency = context.concurrency
        logger = context.logger
    }

    /// The fill-in of each of `events`, in their order (nil: none): asked for where `asking` says so (the new events),
    /// else only from the answers kept (the events stored before, whose items keep what they were filled in with).
    /// Those asked for and left without one because the rate budget was under the reserve are counted for ``note``.
    func fillIns(for events: [GitHubEvent], asking: (GitHubEvent) -> Bool) async -> [GitHubFillIn?] {
        let requests = events.map(GitHubFillIn.request(for:))
        // Each path once, asked for when any of its events is.
        var wanted: [String: (request: GitHubFillIn.Request, ask: Bool)] = [:]
        for (event, request) in zip(events, requests) {
            guard let request else { continue }
            wanted[request.path] = (request, wanted[request.path]?.ask == true || asking(event))
        }
        let missing = answers.withLock { answers in wanted.values.filter { answers.byPath[$0.request.path] == nil } }
        try? await mergeBounded(missing, limit: concurrency, { await (self.answer($0.request, ask: $0.ask), $0) }) {
            fillIn, wanted in
            answers.withLock { $0.byPath[wanted.request.path] = .some(fillIn) }
        }
        return answers.withLock { answers in
            let fillIns = requests.map { $0.flatMap { answers.byPath[$0.path] ?? nil } }
            answers.unfilled += zip(zip(events, requests), fillIns).count { pair, fillIn in
                fillIn == nil && asking(pair.0) && pair.1.map { answers.reserved.contains($0.path) } == true
            }
            return fillIns
        }
    }

    /// What the poll's summary says of the new items left without details, nil when none was.
    var note: String? {
        let unfilled = answers.withLock { $0.unfilled }
        guard unfilled > 0 else { return nil }
        return "\(unfilled) new item\(unfilled == 1 ? "" : "s") left without details: "
            + "fewer than \(Self.reserve) requests were left in the rate budget"
    }

    /// The fill-in of `request`: the kept one while it stands, else the API's answer (a 304 renews the kept one).
    private func answer(_ request: GitHubFillIn.Request, ask: Bool) async -> GitHubFillIn? {
        let key = Self.keyPrefix + request.path
        let kept = values[key].flatMap(Self.kept)
        if let kept, kept.at <= now,
            request.kind != .pullRequest || now.timeIntervalSince(kept.at) < Self.pullRequestAge
        {
            return kept.fillIn
        }
        guard ask else { return kept?.fillIn }
        if let remaining = api.http.rateLimit?.remaining, remaining < Self.reserve {
            answers.withLock { _ = $0.reserved.insert(request.path) }
            return kept?.fillIn
        }
        let url = api.root + request.path
        // A 304 stands for the answer kept: without one, the request must not be conditional.
        if kept == nil { api.http.forget(url, credential: api.token) }
        do {
            let response = try await api.get(url)
            if response.status == 304, let kept {
                values[key] = Self.text(of: kept.fillIn, at: now)
                return kept.fillIn
            }
            guard let fillIn = GitHubFillIn.read(response.body, as: request.kind) else {
                api.http.forget(url, credential: api.token)
                logger.info("cannot fill in an event: the answer is not what was asked", metadata: ["url": "\(url)"])
                return nil
            }
            values[key] = Self.text(of: fillIn, at: now)
            return fillIn
        } catch {
            logger.info("cannot fill in an event", metadata: ["url": "\(url)", "error": "\(error)"])
            return kept?.fillIn
        }
    }

    /// Forgets the oldest kept answers beyond ``maximumKept``, with their validators.
    func trim() {
        let keys = values.keys(prefix: Self.keyPrefix)
        guard keys.count > Self.maximumKept else { return }
        let dated = keys.map { ($0, values[$0].flatMap(Self.kept)?.at ?? .distantPast) }
        for (key, _) in dated.sorted(by: { ($0.1, $0.0) < ($1.1, $1.0) }).prefix(keys.count - Self.maximumKept) {
            values[key] = nil
            api.http.forget(api.root + key.dropFirst(Self.keyPrefix.count), credential: api.token)
        }
    }

    // MARK: - Kept answers

    /// A kept answer as the feed's values hold it: `{"at": DATE, "title": …}` or `{"at": DATE, "commits": …}`.
    static func text(of fillIn: GitHubFillIn, at date: Date) -> String {
        var members: [(key: String, value: JSONValue)] = [("at", .date(date))]
        switch fillIn {
        case .pullRequest(let pull):
            members.append(("title", .string(pull.title)))
            if let author = pull.author { members.append(("author", .string(author))) }
            members += [("draft", .bool(pull.draft)), ("merged", .bool(pull.merged))]
            if let state = pull.state { members.append(("state", .string(state))) }
        case .push(let push):
            if let commits = push.commits { members.append(("commits", .integer(commits))) }
            if let headline = push.headline { members.append(("headline", .string(headline))) }
            if let rewritten = push.rewritten { members.append(("rewritten", .string(rewritten))) }
        }
        return JSONValue.object(members).text
    }

    /// The answer `text` keeps, and when it was answered; nil when it is not one.
    static func kept(_ text: String) -> (at: Date, fillIn: GitHubFillIn)? {
        var reader = JSONReader(Array(text.utf8))
        var at: Date?
        var pull = GitHubFillIn.PullRequest(title: "")
        var push = GitHubFillIn.Push()
        var isPull = false
        do throws(JSONError) {
            try reader.members { (key, reader) throws(JSONError) in
                let name = reader.string(key)
                switch name {
                case "at": at = try reader.optionalString().flatMap(ISO8601.date)
                case "title": (pull.title, isPull) = (try reader.string(), true)
                case "author": pull.author = try reader.string()
                case "draft": pull.draft = try reader.bool()
                case "merged": pull.merged = try reader.bool()
                case "state": pull.state = try reader.string()
                case "commits": push.commits = try reader.integer().map { Int(clamping: $0) }
                case "headline": push.headline = try reader.string()
                case "rewritten": push.rewritten = try reader.string()
                default: try reader.skip()
                }
            }
            try reader.end()
        } catch {
            return nil
        }
        guard let at else { return nil }
        return (at, isPull ? .pullRequest(pull) : .push(push))
    }
}
