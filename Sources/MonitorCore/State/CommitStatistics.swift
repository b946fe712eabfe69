/// The rows one commit wrote (inserted, updated or deleted), by table: what a poll cost the state.
public struct CommitStatistics: Sendable, Hashable {
    /// Items stored for the first time.
    public var itemsInserted = 0
    /// Stored items whose title, date, groups, URL or details changed.
    public var itemsUpdated = 0
    /// Stored items no longer in the feed's set.
    public var itemsDeleted = 0
    /// Rows of the group membership index inserted or deleted (one per group of each item written or deleted).
    public var memberRows = 0
    /// Rows of the group catalog inserted, updated or deleted.
    public var groupRows = 0
    /// Validator rows written or deleted.
    public var validatorRows = 0
    /// Source value rows written or deleted.
    public var valueRows = 0
    /// The feed's record (always written: it holds the time of the poll).
    public var recordRows = 0
    /// The notifications the commit dropped from the outbox, their notifier's bounds exceeded, oldest first.
    public var dropped: [DroppedNotification] = []

    /// No rows.
    public init() {}

    /// Item rows inserted, updated or deleted.
    public var itemRows: Int { itemsInserted + itemsUpdated + itemsDeleted }

    /// Every row written, in every table.
    public var rows: Int { itemRows + memberRows + groupRows + validatorRows + valueRows + recordRows }
}
