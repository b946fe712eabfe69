import Foundation
import MonitorCore
import MonitorItems
import MonitorText

extension GitHubEvent {
    /// The item of this event, with what `fillIn` says that the event no longer does; `web` is the root of the web
    /// pages (`https://github.com`).
    func item(web: String, fillIn: GitHubFillIn? = nil) -> Item {
        Item(
            id: id, title: sentence(fillIn), date: date, groups: [type], url: webURL(web: web),
            details: details + Self.details(of: fillIn))
    }

    /// Who acted, as GitHub shows them.
    var actorName: String {
        let name = actor?.displayLogin ?? actor?.login ?? ""
        return name.isEmpty ? "someone" : TerminalText.sanitized(name)
    }

    /// The `owner/name` of the repository.
    var repoName: String {
        let name = repo?.name ?? ""
        return name.isEmpty ? "a repository" : TerminalText.sanitized(name)
    }

    /// The branch or tag pushed to, created or deleted, without `refs/heads/`.
    var shortRef: String? {
        guard let ref = payload.ref, !ref.isEmpty else { return nil }
        return TerminalText.sanitized(ref.hasPrefix("refs/heads/") ? String(ref.dropFirst("refs/heads/".count)) : ref)
    }

    /// The number of the pull request or issue the event is about.
    var topicNumber: Int? {
        payload.number ?? payload.pullRequest?.number ?? payload.issue?.number ?? payload.discussion?.number
    }

    // MARK: - Title

    /// A readable sentence: "kzaher pushed to main", "jshier starred Alamofire/Alamofire"; with a fill-in, "bob
    /// pushed 3 commits to main: Fix the retry loop", "alice opened pull request #812: Speed up the parser".
    func sentence(_ fillIn: GitHubFillIn? = nil) -> String {
        let who = actorName
        let repo = repoName
        let action = payload.action.map { TerminalText.sanitized($0) }
        var pullRequest = payload.pullRequest
        if case .pullRequest(let pull) = fillIn {
            var filled = pullRequest ?? Topic()
            filled.title = pull.title
            filled.merged = filled.merged ?? pull.merged
            pullRequest = filled
        }
        switch type {
        case "PushEvent":
            guard case .push(let push) = fillIn else { return "\(who) pushed to \(shortRef ?? repo)" }
            let line = push.headline.map { ": \($0)" } ?? ""
            if let rewritten = push.rewritten { return "\(who) force-pushed to \(shortRef ?? repo) (\(rewritten))" }
            guard let count = push.commits, count > 0 else { return "\(who) pushed to \(shortRef ?? repo)\(line)" }
            return "\(who) pushed \(count) commit\(count == 1 ? "" : "s") to \(shortRef ?? repo)\(line)"
        case "WatchEvent":
            return "\(who) starred \(repo)"
        case "ForkEvent":
            let fork = payload.forkee?.fullName.map { " to \(TerminalText.sanitized($0))" } ?? ""
            return "\(who) forked \(repo)\(fork)"
        case "PullRequestEvent":
            let merged = action == "closed" && pullRequest?.merged == true
            let verb = merged ? "merged" : action ?? "updated"
            return "\(who) \(verb) \(topic("pull request", pullRequest, in: repo))"
        case "PullRequestReviewEvent":
            guard fillIn != nil else { return "\(who) reviewed \(numbered("pull request", in: repo))" }
            return "\(who) reviewed \(topic("pull request", pullRequest, in: repo))"
        case "PullRequestReviewCommentEvent":
            return "\(who) commented on \(topic("pull request", pullRequest, in: repo))"
        case "IssuesEvent":
            return "\(who) \(action ?? "updated") \(topic("issue", payload.issue, in: repo))"
        case "IssueCommentEvent":
            let kind = payload.issue?.pullRequest != nil ? "pull request" : "issue"
            return "\(who) commented on \(topic(kind, payload.issue, in: repo))"
        case "CreateEvent", "DeleteEvent":
            let verb = type == "CreateEvent" ? "created" : "deleted"
            let kind = payload.refType.map { TerminalText.sanitized($0) }
            if kind == "repository" { return "\(who) \(verb) repository \(repo)" }
            if let ref = shortRef { return "\(who) \(verb) \(kind ?? "ref") \(ref) in \(repo)" }
            return "\(who) \(verb) \(Self.article(kind ?? "ref")) \(kind ?? "ref") in \(repo)"
        case "ReleaseEvent":
            let name = (payload.release?.tagName ?? payload.release?.name).map { TerminalText.sanitized($0) }
            return "\(who) \(action ?? "published") \(name.map { "release \($0)" } ?? "a release") of \(repo)"
        case "MemberEvent":
            let member = payload.member?.login.map { TerminalText.sanitized($0) } ?? "a collaborator"
            return "\(who) \(action ?? "added") \(member) to \(repo)"
        case "PublicEvent":
            return "\(who) made \(repo) public"
        case "GollumEvent":
            return "\(who) edited the wiki of \(repo)"
        case "CommitCommentEvent":
            return "\(who) commented on a commit in \(repo)"
        case "DiscussionEvent":
            let verb = action == nil || action == "created" ? "started" : action ?? ""
            let title = payload.discussion?.title.map { ": \(TerminalText.sanitized($0))" } ?? ""
            return "\(who) \(verb) a discussion in \(repo)\(title)"
        default:
            return "\(who): \(TerminalText.sanitized(type)) in \(repo)"
        }
    }

    /// "pull request #3 in a/b", or "a pull request in a/b" without a number.
    private func numbered(_ kind: String, in repo: String) -> String {
        topicNumber.map { "\(kind) #\($0) in \(repo)" } ?? "\(Self.article(kind)) \(kind) in \(repo)"
    }

