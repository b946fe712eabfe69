import Foundation
import MonitorCore
import MonitorJSON

/// Generated GitHub REST data: the events of any repository, organisation or user asked for (made from its
/// name and the seed), new events arriving every `newEvery` when set, and the repositories a search finds.
struct GitHubData: Sendable {
    /// What an events URL lists: `repos/owner/name`, `orgs/name` or `users/name`.
    struct Feed: Sendable, Hashable {
        /// `repos`, `orgs` or `users`.
        var kind: String
        /// `owner/name` or a login.
        var name: String

        /// The path under the API root, without `/events`.
        var path: String { "\(kind)/\(name)" }
    }

    /// The event types, weighted roughly as on busy repositories.
    private static let types: [(String, Int)] = [
        ("PushEvent", 40), ("WatchEvent", 14), ("IssueCommentEvent", 12), ("PullRequestEvent", 10),
        ("IssuesEvent", 7), ("CreateEvent", 6), ("PullRequestReviewEvent", 4), ("ForkEvent", 3),
        ("DeleteEvent", 2), ("ReleaseEvent", 2),
    ]

    /// GitHub serves at most this many events of one feed.
    static let maxEvents = 300

    /// The seed.
    let seed: UInt64
    /// The events each feed has at the start.
    let eventsPerFeed: Int
    /// The repositories a search finds, most stars first.
    let repositories: [String]
    /// When the stand-in started: the newest starting event is a little older.
    let start: Date
    /// How often each feed gets a new event (each at its own phase); nil: never.
    let newEvery: Duration?
    /// The API root, `http://127.0.0.1:PORT`.
    let root: String

    /// The stable id of a repository (its events' `repo.id`, its `/repositories/{id}` URL) or of a login.
    func id(of name: String) -> Int {
        Int(SeededRandom.hash(name) % 900_000_000) + 100_000
    }

    /// How many events `feed` has at `now`.
    func eventCount(of feed: Feed, at now: Date) -> Int {
        guard let period = newEvery?.seconds, period > 0 else { return eventsPerFeed }
        let phase = Double(SeededRandom.hash(feed.path) % 1_000_000) / 1_000_000 * period
        return eventsPerFeed + max(0, Int(((now.timeIntervalSince(start) + phase) / period).rounded(.down)))
    }

    /// Page `page` of `perPage` events of `feed` when it has `count` events, newest first, with the date of
    /// its newest event.
    func page(of feed: Feed, count: Int, perPage: Int, page: Int) -> (body: [UInt8], newest: Date) {
        let listed = min(count, Self.maxEvents)
        let first = (page - 1) * perPage
        let indices = stride(from: count - 1 - first, through: count - min(listed, first + perPage), by: -1)
        let events = indices.map { event($0, of: feed) }
        let body = JSONValue.array(events.map(\.json)).text
        return (Array(body.utf8), events.first?.date ?? start)
    }

    /// The body of a repository search finding the first `count` repositories.
    func searchDocument(count: Int, total: Int? = nil) -> [UInt8] {
        let items = repositories.prefix(count).enumerated().map { rank, name -> JSONValue in
            let owner = String(name.split(separator: "/").first ?? "")
            return .object([
                ("id", .integer(id(of: name))), ("name", .string(String(name.split(separator: "/").last ?? ""))),
                ("full_name", .string(name)), ("private", false),
                (
                    "owner",
                    .object([("login", .string(owner)), ("id", .integer(id(of: owner))), ("type", "Organization")])
                ),
                ("html_url", .string("https://github.com/\(name)")),
                ("description", .string("Stand-in repository \(rank + 1)")),
                ("stargazers_count", .integer(100_000 - rank * 97)), ("watchers_count", .integer(100_000 - rank * 97)),
                ("forks_count", .integer(9_000 - rank * 7)), ("language", "Swift"), ("score", .number(1)),
            ])
        }
        let document = JSONValue.object([
            ("total_count", .integer(total ?? repositories.count)), ("incomplete_results", false),
            ("items", .array(items)),
        ])
        return Array(document.text.utf8)
    }

    // MARK: - Events

