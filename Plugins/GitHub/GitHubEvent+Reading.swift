import Foundation
import MonitorCore
import MonitorJSON

extension GitHubEvent {
    /// The events of a page, each nil that cannot be read (it still counts as seen). Throws when the body is
    /// not a JSON array.
    ///
    /// Read from the bytes with `JSONReader`, with the leniency of `JSONDecoder` and lenient `Decodable`
    /// conformances (which the tests check it against): snake_case keys, every field but `id`, `type` and
    /// `created_at` optional, a field of an unexpected shape dropped (and with it the object it is in, for the
    /// nested objects), an element that is not an event nil.
    static func page(_ body: [UInt8]) throws -> [GitHubEvent?] {
        var reader = JSONReader(body)
        do throws(JSONError) {
            var events: [GitHubEvent?] = []
            try reader.elements { (reader) throws(JSONError) in events.append(try event(&reader)) }
            try reader.end()
            return events
        } catch {
            throw SourceError("the events response is not a JSON list of events")
        }
    }

    /// The event that comes next; nil (the value skipped) when it is not an object with an id, a type and a
    /// valid `created_at`.
    static func event(_ reader: inout JSONReader) throws(JSONError) -> GitHubEvent? {
        guard try reader.kind() == .object else {
            try reader.skip()
            return nil
        }
        var id: String?
        var type: String?
        var created: String?
        var actor: Actor?
        var repo: Repository?
        var payload: Payload?
        try reader.members { (key, reader) throws(JSONError) in
            let name = JSONSnakeKey(key, in: reader)
            if name.is("id") {
                switch try reader.kind() {
                case .string: id = reader.lenient(try reader.stringText())
                case .number: id = try reader.integer().map { String($0) }
                default: id = nil
                }
            } else if name.is("type") {
                type = try reader.lenientString()
            } else if name.is("created_at") {
                created = try reader.lenientString()
            } else if name.is("actor") {
                actor = try Actor.read(&reader)
            } else if name.is("repo") {
                repo = try Repository.read(&reader)
            } else if name.is("payload") {
                payload = try Payload.read(&reader)
            }
        }
        guard let id, let type, !type.isEmpty, let created, let date = ISO8601.date(created) else { return nil }
        return GitHubEvent(id: id, type: type, actor: actor, repo: repo, payload: payload ?? Payload(), date: date)
    }
}

// MARK: - The nested objects

extension GitHubEvent.Payload {
    /// The payload that comes next; nil when it is not an object. Each field of an unexpected shape is nil.
    static func read(_ reader: inout JSONReader) throws(JSONError) -> Self? {
        guard try reader.kind() == .object else {
            try reader.skip()
            return nil
        }
        var payload = Self()
        try reader.members { (key, reader) throws(JSONError) in
            let name = JSONSnakeKey(key, in: reader)
            if name.is("action") {
                payload.action = try reader.lenientString()
            } else if name.is("ref") {
                payload.ref = try reader.lenientString()
            } else if name.is("ref_type") {
                payload.refType = try reader.lenientString()
            } else if name.is("head") {
                payload.head = try reader.lenientString()
            } else if name.is("before") {
                payload.before = try reader.lenientString()
            } else if name.is("number") {
                payload.number = try reader.lenientInt()
            } else if name.is("pull_request") {
                payload.pullRequest = try GitHubEvent.Topic.read(&reader)
            } else if name.is("issue") {
                payload.issue = try GitHubEvent.Topic.read(&reader)
            } else if name.is("discussion") {
                payload.discussion = try GitHubEvent.Topic.read(&reader)
            } else if name.is("comment") {
                payload.comment = try GitHubEvent.Page.read(&reader)
            } else if name.is("review") {
                payload.review = try GitHubEvent.Page.read(&reader)
            } else if name.is("pages") {
                payload.pages = try GitHubEvent.Page.list(&reader)
            } else if name.is("release") {
                payload.release = try GitHubEvent.Release.read(&reader)
            } else if name.is("forkee") {
                payload.forkee = try GitHubEvent.Forkee.read(&reader)
            } else if name.is("member") {
                payload.member = try GitHubEvent.Member.read(&reader)
            }
        }
        return payload
    }
}

