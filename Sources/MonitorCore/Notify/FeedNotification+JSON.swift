import Foundation
import MonitorItems
import MonitorJSON
import MonitorText

extension FeedNotification {
    /// The json body, schema 1, in this key order:
    /// `{"schema":1,"id","notifier","feed","type","event","at","total","items":[{"id","title","date","url",
    /// "groups","details":{name: value}}],"error"}`, an item's `"details"` followed by those of `"lat"`, `"lon"`,
    /// `"magnitude_value"` and `"magnitude_unit"` it has (``Item/numbersJSON``); and last, for a `gap`,
    /// `"gap":{"since","until"}` (with `"message"` when the source gave one). Dates are ISO 8601 in UTC, `url` and
    /// `error` are null when absent, and every text is without control characters (a line break becomes a space), so
    /// the body is one line of valid JSON whatever the network sent. A `digest` has the same keys, `feed` and `type`
    /// null, `items` empty, `total` the number of notifications it combines, and last one more key, `notifications`:
    /// the own body of each of the newest `maximumItems` combined notifications, in order (`total` minus their number
    /// were left out).
    package func jsonBody() -> [UInt8] {
        Array(json.text.utf8)
    }

    /// The json body as a value.
    var json: JSONValue {
        let clean = { (text: String) in JSONValue.string(TerminalText.sanitized(text)) }
        let isDigest = event == .digest
        var object: [(key: String, value: JSONValue)] = [
            ("schema", 1), ("id", clean(id)), ("notifier", clean(notifier)), ("feed", isDigest ? .null : clean(feed)),
            ("type", isDigest ? .null : clean(type)), ("event", .string(event.rawValue)),
            ("at", .string(ISO8601.fixedString(at))),
            ("total", .integer(total)),
            (
                "items",
                .array(
                    items.prefix(Self.maximumItems).map { item in
                        .object(
                            [
                                ("id", clean(item.id)), ("title", clean(item.title)),
                                ("date", .string(ISO8601.fixedString(item.date))),
                                ("url", item.url.map(clean) ?? .null), ("groups", .array(item.groups.map(clean))),
                                ("details", .object(Self.details(item.details).map { ($0.name, clean($0.value)) })),
                            ] + item.numbersJSON)
                    })
            ),
            ("error", error.map(clean) ?? .null),
        ]
        if let gap { object.append(("gap", gap.json)) }
        if isDigest {
            // At most `maximumItems` bodies, the newest (the last the polls wrote): a digest of a full outbox (1,000
            // pending, 50 items each) would otherwise be megabytes. `total` still counts them all.
            object.append(("notifications", .array((notifications ?? []).suffix(Self.maximumItems).map(\.json))))
        }
        return .object(object)
    }

    /// `details` with clean names, each name once (its first value, as `Item.detail(_:)` reads it).
    private static func details(_ details: [Detail]) -> [Detail] {
        var seen = Set<String>()
        return details.compactMap { detail in
            let name = TerminalText.sanitized(detail.name)
            return seen.insert(name).inserted ? Detail(name, detail.value) : nil
        }
    }
}
