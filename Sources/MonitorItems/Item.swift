import Foundation

/// One thing a feed reports: a GitHub event, an EONET natural event.
package struct Item: Sendable, Hashable, Codable {
    /// Unique within its feed.
    package var id: String
    /// A readable title or sentence.
    package var title: String
    /// When it happened (for EONET: its newest activity).
    package var date: Date
    /// The groups it belongs to: EONET categories, GitHub event types.
    package var groups: [String]
    /// Its web page, when it has one.
    package var url: String?
    /// Where it is, as numbers its source gives (EONET's newest observation); ``position`` also reads an exec
    /// source's `lat` and `lon` details.
    package var location: Position?
    /// Its latest magnitude, as numbers its source gives (EONET's).
    package var magnitude: Magnitude?
    /// Plugin-specific details, in the order the plugin gives them. Declared last, so that the memberwise init the
    /// compiler makes (`init(id:…:magnitude:details:)`) differs from the one below, which calls it.
    package var details: [Detail]

    /// Items are equal when what they show is: their location and magnitude are the numbers of facts their details
    /// already give in text (EONET's `position` and `magnitude`), so they are not compared.
    package static func == (lhs: Item, rhs: Item) -> Bool {
        lhs.id == rhs.id && lhs.title == rhs.title && lhs.date == rhs.date && lhs.groups == rhs.groups
            && lhs.url == rhs.url && lhs.details == rhs.details
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(title)
        hasher.combine(date)
        hasher.combine(groups)
        hasher.combine(url)
        hasher.combine(details)
    }

    /// `link` when it is an http or https URL of at most 2,048 bytes, the web page an item may name; nil otherwise.
    package static func webLink(_ link: String?) -> String? {
        guard let link, link.utf8.count <= 2048, let scheme = URL(string: link)?.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { return nil }
        return link
    }

    /// The value of the detail named `name`.
    package func detail(_ name: String) -> String? {
        details.first { $0.name == name }?.value
    }

    /// Calls `body` with each of the item's groups once, in their order (an item may list a group twice, and is a
    /// member once); returns how many groups that was. Linear in the groups: a few are compared with those before
    /// them without allocating, more go through a set.
    @discardableResult
    package func eachGroupOnce(_ body: (String) throws -> Void) rethrows -> Int {
        if groups.count <= Self.fewGroups {
            var count = 0
            for (index, group) in groups.enumerated() where !groups[..<index].contains(group) {
                try body(group)
                count += 1
            }
            return count
        }
        var seen = Set<String>(minimumCapacity: groups.count)
        for group in groups where seen.insert(group).inserted { try body(group) }
        return seen.count
    }

    /// The most groups de-duplicated by comparing each with those before it.
    static let fewGroups = 8
}

extension Item {
    /// An item of these values. It hands them to the memberwise init: an init written in the type's body built the
    /// item in memory and copied it out, retaining and releasing each of its texts and lists once more.
    package init(
        id: String, title: String, date: Date, groups: [String], url: String? = nil, details: [Detail] = [],
        location: Position? = nil, magnitude: Magnitude? = nil
    ) {
        self.init(
            id: id, title: title, date: date, groups: groups, url: url, location: location, magnitude: magnitude,
            details: details)
    }
}

/// A named, plugin-specific fact about an item ("status": "open", "magnitude": "35 kts").
package struct Detail: Sendable, Hashable, Codable {
    /// The name, a lower-case word.
    package var name: String
    package var value: String

    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A group a feed knows up front, such as an EONET category.
package struct ItemGroup: Sendable, Hashable, Codable {
    /// The identifier items name in their `groups`.
    package var id: String
    /// The title shown for it.
    package var title: String

    package init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}