    /// "an" before a vowel ("an issue"), else "a" ("a pull request").
    static func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0.lowercased()) } == true ? "an" : "a"
    }

    /// "pull request #3120: Title" with its title, else "pull request #3120 in a/b".
    private func topic(_ kind: String, _ topic: Topic?, in repo: String) -> String {
        guard let title = topic?.title.map({ TerminalText.sanitized($0) }), !title.isEmpty else {
            return numbered(kind, in: repo)
        }
        return topicNumber.map { "\(kind) #\($0): \(title)" } ?? "\(Self.article(kind)) \(kind): \(title)"
    }

    // MARK: - Web page

    /// The web page of what happened.
    func webURL(web: String) -> String? {
        guard let name = repo?.name, Self.isRepositoryName(name) else { return nil }
        let repoURL = "\(web)/\(name)"
        let number = topicNumber
        switch type {
        case "PushEvent":
            if let before = payload.before, let head = payload.head, Self.isCommit(before), Self.isCommit(head),
                before.contains(where: { $0 != "0" })
            {
                return "\(repoURL)/compare/\(before)...\(head)"
            }
            if let ref = shortRef { return "\(repoURL)/commits/\(ref.percentEncoded(keeping: "/"))" }
            return repoURL
        case "ForkEvent":
            if let url = Self.webPage(payload.forkee?.htmlUrl) { return url }
            if let fork = payload.forkee?.fullName, Self.isRepositoryName(fork) { return "\(web)/\(fork)" }
            return repoURL
        case "PullRequestEvent":
            return Self.webPage(payload.pullRequest?.htmlUrl) ?? number.map { "\(repoURL)/pull/\($0)" } ?? repoURL
        case "PullRequestReviewEvent", "PullRequestReviewCommentEvent":
            let page = type == "PullRequestReviewEvent" ? payload.review : payload.comment
            return Self.webPage(page?.htmlUrl) ?? Self.webPage(payload.pullRequest?.htmlUrl)
                ?? number.map { "\(repoURL)/pull/\($0)" } ?? repoURL
        case "IssuesEvent", "IssueCommentEvent":
            let comment = type == "IssueCommentEvent" ? Self.webPage(payload.comment?.htmlUrl) : nil
            return comment ?? Self.webPage(payload.issue?.htmlUrl) ?? number.map { "\(repoURL)/issues/\($0)" }
                ?? repoURL
        case "ReleaseEvent":
            if let url = Self.webPage(payload.release?.htmlUrl) { return url }
            if let tag = payload.release?.tagName {
                return "\(repoURL)/releases/tag/\(tag.percentEncoded(keeping: "/"))"
            }
            return "\(repoURL)/releases"
        case "CommitCommentEvent":
            return Self.webPage(payload.comment?.htmlUrl) ?? repoURL
        case "GollumEvent":
            return Self.webPage(payload.pages?.first?.htmlUrl) ?? "\(repoURL)/wiki"
        case "DiscussionEvent":
            return Self.webPage(payload.discussion?.htmlUrl) ?? number.map { "\(repoURL)/discussions/\($0)" }
                ?? repoURL
        default:
            return repoURL
        }
    }

    /// `url` when it is an http(s) URL without spaces or control characters.
    private static func webPage(_ url: String?) -> String? {
        guard let url, url.hasPrefix("https://") || url.hasPrefix("http://"),
            url.unicodeScalars.allSatisfy({ (0x21..<0x7F).contains($0.value) })
        else { return nil }
        return url
    }

    /// Whether `name` is a plain `owner/name`: two parts of ASCII letters, digits, `-`, `_` and `.` around one
    /// `/`, neither empty nor `.` or `..`. One pass over its scalars.
    static func isRepositoryName(_ name: String) -> Bool {
        var slashes = 0
        // The scalars of the part being read, and how many of them are dots.
        var length = 0
        var dots = 0
        for scalar in name.unicodeScalars {
            switch scalar {
            case "/":
                guard slashes == 0, length > dots || length > 2 else { return false }
                slashes = 1
                length = 0
                dots = 0
            case ".":
                length += 1
                dots += 1
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_":
                length += 1
            default:
                return false
            }
        }
        return slashes == 1 && (length > dots || length > 2)
    }

    static func isCommit(_ sha: String) -> Bool {
        (7...64).contains(sha.count) && sha.allSatisfy(\.isHexDigit)
    }

    // MARK: - Details

    /// What a fill-in adds to the details: `author` and `state` of a pull request, `commits` of a push.
    static func details(of fillIn: GitHubFillIn?) -> [Detail] {
        switch fillIn {
        case .pullRequest(let pull):
            return (pull.author.map { [Detail("author", $0)] } ?? []) + [Detail("state", pull.status)]
        case .push(let push):
            return push.commits.map { [Detail("commits", String($0))] } ?? []
        case nil:
            return []
        }
    }

    /// `actor`, `repo`, then `ref` for pushes, `number` and `action` for pull requests and issues.
    var details: [Detail] {
        var details = [Detail("actor", actorName), Detail("repo", repoName)]
        switch type {
        case "PushEvent":
            if let ref = shortRef { details.append(Detail("ref", ref)) }
        case "PullRequestEvent", "PullRequestReviewEvent", "PullRequestReviewCommentEvent", "IssuesEvent",
            "IssueCommentEvent":
            if let number = topicNumber { details.append(Detail("number", String(number))) }
            if let action = payload.action { details.append(Detail("action", TerminalText.sanitized(action))) }
        default:
            break
        }
        return details
    }
}
