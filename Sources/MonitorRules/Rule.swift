import Foundation
import MonitorItems

/// A checked rule (`where:` of a feed or a notifier, `monitor events --where`): which items it keeps.
///
/// The language is in docs/rules.md. A rule is read and checked once; evaluating it visits each part of it once
/// (a regular expression runs in time linear in the text), reads only the item and the time it is given, and can
/// neither run code nor read a file.
package struct Rule: Sendable {
    /// The rule as written.
    let text: String
    let root: RuleNode

    /// The rule `text`, checked against the fields of a feed whose items have the details `details` (nil: any
    /// detail, for a source whose details are not known up front, such as an external program's).
    package init(_ text: String, details: [String]?) throws(RuleError) {
        var parser = RuleParser(tokens: try RuleLexer.tokens(text), details: details)
        self.text = text
        self.root = try parser.parse()
    }

    /// Whether `item` matches at `now` (which `age` is counted from).
    package func matches(_ item: Item, now: Date) -> Bool {
        root.evaluate(item, now: now)
    }

    /// The fields every item has.
    static let itemFields = ["id", "title", "url", "date", "age", "group"]
}

// MARK: - The checked tree

/// How a comparison orders its two sides.
enum RuleOrder: String, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    func holds<Value: Comparable>(_ left: Value, _ right: Value) -> Bool {
        switch self {
        case .equal: left == right
        case .notEqual: left != right
        case .less: left < right
        case .lessOrEqual: left <= right
        case .greater: left > right
        case .greaterOrEqual: left >= right
        }
    }
}

/// A field holding text: one value (`title`), several (`group`), or none (a missing detail or URL).
enum RuleTextField: Sendable {
    case id, title, url, group
    case detail(String)

    /// The most characters of a text a rule reads: a longer one is read as its start (no text of a rule, at most
    /// ``RuleLexer/maximumLength`` characters, can equal it).
    static let maximumLength = 10_000

    /// The field's values in `item`, each at most ``maximumLength`` characters.
    func values(of item: Item) -> [String] {
        let values: [String] =
            switch self {
            case .id: [item.id]
            case .title: [item.title]
            case .url: item.url.map { [$0] } ?? []
            case .group: item.groups
            case .detail(let name): item.detail(name).map { [$0] } ?? []
            }
        // UTF-8 counts at least as many as there are characters, and is known without reading the text.
        return values.map { $0.utf8.count > Self.maximumLength ? String($0.prefix(Self.maximumLength)) : $0 }
    }
}

/// What is asked of a text.
enum RuleTextTest: Sendable {
    /// Equal to one of these (`==`, `in`).
    case equals([String])
    /// Matched by the pattern somewhere (`~`).
    case matches(RulePattern)

    /// Whether `value` passes; nil when the pattern gave up (``RulePattern/matches(_:)``).
    func holds(_ value: String) -> Bool? {
        switch self {
        case .equals(let texts): texts.contains(value)
        case .matches(let pattern): pattern.matches(value)
        }
    }
}

indirect enum RuleNode: Sendable {
    case all([RuleNode])
    case any([RuleNode])
    case not(RuleNode)
    /// A test of a text field; `negated` (`!=`, `!~`) asks that none of its values passes. A field without a value
    /// (a missing detail) makes it false either way.
    case text(RuleTextField, RuleTextTest, negated: Bool)
    /// A detail read as a number compared with `numbers` (one for a comparison; `in` lists several, any equal
    /// passes). A detail that is missing or not a number makes it false.
    case number(String, RuleOrder, [Double])
    case date(RuleOrder, Date)
    case age(RuleOrder, Duration)
    /// Within `kilometres` of a point, along the great circle.
    case near(latitude: Double, longitude: Double, kilometres: Double)
    /// Within a box; `west` > `east` crosses the antimeridian.
    case within(south: Double, west: Double, north: Double, east: Double)

    func evaluate(_ item: Item, now: Date) -> Bool {
        switch self {
        case .all(let parts): return parts.allSatisfy { $0.evaluate(item, now: now) }
        case .any(let parts): return parts.contains { $0.evaluate(item, now: now) }
        case .not(let part): return !part.evaluate(item, now: now)
        case .text(let field, let test, let negated):
            let values = field.values(of: item)
            guard !values.isEmpty else { return false }
            var passed = false
            for value in values where !passed {
                // A match too costly to tell is false either way, as a missing value is.
                guard let holds = test.holds(value) else { return false }
                passed = holds
            }
            return passed != negated
        case .number(let name, let order, let numbers):
            guard let value = item.detail(name).flatMap(Item.number) else { return false }
            return numbers.contains { order.holds(value, $0) }
        case .date(let order, let date):
            return order.holds(item.date, date)
        case .age(let order, let duration):
            return order.holds(now.timeIntervalSince(item.date), duration.seconds)
        case .near(let latitude, let longitude, let kilometres):
            guard let position = Self.position(of: item) else { return false }
            return Self.distance(from: position, to: (latitude, longitude)) <= kilometres
        case .within(let south, let west, let north, let east):
            guard let (latitude, longitude) = Self.position(of: item), south <= latitude, latitude <= north else {
                return false
            }
            return west <= east ? (west <= longitude && longitude <= east) : (longitude >= west || longitude <= east)
        }
    }

    /// The item's position (``Item/position``), in degrees.
    static func position(of item: Item) -> (Double, Double)? {
        item.position.map { ($0.latitude, $0.longitude) }
    }

    /// The mean radius of the Earth, in kilometres (IUGG).
    static let earthRadius = 6371.0088

    /// The great-circle distance between two points in degrees, in kilometres (the haversine formula).
    static func distance(from a: (Double, Double), to b: (Double, Double)) -> Double {
        let radians = Double.pi / 180
        let deltaLatitude = (b.0 - a.0) * radians
        let deltaLongitude = (b.1 - a.1) * radians
        let h =
            sin(deltaLatitude / 2) * sin(deltaLatitude / 2)
            + cos(a.0 * radians) * cos(b.0 * radians) * sin(deltaLongitude / 2) * sin(deltaLongitude / 2)
        return 2 * earthRadius * asin(min(1, h.squareRoot()))
    }
}
