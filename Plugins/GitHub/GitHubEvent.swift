import Foundation
import MonitorCore

/// One event of the GitHub events API, decoded leniently: only `id`, `type` and `created_at` are needed, every
/// other field may be missing or of an unexpected shape (GitHub slimmed the payloads in October 2025).
struct GitHubEvent: Sendable, Hashable {
    /// Who acted.
    struct Actor: Sendable, Hashable, Decodable {
        var login: String?
        var displayLogin: String?
    }

    /// The repository the event happened in.
    struct Repository: Sendable, Hashable, Decodable {
        var name: String?
    }

    /// A pull request, an issue or a discussion, as far as a title needs it.
    struct Topic: Sendable, Hashable, Decodable {
        var number: Int?
        var title: String?
        var htmlUrl: String?
        var merged: Bool?
        /// Present on the issue of an `IssueCommentEvent` made on a pull request.
        var pullRequest: Presence?
    }

    /// Something with a web page of its own: a comment, a review, a wiki page.
    struct Page: Sendable, Hashable, Decodable {
        var htmlUrl: String?
    }

    /// A release.
    struct Release: Sendable, Hashable, Decodable {
        var tagName: String?
        var name: String?
        var htmlUrl: String?
    }

    /// The repository a fork made.
    struct Forkee: Sendable, Hashable, Decodable {
        var fullName: String?
        var htmlUrl: String?
    }

    /// A user added to a repository.
    struct Member: Sendable, Hashable, Decodable {
        var login: String?
    }

    /// A JSON value whose content does not matter, only that it is there and not null.
    struct Presence: Sendable, Hashable, Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// What the event carries, every field optional.
    struct Payload: Sendable, Hashable, Decodable {
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

        enum CodingKeys: String, CodingKey {
            case action, ref, refType, head, before, number, pullRequest, issue, discussion, comment, review, pages
            case release, forkee, member
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            action = container.lenient(String.self, .action)
            ref = container.lenient(String.self, .ref)
            refType = container.lenient(String.self, .refType)
            head = container.lenient(String.self, .head)
            before = container.lenient(String.self, .before)
            number = container.lenient(Int.self, .number)
            pullRequest = container.lenient(Topic.self, .pullRequest)
            issue = container.lenient(Topic.self, .issue)
            discussion = container.lenient(Topic.self, .discussion)
            comment = container.lenient(Page.self, .comment)
            review = container.lenient(Page.self, .review)
            pages = container.lenient([Page].self, .pages)
            release = container.lenient(Release.self, .release)
            forkee = container.lenient(Forkee.self, .forkee)
            member = container.lenient(Member.self, .member)
        }
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

// MARK: - Decodable

extension GitHubEvent: Decodable {
    enum CodingKeys: String, CodingKey {
        case id, type, actor, repo, payload, createdAt
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let text = container.lenient(String.self, .id) {
            id = text
        } else if let number = container.lenient(Int64.self, .id) {
            id = String(number)
        } else {
            throw DecodingError.dataCorruptedError(
                forKey: .id, in: container, debugDescription: "an event without an id")
        }
        guard let type = container.lenient(String.self, .type), !type.isEmpty else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "an event without a type")
        }
        self.type = type
        guard let text = container.lenient(String.self, .createdAt), let date = ISO8601.date(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .createdAt, in: container, debugDescription: "an event without a valid created_at")
        }
        self.date = date
        actor = container.lenient(Actor.self, .actor)
        repo = container.lenient(Repository.self, .repo)
        payload = container.lenient(Payload.self, .payload) ?? Payload()
    }

    /// The decoder for GitHub's snake_case JSON.
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// `page(_:)` through `JSONDecoder` and these `Decodable` conformances: the reference the byte reader is
    /// tested against.
    static func decodablePage(_ body: [UInt8]) throws -> [GitHubEvent?] {
        do {
            return try decoder.decode([Lossy<GitHubEvent>].self, from: Data(body)).map(\.value)
        } catch {
            throw SourceError("the events response is not a JSON list of events")
        }
    }
}

extension KeyedDecodingContainer {
    /// The value at `key`; nil when it is missing, null or of another shape.
    func lenient<Value: Decodable>(_ type: Value.Type, _ key: Key) -> Value? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }
}
