import Foundation

extension StateStore: StateStoring {
    /// The database file's path.
    package var location: String { path }

    /// The items of `feed`, newest first, selected through the indexes.
    package func items(of feed: String, group: String?, since: Date?, limit: Int?) async throws -> [Item] {
        try await items(feed: feed, group: group, since: since, limit: limit)
    }
}