    /// Event `index` of `feed` (0 is the oldest): its date and JSON.
    func event(_ index: Int, of feed: Feed) -> (date: Date, json: JSONValue) {
        var random = SeededRandom(seed: seed, 2, SeededRandom.hash(feed.path), UInt64(index))
        let date: Date
        if index < eventsPerFeed {
            date = start.addingTimeInterval(-Double(eventsPerFeed - index) * 2_220 - Double(random.below(600)))
        } else if let period = newEvery?.seconds {
            let phase = Double(SeededRandom.hash(feed.path) % 1_000_000) / 1_000_000 * period
            date = start.addingTimeInterval(Double(index - eventsPerFeed + 1) * period - phase)
        } else {
            date = start
        }
        let type = random.weighted(Self.types)
        let actor = feed.kind == "users" ? feed.name : "dev-\(random.below(400))"
        let repo: String
        switch feed.kind {
        case "repos": repo = feed.name
        case "orgs": repo = "\(feed.name)/project-\(random.below(6))"
        default: repo = "\(feed.name)/repo-\(random.below(3))"
        }
        let eventID = (Int(SeededRandom.hash("\(seed):\(feed.path)") % 90_000_000) + 10_000_000) * 1_000_000 + index
        var fields: [(key: String, value: JSONValue)] = [
            ("id", .string(String(eventID))), ("type", .string(type)),
            (
                "actor",
                .object([
                    ("id", .integer(id(of: actor))), ("login", .string(actor)), ("display_login", .string(actor)),
                    ("gravatar_id", ""), ("url", .string("\(root)/users/\(actor)")),
                    ("avatar_url", .string("https://avatars.githubusercontent.com/u/\(id(of: actor))?")),
                ])
            ),
            (
                "repo",
                .object([
                    ("id", .integer(id(of: repo))), ("name", .string(repo)), ("url", .string("\(root)/repos/\(repo)")),
                ])
            ),
            ("payload", payload(type, repo: repo, index: index, &random)), ("public", true),
            ("created_at", .date(date)),
        ]
        if feed.kind == "orgs" {
            fields.append(
                (
                    "org",
                    .object([
                        ("id", .integer(id(of: feed.name))), ("login", .string(feed.name)), ("gravatar_id", ""),
                        ("url", .string("\(root)/orgs/\(feed.name)")),
                        ("avatar_url", .string("https://avatars.githubusercontent.com/u/\(id(of: feed.name))?")),
                    ])
                ))
        }
        return (date, .object(fields))
    }

    /// The slim payloads GitHub sends since October 2025.
    private func payload(_ type: String, repo: String, index: Int, _ random: inout SeededRandom) -> JSONValue {
        let number = 1 + random.below(5_000)
        let web = "https://github.com/\(repo)"
        switch type {
        case "PushEvent":
            return .object([
                ("repository_id", .integer(id(of: repo))), ("push_id", .integer(20_000_000_000 + index)),
                ("ref", .string(["refs/heads/main", "refs/heads/develop"][random.below(2)])),
                ("head", .string(sha(&random))), ("before", .string(sha(&random))),
            ])
        case "WatchEvent":
            return .object([("action", "started")])
        case "IssuesEvent", "IssueCommentEvent":
            var fields: [(key: String, value: JSONValue)] = [
                ("action", .string(type == "IssuesEvent" ? ["opened", "closed"][random.below(2)] : "created")),
                (
                    "issue",
                    .object([
                        ("id", .integer(3_000_000_000 + number)), ("number", .integer(number)),
                        ("title", .string("Issue \(number): something to look at")),
                        ("html_url", .string("\(web)/issues/\(number)")), ("state", "open"),
                    ])
                ),
            ]
            if type == "IssueCommentEvent" {
                fields.append(
                    (
                        "comment",
                        .object([
                            ("id", .integer(4_000_000_000 + index)),
                            ("html_url", .string("\(web)/issues/\(number)#issuecomment-\(4_000_000_000 + index)")),
                            ("body", .string("Thanks, looking into it.")),
                        ])
                    ))
            }
            return .object(fields)
        case "PullRequestEvent", "PullRequestReviewEvent":
            // Since October 2025 a pull request is its id, number, URL, head and base: no title, state or author.
            return .object([
                ("action", .string(type == "PullRequestEvent" ? ["opened", "closed"][random.below(2)] : "created")),
                ("number", .integer(number)),
                (
                    "pull_request",
                    .object([
                        ("id", .integer(2_000_000_000 + number)), ("number", .integer(number)),
                        ("url", .string("\(root)/repos/\(repo)/pulls/\(number)")),
                        ("head", .object([("ref", .string("feature-\(number)")), ("sha", .string(sha(&random)))])),
                        ("base", .object([("ref", "main"), ("sha", .string(sha(&random)))])),
                    ])
                ),
            ])
        case "CreateEvent", "DeleteEvent":
            return .object([
                ("ref", .string("feature-\(number)")), ("ref_type", "branch"), ("master_branch", "main"),
                ("pusher_type", "user"),
            ])
        case "ForkEvent":
            return .object([
                (
                    "forkee",
                    .object([
                        ("id", .integer(id(of: "fork-\(index)/\(repo)"))), ("full_name", .string("dev-\(number)/fork")),
                        ("html_url", .string("https://github.com/dev-\(number)/fork")),
                    ])
                )
            ])
        default:
            return .object([
                ("action", "published"),
                (
                    "release",
                    .object([
                        ("id", .integer(5_000_000 + index)), ("tag_name", .string("v1.\(index).0")),
                        ("name", .string("Release 1.\(index)")), ("html_url", .string("\(web)/releases/v1.\(index).0")),
                    ])
                ),
            ])
        }
    }

