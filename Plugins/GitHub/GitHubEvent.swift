import Foundation

/// One event of the GitHub events API, decoded leniently: only `id`, `type` and `created_at` are needed, every
/// other field may be missing or of an unexpected shape (GitHub slimmed the payloads in October 2025).
struct GitHubEvent: Sendable, Hashable {
    /// Who acted.
    struct Actor: Sendable, Hashable {
        var login: String?
        var displayLogin: String?
    }

    /// The repository the event happened in.
    struct Repository: Sendable, Hashable {
        var name: String?
    }

    /// A pull request, an issue or a discussion, as far as a title needs it.
    struct Topic: Sendable, Hashable {
        var number: Int?
        var title: String?
        var htmlUrl: String?
        var merged: Bool?
        /// Present on the issue of an `IssueCommentEvent` made on a pull request.
        var pullRequest: Presence?
    }

    /// Something with a web page of its own: a comment, a review, a wiki page.
    struct Page: Sendable, Hashable {
        var htmlUrl: String?
    }

    /// A release.
    struct Release: Sendable, Hashable {
        var tagName: String?
        var name: String?
        var htmlUrl: String?
    }

    /// The repository a fork made.
    struct Forkee: Sendable, Hashable {
        var fullName: String?
        var htmlUrl: String?
    }

    /// A user added to a repository.
    struct Member: Sendable, Hashable {
        var login: String?
    }

    /// A JSON value whose content does not matter, only that it is there and not null.
    struct Presence: Sendable, Hashable {}

    /// What the event carries, every field optional.
    struct Payload: Sendable, Hashable {
        var action: String?
        var ref: String?
        var refType: String?
        var head: String?
        var before: String?
        var number: Int?
        var pullRequest: Topic?
        var issue: Topic?
        var discussion: Topic?
        var comment: Page?
        var review: Page?
        var pages: [Page]?
        var release: Release?
        var forkee: Forkee?
        var member: Member?
    }

    /// The event's id, a string of digits.
    var id: String
    /// `PushEvent`, `WatchEvent`… or a type this plugin does not know.
    var type: String
    /// Who acted.
    var actor: Actor?
    /// Where.
    var repo: Repository?
    /// What.
    var payload: Payload
    /// When (`created_at`).
    var date: Date
}
