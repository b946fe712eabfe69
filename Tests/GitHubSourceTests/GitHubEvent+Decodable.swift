import Foundation

@testable import GitHubSource
@testable import MonitorCore
@testable import MonitorJSON

/// The `Decodable` conformances the events were first read with, through `JSONDecoder` with snake_case keys: the
/// reference the byte reader (`GitHubEvent.page(_:)`) is checked against. Each nested object is decoded strictly
/// (a field of another shape spoils it) and read leniently where it is used (`try?`), as the conformances did.
/// The initializers are `public` because Swift requires it of a conformance added to a type of a `@testable` import.
extension GitHubEvent: Decodable {
    enum CodingKeys: String, CodingKey {
        case id, type, actor, repo, payload, createdAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id: String
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
        guard let text = container.lenient(String.self, .createdAt), let date = ISO8601.date(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .createdAt, in: container, debugDescription: "an event without a valid created_at")
        }
        self.init(
            id: id, type: type, actor: container.lenient(Actor.self, .actor),
            repo: container.lenient(Repository.self, .repo),
            payload: container.lenient(Payload.self, .payload) ?? Payload(), date: date)
    }

    /// The decoder for GitHub's snake_case JSON.
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// `page(_:)` through `JSONDecoder` and these conformances.
    static func decodablePage(_ body: [UInt8]) throws -> [GitHubEvent?] {
        do {
            return try decoder.decode([Lossy<GitHubEvent>].self, from: Data(body)).map(\.value)
        } catch {
            throw SourceError("the events response is not a JSON list of events")
        }
    }
}

extension GitHubEvent.Actor: Decodable {
    enum CodingKeys: String, CodingKey { case login, displayLogin }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        login = try container.decodeIfPresent(String.self, forKey: .login)
        displayLogin = try container.decodeIfPresent(String.self, forKey: .displayLogin)
    }
}

extension GitHubEvent.Repository: Decodable {
    enum CodingKeys: String, CodingKey { case name }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        name = try container.decodeIfPresent(String.self, forKey: .name)
    }
}

extension GitHubEvent.Topic: Decodable {
    enum CodingKeys: String, CodingKey { case number, title, htmlUrl, merged, pullRequest }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        number = try container.decodeIfPresent(Int.self, forKey: .number)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        htmlUrl = try container.decodeIfPresent(String.self, forKey: .htmlUrl)
        merged = try container.decodeIfPresent(Bool.self, forKey: .merged)
        pullRequest = try container.decodeIfPresent(GitHubEvent.Presence.self, forKey: .pullRequest)
    }
}

extension GitHubEvent.Page: Decodable {
    enum CodingKeys: String, CodingKey { case htmlUrl }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        htmlUrl = try container.decodeIfPresent(String.self, forKey: .htmlUrl)
    }
}

extension GitHubEvent.Release: Decodable {
    enum CodingKeys: String, CodingKey { case tagName, name, htmlUrl }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        tagName = try container.decodeIfPresent(String.self, forKey: .tagName)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        htmlUrl = try container.decodeIfPresent(String.self, forKey: .htmlUrl)
    }
}

extension GitHubEvent.Forkee: Decodable {
    enum CodingKeys: String, CodingKey { case fullName, htmlUrl }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        fullName = try container.decodeIfPresent(String.self, forKey: .fullName)
        htmlUrl = try container.decodeIfPresent(String.self, forKey: .htmlUrl)
    }
}

extension GitHubEvent.Member: Decodable {
    enum CodingKeys: String, CodingKey { case login }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        login = try container.decodeIfPresent(String.self, forKey: .login)
    }
}

extension GitHubEvent.Presence: Decodable {
    /// Any value that is there and not null.
    public init(from decoder: any Decoder) throws {
        self.init()
    }
}

extension GitHubEvent.Payload: Decodable {
    enum CodingKeys: String, CodingKey {
        case action, ref, refType, head, before, number, pullRequest, issue, discussion, comment, review, pages
        case release, forkee, member
    }

    /// Every field lenient: one of another shape is nil, the others are kept.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        action = container.lenient(String.self, .action)
        ref = container.lenient(String.self, .ref)
        refType = container.lenient(String.self, .refType)
        head = container.lenient(String.self, .head)
        before = container.lenient(String.self, .before)
        number = container.lenient(Int.self, .number)
        pullRequest = container.lenient(GitHubEvent.Topic.self, .pullRequest)
        issue = container.lenient(GitHubEvent.Topic.self, .issue)
        discussion = container.lenient(GitHubEvent.Topic.self, .discussion)
        comment = container.lenient(GitHubEvent.Page.self, .comment)
        review = container.lenient(GitHubEvent.Page.self, .review)
        pages = container.lenient([GitHubEvent.Page].self, .pages)
        release = container.lenient(GitHubEvent.Release.self, .release)
        forkee = container.lenient(GitHubEvent.Forkee.self, .forkee)
        member = container.lenient(GitHubEvent.Member.self, .member)
    }
}

extension KeyedDecodingContainer {
    /// The value at `key`; nil when it is missing, null or of another shape.
    func lenient<Value: Decodable>(_ type: Value.Type, _ key: Key) -> Value? {
        (try? decodeIfPresent(type, forKey: key)) ?? nil
    }
}

/// A value decoded if it can be, nil if not, so that one odd element does not spoil a list.
struct Lossy<Value: Decodable & Sendable>: Decodable, Sendable {
    /// The value, nil when it could not be decoded.
    var value: Value?

    public init(from decoder: any Decoder) throws {
        value = try? Value(from: decoder)
    }
}
