import Foundation
import MonitorCore

/// What the chat and text formats say about a notification, its texts cleaned of control characters and cut to
/// length, before each format escapes them for its target.
struct NotificationSummary: Sendable, Equatable {
    /// One item of the summary.
    struct Entry: Sendable, Equatable {
        /// The title, at most `maximumTitle` characters; "(no title)" for none.
        var title: String
        /// The link, when the item has one.
        var url: String?
    }

    /// How many titles a summary shows.
    static let maximumEntries = 5
    /// The longest title shown, in characters, before an ellipsis.
    static let maximumTitle = 200
    /// The longest error shown, in characters, before an ellipsis.
    static let maximumError = 500
    /// The longest link shown, in UTF-8 bytes: a longer one is left out.
    static let maximumURL = 1_000

    var event: FeedNotification.Event
    var feed: String
    var type: String
    /// What happened, in words: "3 new events", "started failing", "recovered", "went stale", "older events may be
    /// missing".
    var eventText: String
    /// The feed's error, for `failed` and `stale`; for `gap`, what may be missing.
    var error: String?
    /// The newest items, at most `maximumEntries`.
    var entries: [Entry]
    /// How many items there were in all (at least `entries.count`).
    var total: Int

    init(_ notification: FeedNotification) {
        event = notification.event
        feed = Self.clean(notification.feed, limit: Self.maximumTitle)
        type = Self.clean(notification.type, limit: Self.maximumTitle)
        switch notification.event {
        case .new:
            eventText = notification.total == 1 ? "1 new event" : "\(notification.total) new events"
        case .failed:
            eventText = "started failing"
        case .recovered:
            eventText = "recovered"
        case .stale:
            eventText = "went stale"
        case .gap:
            eventText = "older events may be missing"
        }
        // A gap's span follows its event text (the json body's `error` says both).
        let error = notification.gap.map(\.description) ?? notification.error
        self.error = error.map { Self.clean($0, limit: Self.maximumError) }.flatMap { $0.isEmpty ? nil : $0 }
        entries = notification.items.prefix(Self.maximumEntries).map { item in
            let url = item.url.map { TerminalText.sanitized($0).trimmingCharacters(in: .whitespaces) }
            return Entry(
                title: Self.clean(item.title, limit: Self.maximumTitle).nonEmpty ?? "(no title)",
                url: url.flatMap { $0.isEmpty || $0.utf8.count > Self.maximumURL ? nil : $0 })
        }
        total = max(notification.total, notification.items.count)
    }

    /// The first line: `feed (type): 3 new events`.
    var headline: String { "\(feed) (\(type)): \(eventText)" }

    /// How many items are not among the first `shown`: the N of "and N more".
    func remaining(afterShowing shown: Int) -> Int { max(0, total - shown) }

    /// `text` without control characters, its runs of spaces made one, and cut to `limit` characters with "…".
    static func clean(_ text: String, limit: Int) -> String {
        let words = TerminalText.sanitized(text).split(separator: " ", omittingEmptySubsequences: true)
        return truncated(words.joined(separator: " "), to: limit)
    }

    /// `text` cut to `limit` characters, the last of them "…" when it was longer.
    static func truncated(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }
}

extension NotificationSummary {
    /// The lines of a message: `head`, then one `entry` per item as long as the text stays within `limit` (as
    /// `length` counts it, with room kept for the last line), then "and N more" for the items not shown. The text
    /// is cut with "…" if `head` alone is too long.
    func compose(
        head: [String], limit: Int, length: (String) -> Int, entry: (Entry) -> [String]
    ) -> String {
        var lines = head
        var used = head.isEmpty ? -1 : length(head.joined(separator: "\n"))
        let reserve = length("\nand \(total) more")
        var shown = 0
        for item in entries {
            let more = entry(item)
            let added = more.reduce(0) { $0 + 1 + length($1) }
            guard used + added + reserve <= limit else { break }
            lines += more
            used += added
            shown += 1
        }
        let remaining = remaining(afterShowing: shown)
        if remaining > 0 { lines.append("and \(remaining) more") }
        var text = lines.joined(separator: "\n")
        guard length(text) > limit else { return text }
        let ellipsis = length("…")
        while !text.isEmpty, length(text) + ellipsis > limit {
            text.removeLast(min(text.count, max(1, (length(text) + ellipsis - limit) / 4)))
        }
        return text + "…"
    }

    /// `url` when it is an http(s) link, for the chat formats that make it clickable.
    static func webLink(_ url: String?) -> String? {
        guard let url, !url.contains(" ") else { return nil }
        let lower = url.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://") ? url : nil
    }
}

extension String {
    /// The string, or nil when it is empty.
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }

    /// The string with each character that `escapes` names replaced by its escape, for a format's markup.
    func escaped(by escapes: [Character: String]) -> String {
        var output = ""
        output.reserveCapacity(utf8.count)
        for character in self {
            if let escape = escapes[character] { output += escape } else { output.append(character) }
        }
        return output
    }
}
