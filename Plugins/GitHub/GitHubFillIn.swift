import MonitorJSON
import MonitorText

/// What GitHub's events stopped carrying on 2025-10-07 (a push's commits, a pull request's title and state), read
/// back from the REST answer that has it: `pulls/N` for a pull request, `compare/BEFORE...HEAD` for a push onto a
/// branch, `commits/HEAD` for a push that made one.
enum GitHubFillIn: Sendable, Hashable {
    case pullRequest(PullRequest)
    case push(Push)

    /// A pull request, as `GET /repos/O/R/pulls/N` answers.
    struct PullRequest: Sendable, Hashable {
        var title: String
        /// Who opened it.
        var author: String?
        var draft = false
        var merged = false
        /// `open` or `closed`, as GitHub says.
        var state: String?

        /// `merged`, `draft`, `closed` or `open`: the `state` detail.
        var status: String {
            if merged { return "merged" }
            if state == "closed" { return "closed" }
            return draft ? "draft" : "open"
        }
    }

    /// What a push brought, as `compare` (or, for a new branch, `commits`) answers.
    struct Push: Sendable, Hashable {
        /// How many commits it brought; nil for a new branch or a push that rewrote the branch.
        var commits: Int?
        /// The first line of the newest commit's message.
        var headline: String?
        /// `diverged` or `behind` when the push rewrote the branch (a force push): then nothing is counted.
        var rewritten: String?
    }

    /// A request that fills in an event: the API path to ask and how to read its answer.
    struct Request: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case pullRequest, compare, commit
        }

        /// The path under the API root: `/repos/O/R/pulls/N`.
        var path: String
        var kind: Kind
    }

    /// The longest title or commit line kept, in characters.
    static let maximumText = 300

    /// What fills in `event`, or nil when it lacks nothing this asks for (or too little is known to ask).
    static func request(for event: GitHubEvent) -> Request? {
        guard let repo = event.repo?.name, GitHubEvent.isRepositoryName(repo) else { return nil }
        switch event.type {
        case "PullRequestEvent", "PullRequestReviewEvent", "PullRequestReviewCommentEvent":
            guard event.payload.pullRequest?.title?.isEmpty ?? true, let number = event.topicNumber, number > 0 else {
                return nil
            }
            return Request(path: "/repos/\(repo)/pulls/\(number)", kind: .pullRequest)
        case "PushEvent":
            guard let head = event.payload.head, GitHubEvent.isCommit(head) else { return nil }
            guard let before = event.payload.before, GitHubEvent.isCommit(before) else { return nil }
            if before.allSatisfy({ $0 == "0" }) {
                return Request(path: "/repos/\(repo)/commits/\(head)", kind: .commit)
            }
            return Request(path: "/repos/\(repo)/compare/\(before)...\(head)", kind: .compare)
        default:
            return nil
        }
    }

    /// The fill-in in `body`, an answer to a request of `kind`; nil when the body is not such an answer.
    static func read(_ body: [UInt8], as kind: Request.Kind) -> GitHubFillIn? {
        try? JSONReader.document(body) { (reader) throws(JSONError) -> GitHubFillIn? in
            guard try reader.kind() == .object else { return nil }
            return switch kind {
            case .pullRequest: try pullRequest(&reader).map(GitHubFillIn.pullRequest)
            case .compare: try compare(&reader).map(GitHubFillIn.push)
            case .commit: try commit(&reader).map { .push(Push(headline: $0)) }
            }
        } ?? nil
    }

    /// `title`, `user.login`, `draft`, `merged` and `state` of a pull request; nil without a title.
    private static func pullRequest(_ reader: inout JSONReader) throws(JSONError) -> PullRequest? {
        var pull = PullRequest(title: "")
        try reader.members { (key, reader) throws(JSONError) in
            if reader.key(key, is: "title") {
                pull.title = try reader.lenientString().map { text(of: $0) } ?? ""
            } else if reader.key(key, is: "user") {
                // A user is an object with a `login`, as an event's actor is.
                pull.author = try GitHubEvent.Actor.read(&reader)?.login.map { text(of: $0) }.flatMap {
                    $0.isEmpty ? nil : $0
                }
            } else if reader.key(key, is: "draft") {
                pull.draft = try flag(&reader)
            } else if reader.key(key, is: "merged") {
                pull.merged = try flag(&reader)
            } else if reader.key(key, is: "state") {
                pull.state = try reader.lenientString().map { text(of: $0) }
            } else {
                try reader.skip()
            }
        }
        return pull.title.isEmpty ? nil : pull
    }

    /// A boolean; false for anything else.
    private static func flag(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        guard try reader.kind() == .bool else {
            try reader.skip()
            return false
        }
        return try reader.bool()
    }

    /// `status`, `total_commits` and the newest commit's first line of a comparison; nil without a status.
    private static func compare(_ reader: inout JSONReader) throws(JSONError) -> Push? {
        var status: String?
        var total: Int?
        var listed = 0
        var newest: String?
        try reader.members { (key, reader) throws(JSONError) in
            if reader.key(key, is: "status") {
                status = try reader.lenientString()
            } else if reader.key(key, is: "total_commits") {
                total = try reader.lenientInt()
            } else if reader.key(key, is: "commits"), try reader.kind() == .array {
                // Oldest first: the newest is the last one listed.
                try reader.elements { (reader) throws(JSONError) in
                    listed += 1
                    newest = try commit(&reader)
                }
            } else {
                try reader.skip()
            }
        }
        switch status {
        case "diverged", "behind":
            return Push(rewritten: status)
        case "ahead", "identical":
            let count = max(0, total ?? listed)
            // A comparison lists at most 250 commits, the oldest: then the newest is not among them.
            return Push(commits: count, headline: listed == count ? newest : nil)
        default:
            return nil
        }
    }

    /// The first line of `commit.message` of a commit object; nil without one.
    private static func commit(_ reader: inout JSONReader) throws(JSONError) -> String? {
        guard try reader.kind() == .object else {
            try reader.skip()
            return nil
        }
        var message: String?
        try reader.members { (key, reader) throws(JSONError) in
            guard reader.key(key, is: "commit"), try reader.kind() == .object else { return try reader.skip() }
            try reader.members { (key, reader) throws(JSONError) in
                if reader.key(key, is: "message") { message = try reader.lenientString() } else { try reader.skip() }
            }
        }
        guard let message else { return nil }
        let line = text(of: String(message.prefix { !$0.isNewline }))
        return line.isEmpty ? nil : line
    }

    /// `raw` as an item shows it: without control characters, trimmed, at most ``maximumText`` characters.
    private static func text(of raw: String) -> String {
        TerminalText.capped(raw, to: maximumText).trimmingWhitespace()
    }
}