extension GitHubEvent.Actor {
    /// The actor that comes next; nil when it is not an object or a field has an unexpected shape.
    static func read(_ reader: inout JSONReader) throws(JSONError) -> Self? {
        var actor = Self()
        let valid = try reader.strictObject { (name, reader, valid) throws(JSONError) in
            if name.is("login") {
                actor.login = try reader.strictString(&valid)
            } else if name.is("display_login") {
                actor.displayLogin = try reader.strictString(&valid)
            }
        }
        return valid ? actor : nil
    }
}

extension GitHubEvent.Repository {
    /// The repository that comes next; nil when it is not an object or a field has an unexpected shape.
    static func read(_ reader: inout JSONReader) throws(JSONError) -> Self? {
        var repository = Self()
        let valid = try reader.strictObject { (name, reader, valid) throws(JSONError) in
            if name.is("name") { repository.name = try reader.strictString(&valid) }
        }
        return valid ? repository : nil
    }
}

extension GitHubEvent.Topic {
    /// The pull request, issue or discussion that comes next; nil when it is not an object or a field has an
    /// unexpected shape.
    static func read(_ reader: inout JSONReader) throws(JSONError) -> Self? {
        var topic = Self()
        let valid = try reader.strictObject { (name, reader, valid) throws(JSONError) in
            if name.is("number") {
                topic.number = try reader.strictInt(&valid)
            } else if name.is("title") {
                topic.title = try reader.strictString(&valid)
            } else if name.is("html_url") {
                topic.htmlUrl = try reader.strictString(&valid)
            } else if name.is("merged") {
                topic.merged = try reader.strictBool(&valid)
            } else if name.is("pull_request") {
                topic.pullRequest = try reader.null() ? nil : GitHubEvent.Presence()
            }
        }
        return valid ? topic : nil
    }
}

extension GitHubEvent.Page {
    /// The page that comes next; nil when it is not an object or its `html_url` is not a string.
    static func read(_ reader: inout JSONReader) throws(JSONError) -> Self? {
        var page = Self()
        let valid = try reader.strictObject { (name, reader, valid) throws(JSONError) in
            if name.is("html_url") { page.htmlUrl = try reader.strictString(&valid) }
        }
        return valid ? page : nil
    }

    /// The list of pages that comes next; nil when it is not a list or one of its elements is not a page.
    static func list(_ reader: inout JSONReader) throws(JSONError) -> [Self]? {
        guard try reader.kind() == .array else {
            try reader.skip()
            return nil
        }
        var pages: [Self]? = []
        try reader.elements { (reader) throws(JSONError) in
            if try reader.kind() == .object, let page = try read(&reader) {
                pages?.append(page)
            } else {
                if try reader.kind() != .object { try reader.skip() }
                pages = nil
            }
        }
        return pages
    }
}

extension GitHubEvent.Release {
    /// The release that comes next; nil when it is not an object or a field has an unexpected shape.
    static func read(_ reader: inout JSONReader) throws(JSONError) -> Self? {
        var release = Self()
        let valid = try reader.strictObject { (name, reader, valid) throws(JSONError) in
            if name.is("tag_name") {
                release.tagName = try reader.strictString(&valid)
            } else if name.is("name") {
                release.name = try reader.strictString(&valid)
            } else if name.is("html_url") {
                release.htmlUrl = try reader.strictString(&valid)
            }
        }
        return valid ? release : nil
    }
}

extension GitHubEvent.Forkee {
    /// The fork that comes next; nil when it is not an object or a field has an unexpected shape.
    static func read(_ reader: inout JSONReader) throws(JSONError) -> Self? {
        var forkee = Self()
        let valid = try reader.strictObject { (name, reader, valid) throws(JSONError) in
            if name.is("full_name") {
                forkee.fullName = try reader.strictString(&valid)
            } else if name.is("html_url") {
                forkee.htmlUrl = try reader.strictString(&valid)
            }
        }
        return valid ? forkee : nil
    }
}

extension GitHubEvent.Member {
    /// The member that comes next; nil when it is not an object or its login is not a string.
    static func read(_ reader: inout JSONReader) throws(JSONError) -> Self? {
        var member = Self()
        let valid = try reader.strictObject { (name, reader, valid) throws(JSONError) in
            if name.is("login") { member.login = try reader.strictString(&valid) }
        }
        return valid ? member : nil
    }
}
