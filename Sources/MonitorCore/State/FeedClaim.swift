/// What a claim of a feed found, in one round trip to the state: the feed's row in the shared schedule as the claim
/// left it, and the lease when it was claimed.
package struct FeedClaim: Sendable, Hashable {
    /// The feed's row: when it was claimed, its due time is the poll's (the claim does not change it).
    var slot: FeedSlot
    /// The lease, when the feed was claimed; nil when it was not due, held back or leased by another instance.
    var lease: FeedLease?

    package init(slot: FeedSlot, lease: FeedLease? = nil) {
        self.slot = slot
        self.lease = lease
    }
}