    // MARK: - What the events no longer carry

    // The three answers below are shaped after GitHub's REST reference (API version 2022-11-28) for "Get a pull
    // request" (docs.github.com/en/rest/pulls/pulls), "Compare two commits" and "Get a commit"
    // (docs.github.com/en/rest/commits/commits): the fields the monitor reads (`title`, `user.login`, `state`, `draft`,
    // `merged`; `status`, `total_commits`, `commits[].commit.message`, oldest first) and a few beside them. No
    // captured answer of these endpoints is among the shared samples.

    /// What the generated pull requests and commits say.
    static let phrases = [
        "Fix the retry loop", "Speed up the parser", "Document the options", "Handle an empty answer",
        "Update the dependencies", "Tidy the tests", "Read the configuration once", "Bound the page size",
    ]

    /// `GET /repos/O/R/pulls/N`, in the shape of GitHub's answer (the fields the monitor reads, and a few more):
    /// every third one closed, every sixth merged, some open ones drafts.
    func pull(repo: String, number: Int) -> JSONValue {
        let closed = number % 3 == 0
        return .object([
            ("url", .string("\(root)/repos/\(repo)/pulls/\(number)")), ("id", .integer(2_000_000_000 + number)),
            ("html_url", .string("https://github.com/\(repo)/pull/\(number)")), ("number", .integer(number)),
            ("state", .string(closed ? "closed" : "open")),
            ("title", .string(Self.phrases[number % Self.phrases.count])),
            ("user", .object([("login", .string("dev-\(number % 40)")), ("id", .integer(1_000 + number % 40))])),
            ("draft", .bool(!closed && number % 7 == 1)), ("merged", .bool(number % 6 == 0)),
        ])
    }

    /// `GET /repos/O/R/compare/BASE...HEAD`: one to four commits ahead, oldest first; one comparison in eleven
    /// diverged (a force push).
    func compare(repo: String, base: String, head: String) -> JSONValue {
        let value = Int(head.prefix(8), radix: 16) ?? 0
        let diverged = value % 11 == 0
        let count = diverged ? 2 : 1 + value % 4
        let commits = (1...count).map { index -> JSONValue in
            let message = Self.phrases[(value + index) % Self.phrases.count] + "\n\nGenerated by monitor-standin."
            return .object([
                ("sha", .string(index == count ? head : String(format: "%040x", value &+ index))),
                ("commit", .object([("message", .string(message))])),
            ])
        }
        return .object([
            ("url", .string("\(root)/repos/\(repo)/compare/\(base)...\(head)")),
            ("status", .string(diverged ? "diverged" : "ahead")), ("ahead_by", .integer(count)),
            ("behind_by", .integer(diverged ? 3 : 0)), ("total_commits", .integer(count)), ("commits", .array(commits)),
        ])
    }

    /// `GET /repos/O/R/commits/SHA`.
    func commit(repo: String, sha: String) -> JSONValue {
        let value = Int(sha.prefix(8), radix: 16) ?? 0
        return .object([
            ("sha", .string(sha)), ("url", .string("\(root)/repos/\(repo)/commits/\(sha)")),
            ("commit", .object([("message", .string(Self.phrases[value % Self.phrases.count]))])),
        ])
    }

    private func sha(_ random: inout SeededRandom) -> String {
        (0..<3).map { _ in String(format: "%016llx", random.next()) }.joined().prefix(40).description
    }
}
