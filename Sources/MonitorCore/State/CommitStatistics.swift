/// The rows one commit wrote (inserted, updated or deleted), by table: what a poll cost the state.
package struct CommitStatistics: Sendable, Hashable {
    /// Items stored for the first time.
    package var itemsInserted = 0
    /// Stored items whose title, date, groups, URL or details changed.
    package var itemsUpdated = 0
    /// Stored items no longer in the feed's set.
    package var itemsDeleted = 0
    /// Rows of the group membership index inserted or deleted (one per group of each item written or deleted).
    package var memberRows = 0
    /// Rows of the group catalog inserted, updated or deleted.
    package var groupRows = 0
    /// Validator rows written or deleted.
    package var validatorRows = 0
    /// Source value rows written or deleted.
    package var valueRows = 0
    /// The feed's record (always written: it holds the time of the poll).
    package var recordRows = 0
    /// The notifications the commit dropped from the outbox, their notifier's bounds exceeded, oldest first.
    package var dropped: [DroppedNotification] = []

    package init() {}

    /// Item rows inserted, updated or deleted.
    var itemRows: Int { itemsInserted + itemsUpdated + itemsDeleted }

    /// Every row written, in every table.
    package var rows: Int { itemRows + memberRows + groupRows + validatorRows + valueRows + recordRows }
}
