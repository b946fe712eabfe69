import Foundation

/// One instance's claim on a feed for a while: it alone polls the feed until `expires`, and its results are stored
/// only while `term` is still the feed's term (a later claim, by another instance once this one expired, raises it).
package struct FeedLease: Sendable, Hashable {
    package var feed: String
    /// The instance holding it.
    package var owner: String
    /// The fencing term: one more than the feed's previous claim's.
    package var term: Int64
    /// Until when it holds, unless renewed.
    package var expires: Date

    package init(feed: String, owner: String, term: Int64, expires: Date) {
        self.feed = feed
        self.owner = owner
        self.term = term
        self.expires = expires
    }

    /// This instance, as the holder of the lease.
    var holder: FeedHolder { FeedHolder(owner: owner, until: expires, isThisInstance: true) }
}
