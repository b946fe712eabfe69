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

    private let database: any DatabaseWriter
    /// The database file.
    public let path: String

    /// Opens (creating when needed) the state in `directory`.
    public init(directory: URL) throws {
        path = directory.appendingPathComponent(Self.fileName).path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StateError.directory(directory.path, error)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "monitor-state"
        let path = self.path
        database = try StateError.wrapping(path) {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            // SQLite opens a file it may not write read-only without a word: find out now, not at the end of the
            // first poll. (`user_version` is not otherwise used.)
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 1") }
            return pool
        }
    }

    private init(path: String, database: any DatabaseWriter) {
        self.path = path
        self.database = database
    }

    /// Opens the state in `directory` for reading only, nil when there is none yet: nothing is created, migrated
    /// or written, so a read-only state (a backup, another user's) can be shown. A store opened so refuses
    /// `commit`.
    public static func reading(directory: URL) throws -> StateStore? {
        let path = directory.appendingPathComponent(Self.fileName).path
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw StateError.unreadable(path, errno)
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw StateError.notAFile(path) }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        configuration.label = "monitor-state"
        return try StateError.wrapping(path) {
            var queue: DatabaseQueue
            do {
                queue = try DatabaseQueue(path: path, configuration: configuration)
                _ = try queue.read { try $0.tableExists("feed") }
            } catch let error as DatabaseError where [.SQLITE_CANTOPEN, .SQLITE_READONLY].contains(error.resultCode) {
                // A WAL database in a directory that cannot be written has no shared-memory file and cannot get
                // one: read it as an immutable file.
                let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3F")
                    .replacingOccurrences(of: "#", with: "%23")
                queue = try DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: configuration)
            }
            let store = StateStore(path: path, database: queue)
            return try queue.read { db in
                guard try db.tableExists("feed") else { return nil }
                guard try migrator.hasCompletedMigrations(db) else { throw StateError.unknownVersion(path) }
                return store
            }
        }
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
        return migrator
    }

    // MARK: - Reading

    /// Reads in one transaction; a database error becomes a ``StateError`` that says what it means.
    private func read<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        try await StateError.wrapping(path) { try await database.read(body) }
    }

    /// Writes in one transaction; a database error becomes a ``StateError`` that says what it means.
    private func write(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        try await StateError.wrapping(path) { try await database.write(body) }
    }

    /// Everything stored for `feed`, read in one transaction.
    public func snapshot(feed: String) async throws -> FeedSnapshot {
        try await read { db in
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
        try await read { db in
            try String.fetchAll(db, sql: "SELECT name FROM feed ORDER BY name").compactMap { try Self.record($0, db) }
        }
    }

    /// The items of `feed`, newest first.
    public func items(feed: String) async throws -> [Item] {
        try await read { db in try Self.items(feed, db) }
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
        record.notBefore = (row["notBefore"] as Double?).map(Date.init(timeIntervalSince1970:))
        record.minimumInterval = (row["minimumInterval"] as Double?).map { Duration.milliseconds(Int64($0 * 1000)) }
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

    /// `item` as it is stored: its title, link, groups and details without control characters, which SQLite's
    /// text would cut at a NUL and a terminal would obey. Its identifier is kept as the source made it.
    static func storable(_ item: Item) -> Item {
        var item = item
        item.title = TerminalText.sanitized(item.title)
        item.url = item.url.map { TerminalText.sanitized($0) }
        item.groups = item.groups.map { TerminalText.sanitized($0) }
        item.details = item.details.map { Detail(TerminalText.sanitized($0.name), TerminalText.sanitized($0.value)) }
        return item
    }

    /// Writes a poll's results in one transaction.
    public func commit(_ commit: PollCommit, feed: String) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await write { db in
            let record = commit.record
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO feed
                        (name, type, status, lastPoll, lastSuccess, lastNew, lastError, failures, notBefore,
                         minimumInterval, rateLimit, itemCount)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    feed, record.type, record.status, record.lastPoll?.timeIntervalSince1970,
                    record.lastSuccess?.timeIntervalSince1970, record.lastNew?.timeIntervalSince1970, record.lastError,
                    record.failures, record.notBefore?.timeIntervalSince1970,
                    record.minimumInterval.map {
                        Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18
                    },
                    try record.rateLimit.map { String(decoding: try encoder.encode($0), as: UTF8.self) },
                    record.itemCount,
                ])
            if let items = commit.items {
                let keep = Set(items.map(\.id))
                let stored = Set(try String.fetchAll(db, sql: "SELECT id FROM item WHERE feed = ?", arguments: [feed]))
                for id in stored.subtracting(keep) {
                    try db.execute(sql: "DELETE FROM item WHERE feed = ? AND id = ?", arguments: [feed, id])
                }
                for item in items.map(Self.storable) {
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
                        arguments: [
                            feed, TerminalText.sanitized(group.id), TerminalText.sanitized(group.title), position,
                        ])
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
