import Foundation
import MonitorCore
import MonitorItems
import MonitorText

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
    /// For a digest: a section per feed, in the order the feeds first appear in it; empty otherwise.
    var sections: [NotificationSummary] = []
    /// How many notifications it says: those a digest combines, or those of one feed in a section of it; 1 otherwise.
    var notificationCount = 1

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
        case .digest:
            let combined = notification.notifications ?? []
            var feeds: [(feed: String, type: String, notifications: [FeedNotification])] = []
            for one in combined {
                if let index = feeds.firstIndex(where: { $0.feed == one.feed }) {
                    feeds[index].notifications.append(one)
                } else {
                    feeds.append((one.feed, one.type, [one]))
                }
            }
            sections = feeds.map { Self(section: $0.notifications, feed: $0.feed, type: $0.type) }
            notificationCount = combined.count
            let count = combined.count == 1 ? "1 notification" : "\(combined.count) notifications"
            eventText = count + (feeds.count == 1 ? " from 1 feed" : " from \(feeds.count) feeds")
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

    /// The section of a digest on `feed`: what happened to it in order (its `new` notifications as one count, where
    /// the first was), the error of its last notification when that is a failure or staleness, and the newest items
    /// of all its `new` notifications.
    private init(section notifications: [FeedNotification], feed: String, type: String) {
        var parts: [String] = []
        var newTotal = 0
        var newIndex: Int?
        var items: [Item] = []
        for notification in notifications {
            if notification.event == .new {
                newTotal += max(notification.total, notification.items.count)
                items += notification.items
                if newIndex == nil {
                    newIndex = parts.count
                    parts.append("")
                }
            } else {
                parts.append(Self(notification).eventText)
            }
        }
        if let newIndex { parts[newIndex] = newTotal == 1 ? "1 new event" : "\(newTotal) new events" }
        let last = notifications.last
        var summary = Self(
            FeedNotification(
                id: "", notifier: "", feed: feed, type: type, event: notifications.first?.event ?? .new,
                at: last?.at ?? Date(timeIntervalSince1970: 0), total: newTotal, items: items,
                error: last?.event == .failed || last?.event == .stale ? last?.error : nil))
        summary.eventText = parts.joined(separator: ", ")
        summary.notificationCount = notifications.count
        self = summary
    }

    /// The first line: `feed (type): 3 new events`; for a digest, `digest: 7 notifications from 3 feeds`.
    var headline: String { event == .digest ? "digest: \(eventText)" : "\(feed) (\(type)): \(eventText)" }

    /// `text` without control characters, its runs of spaces made one, and cut to `limit` characters with "…".
    static func clean(_ text: String, limit: Int) -> String {
        let words = TerminalText.sanitized(text).split(separator: " ", omittingEmptySubsequences: true)
        let text = words.joined(separator: " ")
        return text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }
}

extension NotificationSummary {
    /// `feed (type): what happened: error`, the texts from the feed escaped by `escaped` for a format's markup and the
    /// feed's name between two `bold`s.
    func head(bold: String = "", escaped: (String) -> String = { $0 }) -> String {
        "\(bold)\(escaped(feed))\(bold) (\(escaped(type))): \(eventText)" + (error.map { ": " + escaped($0) } ?? "")
    }

    /// The text of a message within `limit`, as `length` counts it. One notification is `single` (by default, its
    /// `head`) and its entries. A digest is `digestHead`, then each feed's section after a blank line (its `head` and
    /// entries; a section that does not fit ends the digest), then how many feeds and notifications were left out.
    func text(
        limit: Int, length: (String) -> Int, digestHead: [String], single: [String]? = nil,
        head: (NotificationSummary) -> String, entry: (Entry) -> [String]
    ) -> String {
        guard event == .digest else {
            return compose(head: single ?? [head(self)], limit: limit, length: length, entry: entry)
        }
        var text = digestHead.joined(separator: "\n")
        var shown = 0
        for section in sections {
            let reserve = shown + 1 == sections.count ? 0 : length("\n\n" + Self.leftOut(sections[shown...]))
            let budget = limit - length(text + "\n\n") - reserve
            let sectionHead = head(section)
            // Not even the section's head with "and N more" fits.
            guard length(sectionHead + (section.total > 0 ? "\nand \(section.total) more" : "")) <= budget else {
                break
            }
            text += "\n\n" + section.compose(head: [sectionHead], limit: budget, length: length, entry: entry)
            shown += 1
        }
        if shown < sections.count { text += "\n\n" + Self.leftOut(sections[shown...]) }
        // Without a head (ntfy's), the text starts with its first section; the budgets above counted the blank line.
        return digestHead.isEmpty ? String(text.trimmingPrefix("\n\n")) : text
    }

    /// The lines of a message: `head`, then one `entry` per item as long as the text stays within `limit` (as
    /// `length` counts it, with room kept for the last line), then "and N more" for the items not shown. The text
    /// is cut with "…" if `head` alone is too long.
    private func compose(
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
        let remaining = max(0, total - shown)
        if remaining > 0 { lines.append("and \(remaining) more") }
        var text = lines.joined(separator: "\n")
        guard length(text) > limit else { return text }
        let ellipsis = length("…")
        while !text.isEmpty, length(text) + ellipsis > limit {
            text.removeLast(min(text.count, max(1, (length(text) + ellipsis - limit) / 4)))
        }
        return text + "…"
    }

    /// `and 2 more feeds left out (5 notifications)`: the sections `rest` not shown.
    static func leftOut(_ rest: ArraySlice<NotificationSummary>) -> String {
        let count = rest.reduce(0) { $0 + $1.notificationCount }
        let notifications = "\(count) notification\(count == 1 ? "" : "s")"
        return "and \(rest.count) more feed\(rest.count == 1 ? "" : "s") left out (\(notifications))"
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
