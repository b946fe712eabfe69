import Foundation
import MonitorItems
import MonitorRules

extension Rule {
    /// Whether `item` of a feed of `source` matches at `now`, with the details the source works out for rules
    /// (``FeedSource/ruleDetails(of:)``) after its own.
    package func matches(_ item: Item, now: Date, source: (any FeedSource.Type)?) -> Bool {
        guard let derived = source?.ruleDetails(of: item), !derived.isEmpty else { return matches(item, now: now) }
        var extended = item
        extended.details += derived
        return matches(extended, now: now)
    }
}
