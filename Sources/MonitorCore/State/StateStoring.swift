import Foundation

/// Where the state is kept: what the poll runner, the service and the commands read and write, whichever the
/// database (the SQLite file of ``StateStore``, or PostgreSQL).
///
/// Every implementation keeps the same guarantees: a poll's results are written in one transaction, so a poll that
/// fails or is interrupted changes nothing; items are read newest first, items of the same date by id descending;
/// text is stored without control characters; credentials are never written.
public protocol StateStoring: AnyObject, Sendable {
    /// The state named for people, in messages: a file's path, or a database's URL without its password.
    var location: String { get }

    /// Everything stored for `feed`, read in one transaction.
    func snapshot(feed: String) async throws -> FeedSnapshot

    /// The record of `feed` alone (no items), nil when it was never polled.
    func record(feed: String) async throws -> FeedRecord?

    /// The records of every feed ever polled, by name.
    func records() async throws -> [FeedRecord]

    /// The names of the feeds ever polled, in order.
    func feedNames() async throws -> [String]

    /// The items of `feed`, newest first (items of the same date by id, descending): only those of `group` when
    /// given, dated at or after `since` when given, at most `limit`, selected by the database.
    func items(of feed: String, group: String?, since: Date?, limit: Int?) async throws -> [Item]

    /// The groups of `feed`'s last poll, in order.
    func groups(feed: String) async throws -> [ItemGroup]

    /// Writes a poll's results in one transaction: the feed's record, and of its items, groups, validators and
    /// values only what differs from what is stored. Returns the rows written.
    @discardableResult
    func commit(_ commit: PollCommit, feed: String) async throws -> CommitStatistics
}

extension StateStoring {
    /// The items of `feed`, newest first: only those of `group` when given, dated at or after `since` when given,
    /// at most `limit`.
    public func items(feed: String, group: String? = nil, since: Date? = nil, limit: Int? = nil) async throws
        -> [Item]
    {
        try await items(of: feed, group: group, since: since, limit: limit)
    }
}
