import Foundation
import MonitorJSON
import MonitorText

/// Events a poll may have missed, which is not a failure: the source's answers reached back only to `until` and
/// not to what earlier polls had (`since`), as when more events happened between two polls than an API's
/// window holds; or what an external program said of it, in its own words (`message`).
package struct PollGap: Sendable, Hashable, Codable {
    /// The date of the newest event an earlier poll read (by default, the newest item stored before the poll); nil when
    /// only a message tells of the gap.
    var since: Date?
    /// The date of the oldest event the poll read; nil when only a message tells of the gap.
    var until: Date?
    /// What the source said, without control characters; nil for a window.
    var message: String?

    /// What follows `older events may be missing: `: the span and its length, then the message, such as
    /// `2026-11-21T04:10:00Z to 2026-11-22T05:00:00Z (1d50m)`.
    package var description: String {
        var parts: [String] = []
        if let since, let until {
            let length = Duration.seconds(Int64(max(0, until.timeIntervalSince(since)).rounded(.down)))
            parts.append(
                "\(ISO8601.fixedString(since)) to \(ISO8601.fixedString(until)) (\(DurationFormat.string(length)))")
        }
        if let message { parts.append(message) }
        return parts.joined(separator: "; ")
    }

    /// `older events may be missing: …`.
    package var text: String { "older events may be missing: \(description)" }

    /// `{"since": …, "until": …}`, dates or null, with `"message"` when the source gave one.
    var json: JSONValue {
        var object: [(key: String, value: JSONValue)] = [
            ("since", since.map { .date($0) } ?? .null), ("until", until.map { .date($0) } ?? .null),
        ]
        if let message { object.append(("message", .string(message))) }
        return .object(object)
    }

    /// This gap and `other` as one: the widest span, the messages joined.
    func merged(with other: PollGap) -> PollGap {
        let messages = [message, other.message].compactMap { $0 }
        return PollGap(
            since: [since, other.since].compactMap { $0 }.min(), until: [until, other.until].compactMap { $0 }.max(),
            message: messages.isEmpty ? nil : messages.joined(separator: "; "))
    }
}

extension PollGap {
    /// A gap told in words; at most ``TerminalText/maximumMessage`` characters of it are kept, without control
    /// characters.
    init(message: String) {
        self.init(message: TerminalText.capped(message) as String?)
    }
}
