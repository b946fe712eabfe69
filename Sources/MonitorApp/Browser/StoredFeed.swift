import Foundation
import MonitorCore
import MonitorItems

/// A feed's stored items and groups, as the full-screen view browses them, with the counts and lists of a
/// days window computed from them.
package struct StoredFeed: Sendable, Equatable {
    /// A group of the feed with its counts in the window.
    package struct GroupRow: Sendable {
        package var id: String
        package var title: String
        /// Its items in the window.
        package var count: Int
        /// Those items per value of the source's breakdown detail (EONET: open, closed), sorted by value.
        package var breakdown: [(value: String, count: Int)]
    }

    package var feed: String
    /// Its groups as last stored, in catalog order.
    package var catalog: [ItemGroup]
    /// Its stored items.
    package var items: [Item]
    /// The detail counted per group (EONET: `status`), if any.
    package var breakdownDetail: String?

    /// The items dated within `days` days before `now` (all when nil).
    package func items(within days: Int?, now: Date) -> [Item] {
        guard let days else { return items }
        let since = now.addingTimeInterval(-Double(days) * 86_400)
        return items.filter { $0.date >= since }
    }

    /// Every group (the catalog's, then those met only in items) with its counts within the window.
    package func groups(within days: Int?, now: Date) -> [GroupRow] {
        let window = items(within: days, now: now)
        var counts: [String: Int] = [:]
        var breakdowns: [String: [String: Int]] = [:]
        for item in window {
            for group in Set(item.groups) {
                counts[group, default: 0] += 1
                if let breakdownDetail, let value = item.detail(breakdownDetail) {
                    breakdowns[group, default: [:]][value, default: 0] += 1
                }
            }
        }
        var seen: Set<String> = []
        var rows: [GroupRow] = []
        let others = Set(items.flatMap(\.groups)).sorted().map { ItemGroup(id: $0, title: $0) }
        for group in catalog + others where seen.insert(group.id).inserted {
            let breakdown = (breakdowns[group.id] ?? [:]).sorted { $0.key < $1.key }.map {
                (value: $0.key, count: $0.value)
            }
            rows.append(GroupRow(id: group.id, title: group.title, count: counts[group.id] ?? 0, breakdown: breakdown))
        }
        return rows
    }

    /// The items of `group` within the window, newest first.
    package func items(of group: String, within days: Int?, now: Date) -> [Item] {
        items(within: days, now: now).filter { $0.groups.contains(group) }.sorted {
            ($0.date, $0.id) > ($1.date, $1.id)
        }
    }
}
