import Foundation

/// An outbox shared by several `monitor run` instances (PostgreSQL): a notification is claimed by one instance,
/// for a short lease, before it delivers it, so that each is delivered by one instance. An outbox without it
/// (SQLite) is delivered by its one instance.
package protocol OutboxClaiming: StateStoring {
    /// Claims notification `id` for `owner` until `now + lease`: true when it is still to deliver and no other
    /// instance's claim holds at `now`; false when another instance holds it (or it was delivered meanwhile).
    /// Recording the attempt (`delivered`, `failed`) releases the claim.
    func claimNotification(_ id: String, owner: String, lease: Duration, now: Date) async throws -> Bool
}
