import Foundation
import MonitorItems
import MonitorJSON

/// The outcome of one poll of one feed: what `run --once` prints, as text or as a JSON line.
package struct PollReport: Sendable {
    /// How a poll ended.
    package enum Status: String, Sendable, Hashable {
        /// Every request succeeded.
        case ok
        /// Every request was answered 304: nothing changed.
        case notModified = "not_modified"
        /// Some sub-requests failed; the rest were counted.
        case partial
        /// The poll failed; nothing of it was stored.
        case failed
    }

    package struct GroupCount: Sendable, Hashable {
        /// Where a group stands while its feed polls: its response pending, in, or failed.
        package enum GroupPhase: String, Sendable, Hashable, Codable { case pending, done, failed }

        package var id: String
        package var title: String
        /// How many of the feed's items are in it.
        package var count: Int
        package var new: Int
        /// How many of those have each value of the source's `breakdown` detail (items without it are left out);
        /// empty when the source names none.
        package var breakdown: [String: Int] = [:]
        /// Whether its count is known yet (while polling), or its request failed.
        package var phase: GroupPhase = .done
    }

    /// How many of the newest items ``latest`` holds.
    static let latestCount = 10

    package var feed: String
    /// Its source type.
    package var type: String
    package var status: Status
    /// What failed and why; nil when nothing did.
    package var error: String?
    /// Requests sent, retries included.
    var requests = 0
    /// Requests answered 304.
    var notModified = 0
    /// Response body bytes received.
    var bytes = 0
    /// How many items the feed has after the poll, each counted once.
    package var items = 0
    /// How many of them are new.
    package var new = 0
    /// Every group with its counts (a group without items shows with 0).
    package var groups: [GroupCount] = []
    /// The newest items, newest first.
    package var latest: [Item] = []
    /// The ids of the new items among `latest` and beyond.
    package var newIDs: Set<String> = []
    package var started: Date
    package var duration: Duration = .zero
    /// The server's rate limit as last reported.
    package var rateLimit: RateLimit?
    /// Before this time the feed is not polled again.
    package var notBefore: Date?
    /// Why the server holds the feed back until `notBefore`, in a few words (`rate limit exhausted`).
    package var holdReason: String?
    /// The shortest interval the server allows between polls (`X-Poll-Interval`).
    var minimumInterval: Duration?
    /// How many polls in a row have failed, this one included (0 when it did not fail).
    package var failures: Int = 0
    /// Every new item of the poll, newest first.
    package var newItems: [Item] = []
    /// Whether this was the feed's first poll that stored anything (every item is then new).
    package var isFirstSync = false
    /// Why the state could not be reached, when that is why the poll failed: the state's failure, not the feed's.
    package var unreachableState: StateError?
    /// The events the poll may have missed (the poll is not failed for it); nil when none.
    package var gap: PollGap?
    /// What the source noted that is neither a failure nor a gap (``Findings/note(_:)``).
    package var notes: [String] = []
    /// When the feed last had a new item, as its record says after this poll (what a `stale` notification counts
    /// from); nil when it never had one.
    package var lastNew: Date? = nil
    /// Whether the feed's poll before this one failed, as its record says (a run's first poll included): a poll that
    /// does not fail after it is a recovery.
    package var failedBefore = false

    /// Whether the poll counts as a failure for the exit code.
    package var isFailure: Bool { status == .failed || status == .partial }

    /// The report as the JSON object of `run --once --format json` (schema 1).
    package var json: JSONValue {
        let groups = groups.map { group in
            var fields: [(key: String, value: JSONValue)] = [
                ("id", .string(group.id)), ("title", .string(group.title)), ("count", .integer(group.count)),
                ("new", .integer(group.new)),
            ]
            if !group.breakdown.isEmpty {
                let breakdown = group.breakdown.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.integer($0.value)) }
                fields.append(("breakdown", .object(breakdown)))
            }
            return JSONValue.object(fields)
        }
        var object: [(key: String, value: JSONValue)] = [
            ("schema", 1), ("feed", .string(feed)), ("type", .string(type)), ("status", .string(status.rawValue)),
            ("error", .optional(error)), ("requests", .integer(requests)), ("notModified", .integer(notModified)),
            ("items", .integer(items)), ("new", .integer(new)),
            ("groups", .array(groups)), ("latest", .array(latest.map { $0.json(isNew: newIDs.contains($0.id)) })),
            ("bytes", .integer(bytes)), ("started", .date(started)),
            ("durationMs", .integer(Int(duration.milliseconds))),
            ("gap", gap?.json ?? .null),
        ]
        if let rateLimit {
            var limit: [(key: String, value: JSONValue)] = []
            if let value = rateLimit.limit { limit.append(("limit", .integer(value))) }
            if let value = rateLimit.remaining { limit.append(("remaining", .integer(value))) }
            if let value = rateLimit.reset { limit.append(("reset", .date(value))) }
            if let value = rateLimit.resource { limit.append(("resource", .string(value))) }
            object.append(("rateLimit", .object(limit)))
        }
        if let notBefore { object.append(("notBefore", .date(notBefore))) }
        if !notes.isEmpty { object.append(("notes", .array(notes.map { .string($0) }))) }
        return .object(object)
    }
}

extension Item {
    /// The item as JSON: `{"id","title","date","groups","url","details":{…}}`, then those of `"lat"`, `"lon"`,
    /// `"magnitude_value"` and `"magnitude_unit"` it has (``numbersJSON``), plus `"new"` when given.
    package func json(isNew: Bool? = nil) -> JSONValue {
        var object: [(key: String, value: JSONValue)] = [
            ("id", .string(id)), ("title", .string(title)), ("date", .date(date)),
            ("groups", .array(groups.map { .string($0) })), ("url", .optional(url)),
            ("details", .object(details.map { ($0.name, .string($0.value)) })),
        ]
        object += numbersJSON
        if let isNew { object.append(("new", .bool(isNew))) }
        return .object(object)
    }
}
