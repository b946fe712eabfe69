import Foundation
import MonitorCore
import MonitorJSON
import MonitorText

// MARK: - Online check

extension GitHubSource {
    /// One request, not a poll: the repository (`GET /repos/O/R`), organisation (`/orgs/X`) or user (`/users/X`)
    /// exists and is visible with the token, or the search (`/search/repositories?q=…&per_page=1`) finds
    /// repositories; what the answer's headers say of the token's scopes and of the rate limit left is reported.
    package func checkOnline(_ context: OnlineCheckContext) async -> OnlineCheck {
        guard let target = GitHubTarget(options: options) else {
            return .wrong("a github feed needs one of 'repo', 'org', 'user' or 'search'")
        }
        let api = GitHubAPI(root: options[Self.api], token: options[Self.token], http: context.http)
        let (url, what) = Self.checkRequest(of: target, root: api.root)
        let isSearch = if case .search = target { true } else { false }
        let isRepository = if case .repository = target { true } else { false }
        let response: HTTPResponse
        do {
            response = try await api.get(url, resource: isSearch ? "search" : nil)
        } catch let error as FetchError {
            switch error.reason {
            case .status(404, _) where api.token != nil:
                return .wrong("\(what) not found or not visible with this token")
            case .status(404, _) where isRepository:
                return .wrong("\(what) not found (or private: it needs a token)")
            case .status(404, _): return .wrong("\(what) not found")
            case .status(401, _) where api.token != nil: return .wrong("token rejected (bad credentials)")
            case .rateLimited(let until, _):
                return .notChecked("rate limit exhausted, it resets at \(UTCTime.full(until))")
            default: return .failed(error)
            }
        } catch {
            return .notChecked("\(error)")
        }
        var learnt = what
        if case .search(let query, _) = target {
            guard let total = Self.totalCount(in: response.body) else {
                return .wrong("GET \(url): the answer is not a repository search's (no total_count)")
            }
            let shown = TerminalText.sanitized(query)
            guard total > 0 else { return .wrong("search '\(shown)' finds no repositories") }
            learnt = "search '\(shown)' finds \(Self.grouped(total)) repositor\(total == 1 ? "y" : "ies")"
        }
        if api.token != nil { learnt += ", " + Self.scopes(response.headers) }
        if let limit = RateLimit(headers: response.headers), let remaining = limit.remaining, let of = limit.limit {
            let resource = isSearch ? "search requests" : "requests"
            learnt += "; \(Self.grouped(Int64(remaining))) of \(Self.grouped(Int64(of))) \(resource) left"
        }
        return .ok(learnt)
    }

    /// The URL that tells whether `target` exists, and the target in words.
    static func checkRequest(of target: GitHubTarget, root: String) -> (url: String, what: String) {
        switch target {
        case .repository(let name): ("\(root)/repos/\(name)", "repository \(name)")
        case .organization(let name): ("\(root)/orgs/\(name)", "organisation \(name)")
        case .user(let name): ("\(root)/users/\(name)", "user \(name)")
        case .search(let query, _):
            ("\(root)/search/repositories?q=\(query.percentEncoded())&per_page=1", "search")
        }
    }

    /// The token's classic scopes from `X-OAuth-Scopes`, at most 30 (GitHub has fewer) of 40 cells each; a
    /// fine-grained token (or an app's) sends none.
    static func scopes(_ headers: HTTPHeaders) -> String {
        guard let value = headers["X-OAuth-Scopes"] else {
            return "token scopes not told (a fine-grained token: its permissions are not shown)"
        }
        let scopes = value.split(separator: ",").map { TerminalText.sanitized($0.trimmingWhitespace()) }
            .filter { !$0.isEmpty }
        let shown = scopes.prefix(30).map { TerminalText.cut($0, to: 40) }
        let more = scopes.count > 30 ? " and \(grouped(Int64(scopes.count - 30))) more" : ""
        return scopes.isEmpty ? "token has no scopes" : "token scopes \(shown.joined(separator: ", "))\(more)"
    }

    /// The `total_count` of a search's answer; nil when it has none.
    static func totalCount(in body: [UInt8]) -> Int64? {
        try? JSONReader.document(body) { (reader) throws(JSONError) in
            var total: Int64?
            try reader.members { (key, reader) throws(JSONError) in
                if JSONSnakeKey(key, in: reader).is("total_count") { total = try reader.integer() }
            }
            return total
        } ?? nil
    }

    /// `4987` as `4,987`.
    static func grouped(_ number: Int64) -> String {
        let digits = String(number.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return number < 0 ? "-" + text : text
    }
}
