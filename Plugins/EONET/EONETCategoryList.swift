/// What `GET {api}/categories` answers: `{"title","description","link","categories":[…]}`.
struct EONETCategoryList: Decodable, Sendable {
    /// One EONET category: `{"id":"wildfires","title":"Wildfires","link","description","layers"}`.
    struct Category: Codable, Sendable, Hashable {
        /// The camelCase slug events name (`wildfires`, `seaLakeIce`).
        var id: String
        /// The readable title (`Sea and Lake Ice`).
        var title: String

        /// A category.
        init(id: String, title: String) {
            self.id = id
            self.title = title
        }

        private enum CodingKeys: String, CodingKey {
            case id, title
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = EONETText.trimmed(try container.decode(String.self, forKey: .id))
            let title = EONETText.collapsed(try container.decodeIfPresent(String.self, forKey: .title) ?? "")
            self.title = title.isEmpty ? id : title
        }
    }

    /// The categories, in the server's order.
    var categories: [Category]
}
