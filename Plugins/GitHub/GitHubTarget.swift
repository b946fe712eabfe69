import MonitorCore
import MonitorOptions

/// What a github feed follows: one of its `repo`, `org`, `user` or `search` options.
enum GitHubTarget: Sendable, Hashable {
    /// A repository, `owner/name`.
    case repository(String)
    /// An organisation.
    case organization(String)
    /// A user.
    case user(String)
    /// The top repositories of a search, by stars.
    case search(query: String, top: Int)

    /// The target the validated `options` set.
    init?(options: FeedOptions) {
        if let name = options[GitHubSource.repo] {
            self = .repository(name)
        } else if let name = options[GitHubSource.org] {
            self = .organization(name)
        } else if let name = options[GitHubSource.user] {
            self = .user(name)
        } else if let query = options[GitHubSource.search] {
            self = .search(query: query, top: options[GitHubSource.top])
        } else {
            return nil
        }
    }

    /// The path of the target's events under the API root; nil for a search, which follows several.
    var eventsPath: String? {
        switch self {
        case .repository(let name): "repos/\(name)"
        case .organization(let name): "orgs/\(name)"
        case .user(let name): "users/\(name)"
        case .search: nil
        }
    }
}
