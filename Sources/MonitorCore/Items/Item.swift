import Foundation

/// One thing a feed reports: a GitHub event, an EONET natural event.
public struct Item: Sendable, Hashable, Codable {
    /// Unique within its feed.
    public var id: String
    /// A readable title or sentence.
    public var title: String
    /// When it happened (for EONET: its newest activity).
    public var date: Date
    /// The groups it belongs to: EONET categories, GitHub event types.
    public var groups: [String]
    /// Its web page, when it has one.
    public var url: String?
    /// Plugin-specific details, in the order the plugin gives them.
    public var details: [Detail]

    /// An item.
    public init(id: String, title: String, date: Date, groups: [String], url: String? = nil, details: [Detail] = []) {
        self.id = id
        self.title = title
        self.date = date
        self.groups = groups
        self.url = url
        self.details = details
    }

    /// The value of the detail named `name`.
    public func detail(_ name: String) -> String? {
        details.first { $0.name == name }?.value
    }
}

/// A named, plugin-specific fact about an item ("status": "open", "magnitude": "35 kts").
public struct Detail: Sendable, Hashable, Codable {
    /// The name, a lower-case word.
    public var name: String
    /// The value, as text.
    public var value: String

    /// A detail.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A group a feed knows up front, such as an EONET category.
public struct ItemGroup: Sendable, Hashable, Codable {
    /// The identifier items name in their `groups`.
    public var id: String
    /// The title shown for it.
    public var title: String

    /// A group.
    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}
