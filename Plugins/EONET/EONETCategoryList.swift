import MonitorJSON

/// What `GET {api}/categories` answers: `{"title","description","link","categories":[…]}`.
struct EONETCategoryList: Sendable {
    /// One EONET category: `{"id":"wildfires","title":"Wildfires","link","description","layers"}`.
    struct Category: Sendable, Hashable {
        /// The camelCase slug events name (`wildfires`, `seaLakeIce`).
        var id: String
        /// The readable title (`Sea and Lake Ice`).
        var title: String
    }

    /// The categories, in the server's order.
    var categories: [Category]
}

// MARK: - Reading

extension EONETCategoryList {
    /// Reads the document's object from the response's bytes (no `Decodable`, whose first use in a process costs
    /// more than the list itself); its other members are checked and skipped.
    init(from reader: inout JSONReader) throws(JSONError) {
        var categories: [Category]?
        try reader.members { (key, reader) throws(JSONError) in
            if reader.key(key, is: "categories") { categories = try Category.list(&reader) }
        }
        guard let categories else { throw .missing("categories") }
        self.categories = categories
    }
}

extension EONETCategoryList.Category {
    /// The most categories kept of a list: EONET has 13, and a server listing more would have a feed of all of them
    /// send as many requests a poll.
    static let maximumCount = 1000

    /// Reads a list of categories (`[{"id","title",…}]`, the form of the response and of the saved list): all are
    /// checked, the first ``maximumCount`` kept.
    static func list(_ reader: inout JSONReader) throws(JSONError) -> [Self] {
        guard try !reader.null() else { throw .mismatch("a list", .null) }
        var categories: [Self] = []
        try reader.elements { (reader) throws(JSONError) in
            let category = try Self(from: &reader)
            if categories.count < maximumCount { categories.append(category) }
        }
        return categories
    }

    /// Reads the category that must come next: its `id` (trimmed) is needed, its `title` (collapsed; the id when
    /// null, missing or empty) is not; its other members are checked and skipped.
    init(from reader: inout JSONReader) throws(JSONError) {
        var id: String?
        var title: String?
        try reader.members { (key, reader) throws(JSONError) in
            if reader.key(key, is: "id") {
                id = try reader.string().trimmingAllWhitespace()
            } else if reader.key(key, is: "title") {
                title = try reader.optionalString()
            }
        }
        guard let id else { throw .missing("id") }
        let collapsed = (title ?? "").collapsingWhitespace()
        self.init(id: id, title: collapsed.isEmpty ? id : collapsed)
    }
}
