import Foundation

/// The instance holding a feed's lease on a shared schedule (``FeedLeasing``), as an instance sees it.
package struct FeedHolder: Sendable, Hashable {
    /// The holder's owner id (`hostname:pid:random`), as stored: text from the database, to be shown cleaned.
    package var owner: String
    /// Until when its lease holds, unless renewed.
    package var until: Date
    /// Whether the holder is the instance that sees it (polling the feed under its lease).
    package var isThisInstance: Bool
}
