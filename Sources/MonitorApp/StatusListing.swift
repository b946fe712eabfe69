import Foundation
import MonitorCore
import MonitorJSON
import MonitorText

/// The listing of `monitor status`, as pure functions.
package enum StatusListing {
    /// A table of feeds: name, type, status, last poll, items, then the last error of each that has one, when and
    /// why a server holds each held-back feed back, and on a shared schedule (`slots`, by feed) which instance holds
    /// each leased feed and until when.
    package static func text(_ records: [FeedRecord], now: Date, slots: [String: FeedSlot] = [:]) -> String {
        guard !records.isEmpty else { return "no feeds\n" }
        let rows = records.map { record in
            [
                record.name, record.type,
                record.status.map { String($0.map { $0 == "_" ? " " : $0 }) } ?? "never polled",
                record.lastPoll.map { ago($0, now: now) } ?? "-", "\(record.itemCount)",
            ]
        }
        var output = SummaryText.table(
            header: ["feed", "type", "status", "last poll", "items"], rows: rows, rightAligned: [4])
        for record in records {
            if let error = record.lastError {
                let streak = record.failures > 1 ? " (\(record.failures) failures in a row)" : ""
                output += "\(record.name): \(TerminalText.sanitized(error))\(streak)\n"
            }
        }
        for record in records {
            if let line = holdLine(record, now: now) { output += "\(record.name): \(line)\n" }
        }
        for record in records {
            if let line = slots[record.name].flatMap({ leaseLine($0, now: now) }) {
                output += "\(record.name): \(line)\n"
            }
        }
        return output
    }

    /// `leased by OWNER until 05:12:00 UTC` while an instance holds the feed on a shared schedule (the owner id
    /// cleaned of control characters); nil otherwise.
    package static func leaseLine(_ slot: FeedSlot, now: Date) -> String? {
        guard let owner = slot.holder(at: now), let until = slot.expires else { return nil }
        return "leased by \(TerminalText.sanitized(owner)) until \(time(until, now: now))"
    }

    /// `05:12:00 UTC`, with the day before it when that is not `now`'s.
    package static func time(_ date: Date, now: Date) -> String {
        let full = UTCTime.full(date)
        return full.prefix(10) == UTCTime.full(now).prefix(10) ? String(full.dropFirst(11)) : full
    }

    /// `held back until 05:12:00 UTC (rate limit exhausted)` while a server holds the feed back; nil otherwise.
    package static func holdLine(_ record: FeedRecord, now: Date) -> String? {
        guard let until = record.notBefore, until > now else { return nil }
        // The day is left out when it is today's (a hold lasts an hour at most).
        let time = time(until, now: now)
        let reason = record.holdReason.map { " (\(TerminalText.sanitized($0)))" } ?? ""
        return "held back until \(time)\(reason)"
    }

    /// `state unreachable: ERROR`, or `state unreachable since 12:00:05: ERROR` with `since`: the one line that says
    /// the state cannot be reached (its error names it, a database by its URL without the password), rather than a
    /// failure of each feed.
    package static func unreachableLine(_ error: StateError, since: String? = nil) -> String {
        "state unreachable\(since.map { " since \($0)" } ?? ""): \(TerminalText.sanitized(error.message))"
    }

    /// The state's reachability as JSON: `{"state": "unreachable", "error": …}`, or `{"state": "reachable"}` when
    /// `error` is nil.
    package static func json(state error: StateError?) -> JSONValue {
        guard let error else { return .object([("state", .string("reachable"))]) }
        return .object([("state", .string("unreachable")), ("error", .string(error.message))])
    }

    package static func json(_ record: FeedRecord) -> JSONValue {
        .object([
            ("feed", .string(record.name)), ("type", .string(record.type)), ("status", .optional(record.status)),
            ("lastPoll", record.lastPoll.map(JSONValue.date) ?? .null),
            ("lastSuccess", record.lastSuccess.map(JSONValue.date) ?? .null), ("error", .optional(record.lastError)),
            ("failures", .integer(record.failures)), ("items", .integer(record.itemCount)),
            ("notBefore", record.notBefore.map(JSONValue.date) ?? .null),
            ("holdReason", record.notBefore == nil ? .null : .optional(record.holdReason)),
        ])
    }

    /// A table of notifiers (none: nothing): name, type, where it delivers, pending, refused, dropped (its bounds
    /// exceeded), last delivery; then, for each with a digest, what it collected and when its next digest is due
    /// (`chat: digest every 1h: 3 notifications collected, next digest due at 2026-11-27 15:00:00 UTC`); then the
    /// last error of each whose last attempt failed.
    package static func text(_ notifiers: [NotifierLine], now: Date) -> String {
        guard !notifiers.isEmpty else { return "" }
        let rows = notifiers.map { line in
            [
                line.status.name, line.type ?? "(not configured)", line.target ?? "-", "\(line.status.pending)",
                "\(line.status.refused)", "\(line.status.dropped)",
                line.status.lastDelivered.map { ago($0, now: now) } ?? "-",
            ]
        }
        var output =
            "\n"
            + SummaryText.table(
                header: ["notifier", "type", "target", "pending", "refused", "dropped", "last delivered"], rows: rows,
                rightAligned: [3, 4, 5])
        for line in notifiers {
            guard let digest = line.digest else { continue }
            let pending = line.status.pending
            let collected =
                pending == 0
                ? "nothing collected" : "\(pending) notification\(pending == 1 ? "" : "s") collected"
            let due = line.nextDigest.map { ", next digest due at \(UTCTime.full($0))" } ?? ""
            output += "\(line.status.name): digest every \(DurationFormat.string(digest)): \(collected)\(due)\n"
        }
        for line in notifiers {
            guard let error = line.status.lastError, let at = line.status.lastErrorAt,
                at >= (line.status.lastDelivered ?? .distantPast)
            else { continue }
            output += "\(line.status.name): \(TerminalText.sanitized(error)) (\(ago(at, now: now)))\n"
        }
        return output
    }

    /// A record on a shared schedule as JSON: ``json(_:)`` with `lease`, the instance holding the feed and until
    /// when (`{"owner": …, "until": …}`, the owner id cleaned of control characters), null when none does at `now`.
    package static func json(_ record: FeedRecord, slot: FeedSlot?, now: Date) -> JSONValue {
        guard case .object(var pairs) = json(record) else { return json(record) }
        var lease = JSONValue.null
        if let slot, let owner = slot.holder(at: now), let until = slot.expires {
            lease = .object([("owner", .string(TerminalText.sanitized(owner))), ("until", .date(until))])
        }
        pairs.append(("lease", lease))
        return .object(pairs)
    }

    /// A notifier as JSON: `notifier`, `type`, `target`, `pending`, `refused`, `dropped`, `lastDelivered`, `error`,
    /// `errorAt`, `digest` (`{"every": "1h", "collected": 3, "due": …}`, `due` null when it collected nothing; null
    /// for a notifier without `digest:`).
    package static func json(_ line: NotifierLine) -> JSONValue {
        .object([
            ("notifier", .string(line.status.name)), ("type", .optional(line.type)), ("target", .optional(line.target)),
            ("pending", .integer(line.status.pending)), ("refused", .integer(line.status.refused)),
            ("dropped", .integer(line.status.dropped)),
            ("lastDelivered", line.status.lastDelivered.map(JSONValue.date) ?? .null),
            ("error", .optional(line.status.lastError)),
            ("errorAt", line.status.lastErrorAt.map(JSONValue.date) ?? .null),
            (
                "digest",
                line.digest.map { digest in
                    .object([
                        ("every", .string(DurationFormat.string(digest))), ("collected", .integer(line.status.pending)),
                        ("due", line.nextDigest.map(JSONValue.date) ?? .null),
                    ])
                } ?? .null
            ),
        ])
    }

    /// `just now`, `5m ago`, `3h ago`, `2d ago`.
    package static func ago(_ date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(seconds / 60)m ago"
        case ..<86_400: return "\(seconds / 3600)h ago"
        default: return "\(seconds / 86_400)d ago"
        }
    }
}
