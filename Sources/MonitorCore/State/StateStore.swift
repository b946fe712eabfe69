import Foundation
import GRDB

/// The embedded SQLite state: per feed its items, HTTP validators, group catalog, source values and record.
///
/// A poll's results are written in one transaction, so a poll that fails or is interrupted leaves the
/// previous state intact; SQLite's locking (WAL mode, a busy timeout) lets two processes share the file.
/// Credentials are never written: validators are keyed by a fingerprint.
public final class StateStore: Sendable {
    /// The database file's name inside the state directory.
    public static let fileName = "state.sqlite"

    private let pool: DatabasePool
    /// The database file.
    public let path: String

    /// Opens (creating when needed) the state in `directory`.
    public init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent(Self.fileName).path
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "monitor-state"
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    /// The default state directory: `$XDG_STATE_HOME/monitor`, else `~/.local/state/monitor`.
    public static func defaultDirectory(environment: [String: String]) -> URL {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("monitor")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/monitor")
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE feed (
                        name TEXT PRIMARY KEY NOT NULL,
                        type TEXT NOT NULL,
                        status TEXT,
                        lastPoll DOUBLE,
                        lastSuccess DOUBLE,
                        lastNew DOUBLE,
                        lastError TEXT,
                        failures INTEGER NOT NULL DEFAULT 0,
                        notBefore DOUBLE,
                        minimumInterval DOUBLE,
                        rateLimit TEXT,
                        itemCount INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE item (
                        feed TEXT NOT NULL,
                        id TEXT NOT NULL,
                        title TEXT NOT NULL,
                        date DOUBLE NOT NULL,
                        groups TEXT NOT NULL,
                        url TEXT,
                        details TEXT NOT NULL,
                        firstSeen DOUBLE NOT NULL,
                        PRIMARY KEY (feed, id)
                    );
                    CREATE INDEX item_by_date ON item (feed, date DESC);
                    CREATE TABLE validator (
                        feed TEXT NOT NULL,
                        url TEXT NOT NULL,
                        credential TEXT NOT NULL,
                        etag TEXT,
                        lastModified TEXT,
                        PRIMARY KEY (feed, url, credential)
                    );
                    CREATE TABLE itemGroup (
                        feed TEXT NOT NULL,
                        id TEXT NOT NULL,
                        title TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        PRIMARY KEY (feed, id)
                    );
                    CREATE TABLE sourceValue (
                        feed TEXT NOT NULL,
                        key TEXT NOT NULL,
                        value TEXT NOT NULL,
                        PRIMARY KEY (feed, key)
                    );
                    """)
        }
        migrator.registerMigration("v2: why a feed is held back") { db in
            try db.execute(sql: "ALTER TABLE feed ADD COLUMN holdReason TEXT")
        }
        return migrator
    }

    // MARK: - Reading

    /// Everything stored for `feed`, read in one transaction.
    public func snapshot(feed: String) async throws -> FeedSnapshot {
        try await pool.read { db in
            FeedSnapshot(
                record: try Self.record(feed, db),
                items: try Self.items(feed, db),
                groups: try Row.fetchAll(
                    db, sql: "SELECT id, title FROM itemGroup WHERE feed = ? ORDER BY position", arguments: [feed]
                )
                .map { ItemGroup(id: $0["id"], title: $0["title"]) },
                validators: Dictionary(
                    try Row.fetchAll(db, sql: "SELECT * FROM validator WHERE feed = ?", arguments: [feed]).map { row in
                        (
                            ValidatorKey(url: row["url"], credential: row["credential"]),
                            Validators(etag: row["etag"], lastModified: row["lastModified"])
                        )
                    }, uniquingKeysWith: { $1 }),
                values: Dictionary(
                    try Row.fetchAll(db, sql: "SELECT key, value FROM sourceValue WHERE feed = ?", arguments: [feed])
                        .map { ($0["key"], $0["value"]) }, uniquingKeysWith: { $1 }))
        }
    }

    /// The records of every feed ever polled, by name.
    public func records() async throws -> [FeedRecord] {
        try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM feed ORDER BY name").compactMap { try Self.record($0, db) }
        }
    }

    /// The items of `feed`, newest first.
    public func items(feed: String) async throws -> [Item] {
        try await pool.read { db in try Self.items(feed, db) }
    }

    /// The groups of `feed`'s last poll, in order.
    public func groups(feed: String) async throws -> [ItemGroup] {
        try await snapshot(feed: feed).groups
    }

    private static func record(_ feed: String, _ db: Database) throws -> FeedRecord? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM feed WHERE name = ?", arguments: [feed]) else {
            return nil
        }
        var record = FeedRecord(name: row["name"], type: row["type"])
        record.status = row["status"]
        record.lastPoll = (row["lastPoll"] as Double?).map(Date.init(timeIntervalSince1970:))
        record.lastSuccess = (row["lastSuccess"] as Double?).map(Date.init(timeIntervalSince1970:))
        record.lastNew = (row["lastNew"] as Double?).map(Date.init(timeIntervalSince1970:))
        record.lastError = row["lastError"]
        record.failures = row["failures"]
        // A hold or an interval beyond the caps (stored by an older version) is not believed.
        record.notBefore = HTTPPolicy.believed(
            notBefore: (row["notBefore"] as Double?).map(Date.init(timeIntervalSince1970:)), lastPoll: record.lastPoll)
        record.holdReason = record.notBefore == nil ? nil : row["holdReason"]
        record.minimumInterval = (row["minimumInterval"] as Double?).map {
            Duration.milliseconds(Int64(min($0, HTTPPolicy.maximumPollInterval.seconds) * 1000))
        }
        record.rateLimit = (row["rateLimit"] as String?).flatMap {
            try? JSONDecoder().decode(RateLimit.self, from: Data($0.utf8))
        }
        record.itemCount = row["itemCount"]
        return record
    }

    private static func items(_ feed: String, _ db: Database) throws -> [Item] {
        let decoder = JSONDecoder()
        return try Row.fetchAll(db, sql: "SELECT * FROM item WHERE feed = ? ORDER BY date DESC, id", arguments: [feed])
            .map { row in
                Item(
                    id: row["id"], title: row["title"], date: Date(timeIntervalSince1970: row["date"]),
                    groups: try decoder.decode([String].self, from: Data((row["groups"] as String).utf8)),
                    url: row["url"],
                    details: try decoder.decode([Detail].self, from: Data((row["details"] as String).utf8)))
            }
    }

    // MARK: - Writing

    /// Writes a poll's results in one transaction.
    public func commit(_ commit: PollCommit, feed: String) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await pool.write { db in
            let record = commit.record
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO feed
                        (name, type, status, lastPoll, lastSuccess, lastNew, lastError, failures, notBefore,
                         minimumInterval, rateLimit, itemCount, holdReason)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    feed, record.type, record.status, record.lastPoll?.timeIntervalSince1970,
                    record.lastSuccess?.timeIntervalSince1970, record.lastNew?.timeIntervalSince1970, record.lastError,
                    record.failures, record.notBefore?.timeIntervalSince1970,
                    record.minimumInterval.map {
                        Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18
                    },
                    try record.rateLimit.map { String(decoding: try encoder.encode($0), as: UTF8.self) },
                    record.itemCount, record.holdReason,
                ])
            if let items = commit.items {
                let keep = Set(items.map(\.id))
                let stored = Set(try String.fetchAll(db, sql: "SELECT id FROM item WHERE feed = ?", arguments: [feed]))
                for id in stored.subtracting(keep) {
                    try db.execute(sql: "DELETE FROM item WHERE feed = ? AND id = ?", arguments: [feed, id])
                }
                for item in items {
                    try db.execute(
                        sql: """
                            INSERT INTO item (feed, id, title, date, groups, url, details, firstSeen)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                            ON CONFLICT (feed, id) DO UPDATE SET
                                title = excluded.title, date = excluded.date, groups = excluded.groups,
                                url = excluded.url, details = excluded.details
                            """,
                        arguments: [
                            feed, item.id, item.title, item.date.timeIntervalSince1970,
                            String(decoding: try encoder.encode(item.groups), as: UTF8.self), item.url,
                            String(decoding: try encoder.encode(item.details), as: UTF8.self),
                            commit.firstSeen.timeIntervalSince1970,
                        ])
                }
            }
            if let groups = commit.groups {
                try db.execute(sql: "DELETE FROM itemGroup WHERE feed = ?", arguments: [feed])
                for (position, group) in groups.enumerated() {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO itemGroup (feed, id, title, position) VALUES (?, ?, ?, ?)",
                        arguments: [feed, group.id, group.title, position])
                }
            }
            for (key, validators) in commit.validators {
                if validators.isEmpty {
                    try db.execute(
                        sql: "DELETE FROM validator WHERE feed = ? AND url = ? AND credential = ?",
                        arguments: [feed, key.url, key.credential])
                } else {
                    try db.execute(
                        sql:
                            "INSERT OR REPLACE INTO validator (feed, url, credential, etag, lastModified) VALUES (?, ?, ?, ?, ?)",
                        arguments: [feed, key.url, key.credential, validators.etag, validators.lastModified])
                }
            }
            for (key, value) in commit.values {
                if let value {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO sourceValue (feed, key, value) VALUES (?, ?, ?)",
                        arguments: [feed, key, value])
                } else {
                    try db.execute(sql: "DELETE FROM sourceValue WHERE feed = ? AND key = ?", arguments: [feed, key])
                }
            }
        }
    }
}
