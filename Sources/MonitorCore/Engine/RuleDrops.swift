import MonitorItems
import MonitorText
import Synchronization

/// The ids of the items a feed's rule dropped, the latest ``limit`` kept in the state (a value of the feed, one id a
/// line), so that an item a loosened rule lets through later is not new: what is new is what the source had not
/// reported before, not what the rule let through for the first time. One per poll.
final class RuleDrops: Sendable {
    /// The feed's value that keeps them.
    static let key = "monitor.rule.dropped"
    /// The most kept, the latest dropped: enough for the items a source reports in a poll, cheap to rewrite.
    static let limit = 5_000

    /// The stored value, and the ids dropped in this poll.
    private let state = Mutex<(remembered: String, dropped: [String])>(("", []))

    /// Takes the ids dropped by earlier polls from the feed's stored `values`, and returns them: the poll counts them
    /// as known.
    func remember(_ values: [String: String]) -> [String] {
        let text = values[Self.key] ?? ""
        state.withLock { $0.remembered = text }
        return text.split(separator: "\n").map(String.init)
    }

    /// The items of `items` that `matches` keeps; the ids of the others are recorded as dropped in this poll.
    func kept(_ items: [Item], _ matches: (Item) -> Bool) -> [Item] {
        var kept: [Item] = []
        var dropped: [String] = []
        for item in items {
            if matches(item) { kept.append(item) } else { dropped.append(TerminalText.sanitized(item.id)) }
        }
        state.withLock { $0.dropped += dropped }
        return kept
    }

    /// The value to write with the poll whose items are `stored`, nil when it stays as it is (`.some(nil)` removes
    /// it): the ids dropped, latest last, without those stored now.
    func change(stored: Set<String>) -> String?? {
        let (remembered, dropped) = state.withLock { $0 }
        var seen = stored
        var kept: [String] = []
        for id in (remembered.split(separator: "\n").map(String.init) + dropped).reversed()
        where kept.count < Self.limit {
            if seen.insert(id).inserted { kept.append(id) }
        }
        let text = kept.reversed().joined(separator: "\n")
        return text == remembered ? nil : .some(text.isEmpty ? nil : text)
    }
}
