import Foundation
import MonitorCore

/// The GitHub REST API as one feed's poll sees it: its root, the web host it links to, the token and the
/// headers every request carries.
struct GitHubAPI: Sendable {
    /// The media type of the REST API's JSON.
    static let accept = "application/vnd.github+json"
    /// The API version this plugin is written against.
    static let version = "2022-11-28"

    /// The API root without a trailing slash: `https://api.github.com`, `https://HOST/api/v3`.
    let root: String
    /// The root of the web pages: `https://github.com`, `https://HOST`.
    let web: String
    /// The token, nil when unauthenticated.
    let token: String?
    /// The poll's HTTP client.
    let http: FeedHTTP

    /// The API at `root` (as configured) with `token` (empty: none).
    init(root: String, token: String?, http: FeedHTTP) {
        var root = root
        while root.hasSuffix("/") { root.removeLast() }
        self.root = root
        web = Self.webRoot(api: root)
        let token = token?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        self.token = token.isEmpty ? nil : token
        self.http = http
    }

    /// GETs `url` with the API's headers (the engine adds `User-Agent` and the conditional ones) and the token as the
    /// credential the validators are kept by; `resource` is the rate limit it counts against (`search` for the search
    /// API; nil: `core`).
    func get(_ url: String, resource: String? = nil) async throws -> HTTPResponse {
        var headers: HTTPHeaders = ["Accept": Self.accept, "X-GitHub-Api-Version": Self.version]
        if let token { headers.add("Authorization", "Bearer \(token)") }
        return try await http.get(url, headers: headers, credential: token, resource: resource)
    }

    /// Whether `url` is on the API's own host, so that it may be sent the token.
    func isOwn(_ url: String) -> Bool {
        guard let target = URLOrigin(url), let own = URLOrigin(root) else { return false }
        return target == own
    }

    // MARK: - Endpoints

    /// The first page of the events under `path` (`repos/owner/name`, `orgs/name`, `users/name`).
    func events(_ path: String, perPage: Int) -> String {
        "\(root)/\(path)/events?per_page=\(perPage)"
    }

    /// The search of the `top` repositories of `query`, by stars.
    func search(_ query: String, top: Int) -> String {
        "\(root)/search/repositories?q=\(query.percentEncoded())&sort=stars&order=desc&per_page=\(top)"
    }

    /// The web root of an API root: `https://api.github.com` → `https://github.com`,
    /// `https://HOST/api/v3` → `https://HOST`; any other root is its own web root.
    static func webRoot(api: String) -> String {
        guard var components = URLComponents(string: api), let host = URLOrigin.host(of: components) else { return api }
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        if path.hasSuffix("/api/v3") {
            path.removeLast("/api/v3".count)
        } else if path.isEmpty, host.lowercased().hasPrefix("api.") {
            components.host = String(host.dropFirst("api.".count))
        }
        components.path = path
        components.query = nil
        components.fragment = nil
        return components.string ?? api
    }
}
