import MonitorCore
import MonitorOptions
import MonitorText

/// The `github` source: the events of a repository, organisation or user, or the combined events of the top
/// repositories of a search.
package struct GitHubSource: FeedSource {
    package static let type = "github"
    package static let summary =
        "Activity of a GitHub repository, organisation or user, or of the top repositories of a search"

    /// GitHub's rate-limit resources, `X-Poll-Interval` and secondary rate limit.
    package static var httpPolicy: any HTTPSourcePolicy { GitHubHTTPPolicy() }

    /// The details of an event's item (see `GitHubEvent.details`).
    package static var detailNames: [String]? {
        ["actor", "repo", "ref", "number", "action", "author", "state", "commits"]
    }

    /// The keys of which exactly one says what the feed follows.
    static let targets = ["repo", "org", "user", "search"]

    static let repo = FeedOption<String?>(
        "repo", .string(placeholder: "owner/name", format: checkRepository),
        doc: "Follow the events of this repository (one of repo, org, user, search)")
    static let org = FeedOption<String?>(
        "org", .string(placeholder: "name", format: checkLogin), doc: "Follow the public events of this organisation")
    static let user = FeedOption<String?>(
        "user", .string(placeholder: "name", format: checkLogin), doc: "Follow the public events of this user")
    static let search = FeedOption<String?>(
        "search", .string(placeholder: "query"),
        doc: "Follow the combined events of the top repositories of this search, by stars")
    static let top = FeedOption<Int>(
        "top", .integer(1...30), default: 5, doc: "With search: how many repositories to follow")
    static let searchEvery = FeedOption<Duration>(
        "search_every", .duration(minimum: .seconds(60)), default: .seconds(3600),
        doc: "With search: how long a search result is reused before searching again")
    static let token = FeedOption<String?>(
        "token", .string(placeholder: "token"), secret: true,
        doc: "API token sent as a Bearer credential, normally ${GITHUB_TOKEN:-}; empty means unauthenticated")
    static let api = FeedOption<String>(
        "api", .url, default: "https://api.github.com",
        doc: "API root; a GitHub Enterprise Server is https://HOST/api/v3")
    static let keep = FeedOption<Int>(
        "keep", .integer(1...300), default: 50, doc: "How many of the newest events the feed keeps")
    static let types = FeedOption<[String]?>(
        "types", .list(placeholder: "event types"), doc: "Only these event types become items, e.g. [PushEvent]")
    static let details = FeedOption<Bool>(
        "details", .boolean, default: true,
        doc:
            "Fill in what GitHub's events stopped carrying in 2025 (a pull request's title and state, a push's commits): "
            + "one request per pull request or push, kept between polls, never below 100 requests left")

    package static let options: [any OptionDeclaration] = [
        repo, org, user, search, top, searchEvery, token, api, keep, types, details,
    ]

    package static func check(_ options: FeedOptions) -> [Diagnostic] {
        let chosen = targets.filter { options.isSet($0) }
        guard chosen.count == 1 else {
            let message =
                chosen.isEmpty
                ? "a github feed needs one of 'repo', 'org', 'user' or 'search'"
                : "a github feed follows one of 'repo', 'org', 'user' or 'search', not both '\(chosen[0])' and '\(chosen[1])'"
            return [
                .error(
                    message, at: chosen.count > 1 ? options.location(of: chosen[1]) : options.location,
                    isAbsence: chosen.isEmpty)
            ]
        }
        guard chosen[0] != "search" else { return [] }
        return ["top", "search_every"].filter { options.isSet($0) }.map { key in
            .error("'\(key)' applies only to a 'search' feed", at: options.location(of: key))
        }
    }

    @Sendable static func checkRepository(_ text: String) -> String? {
        guard GitHubEvent.isRepositoryName(text), checkLogin(String(text.prefix { $0 != "/" })) == nil else {
            return "write the repository as owner/name, like ReactiveX/RxSwift"
        }
        return nil
    }

    @Sendable static func checkLogin(_ text: String) -> String? {
        let valid =
            !text.isEmpty && text.count <= 100
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        return valid ? nil : "a GitHub login has only letters, digits and '-'"
    }

    let options: FeedOptions

    /// A source for the feed with the validated `options`.
    package init(options: FeedOptions) {
        self.options = options
    }

    /// The newest `keep` events, the stored ones and the new ones together.
    package var retention: ItemRetention { .keepNewest(options[Self.keep]) }

    /// `monitor events` shows who acted and in which repository.
    package static var detailColumns: [String] { ["actor", "repo"] }

    /// Polls the events of the feed's target, or of the top repositories of its search: only the pages needed
    /// to reach the events already stored (or `keep` events), each request conditional on the validators kept
    /// for its URL and token. Each event becomes an item in the group of its type.
    package func poll(_ context: PollContext, _ found: Findings) async throws {
        try await GitHubPoll(options: options, context: context).run(found)
    }
}
