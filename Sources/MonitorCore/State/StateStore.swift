import CSQLiteOptions
import Foundation
import GRDB

/// The embedded SQLite state: per feed its items, HTTP validators, group catalog, source values and record.
///
/// A poll's results are written in one transaction, so a poll that fails or is interrupted leaves the
/// previous state intact; SQLite's locking (WAL mode, a busy timeout) lets two processes share the file.
/// Credentials are never written: validators are keyed by a fingerprint.
package final class StateStore: Sendable {
    /// The database file's name inside the state directory.
    package static let fileName = "state.sqlite"

    private let database: any DatabaseWriter
    /// The database file.
    package let path: String

    /// What opening the state did that its user should hear of (modes made private), nil when nothing.
    package let notice: String?

    /// Opens (creating when needed) the state in `directory`: 0700, its files 0600 (see ``StateDirectory``).
    package init(directory: URL) throws {
        path = directory.appendingPathComponent(Self.fileName).path
        try StateDirectory.prepare(directory.path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "monitor-state"
        let path = self.path
        if try StateDirectory.createDatabase(path) {
            // A fresh state holds nothing to lose yet: switching the new file to WAL mode (a rollback-journal
            // transaction) need not wait for the disk four times. GRDB sets `synchronous = NORMAL` right after
            // the switch, before any table is created, and every later commit keeps that setting.
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
        }
        database = try StateError.wrapping(path) {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            // SQLite opens a file it may not write read-only without a word: find out now, not at the end of the
            // first poll. (`user_version` is not otherwise used.)
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 1") }
            return pool
        }
        // Only once it opened, so that a state that cannot be written is left as it was.
        notice =
            StateDirectory.makePrivate(directory.path, database: path)
            ? "the state \(directory.path) could be read by other users: made its directory 0700 and its files 0600"
            : nil
    }

    private init(path: String, database: any DatabaseWriter) {
        self.path = path
        self.database = database
        notice = nil
    }

    /// Opens the state in `directory` for reading only, nil when there is none yet: nothing is created, migrated
    /// or written, so a read-only state (a backup, another user's) can be shown. A store opened so refuses
    /// `commit`.
    package static func reading(directory: URL) throws -> StateStore? {
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
                queue = try DatabaseQueue(
                    path: "file:\(path.percentEncoded(keeping: "/"))?immutable=1", configuration: configuration)
            }
            let store = StateStore(path: path, database: queue)
            let current = try queue.read { db -> Bool? in
                guard try db.tableExists("feed") else { return nil }
                return try migrator.hasCompletedMigrations(db)
            }
            switch current {
            case nil: return nil
            case true?: return store
            // A state written by an earlier version is brought up to date first, when it can be written.
            case false?:
                do {
                    return try StateStore(directory: directory)
                } catch {
                    throw StateError.olderVersion(path)
                }
            }
        }
    }

    /// The default state directory: `$XDG_STATE_HOME/monitor`, else `~/.local/state/monitor`.
    package static func defaultDirectory(environment: [String: String]) -> URL {
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
        migrator.registerMigration("v3: packed items, group members, fingerprints") { db in
            try migrateToPackedItems(db)
        }
        migrator.registerMigration("v4: notifications outbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE notification (
                        id TEXT PRIMARY KEY NOT NULL,
                        notifier TEXT NOT NULL,
                        feed TEXT NOT NULL,
                        event TEXT NOT NULL,
                        created DOUBLE NOT NULL,
                        content TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        nextAttempt DOUBLE,
                        lastError TEXT,
                        failedPermanently DOUBLE
                    );
                    CREATE INDEX notification_by_notifier ON notification (notifier);
                    CREATE TABLE notifier (
                        name TEXT PRIMARY KEY NOT NULL,
                        lastError TEXT,
                        lastErrorAt DOUBLE,
                        lastDelivered DOUBLE
                    );
                    """)
        }
        migrator.registerMigration("v5: each notifier's queue read through an index, and bounded") { db in
            // Each notifier's pending notifications in the order written (the index ends with the rowid; with
            // `failedPermanently` in it, a count reads the index alone), and by age; the refused ones by when they
            // were refused.
            try db.execute(
                sql: """
                    CREATE INDEX notification_queue ON notification (notifier, failedPermanently)
                        WHERE failedPermanently IS NULL;
                    CREATE INDEX notification_age ON notification (notifier, created) WHERE failedPermanently IS NULL;
                    CREATE INDEX notification_refused ON notification (failedPermanently)
                        WHERE failedPermanently IS NOT NULL;
                    ALTER TABLE notifier ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        return migrator
    }

    /// v3: items keep their groups and details packed (read without a JSON decoder) with a fingerprint of their
    /// content, so that a commit writes only what changed; `itemGroupMember` lists each item under each of its
    /// groups by date, so that `monitor events --group` is answered by an index; ties in date are ordered by id,
    /// descending, in both indexes.
    private static func migrateToPackedItems(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE packedItem (
                    feed TEXT NOT NULL,
                    id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    date DOUBLE NOT NULL,
                    groups TEXT NOT NULL,
                    url TEXT,
                    details TEXT NOT NULL,
                    firstSeen DOUBLE NOT NULL,
                    fingerprint INTEGER NOT NULL,
                    PRIMARY KEY (feed, id)
                );
                CREATE TABLE itemGroupMember (
                    feed TEXT NOT NULL,
                    groupId TEXT NOT NULL,
                    id TEXT NOT NULL,
                    date DOUBLE NOT NULL,
                    PRIMARY KEY (feed, id, groupId)
                ) WITHOUT ROWID;
                """)
        // The v1 rows, their JSON decoded once here; a row that does not decode keeps no groups or details (its
        // fingerprint then differs from the item's, so the next poll writes it whole again).
        let decoder = JSONDecoder()
        let rows = try Row.fetchCursor(
            db, sql: "SELECT feed, id, title, date, groups, url, details, firstSeen FROM item")
        while let row = try rows.next() {
            let item = Item(
                id: row[1], title: row[2], date: Date(timeIntervalSince1970: row[3]),
                groups: (try? decoder.decode([String].self, from: Data((row[4] as String).utf8))) ?? [],
                url: row[5],
                details: (try? decoder.decode([Detail].self, from: Data((row[6] as String).utf8))) ?? [])
            let feed: String = row[0]
            let firstSeen: Double = row[7]
            try insert(item, StoredItem(item), feed: feed, firstSeen: firstSeen, into: "packedItem", db)
            _ = try insertMembers(item, feed: feed, db)
        }
        try db.execute(
            sql: """
                DROP TABLE item;
                ALTER TABLE packedItem RENAME TO item;
                CREATE INDEX item_by_date ON item (feed, date DESC, id DESC);
                CREATE INDEX itemGroupMember_by_date ON itemGroupMember (feed, groupId, date DESC, id DESC);
                """)
    }

    /// Makes every commit of this process durable with one `fdatasync` of the WAL (one last commit, of one page, with
    /// `synchronous = FULL`; the commits before it wrote theirs with `NORMAL`, unsynced), then lets the file close
    /// without a checkpoint: closing no longer copies the WAL into the database file and syncs both on the way out
    /// of `run --once`. The WAL stays beside the file for the next process, which reads it (readers, read-only ones
    /// included, read a state through its WAL) and checkpoints it when it grows past SQLite's 1,000 pages. When the
    /// sync fails, the usual checkpoint at close is kept.
    package func finishWriting() async {
        guard let pool = database as? DatabasePool else { return }
        try? await pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA user_version = 1")
            if let connection = db.sqliteConnection {
                _ = monitor_sqlite3_no_checkpoint_on_close(UnsafeMutableRawPointer(connection))
            }
        }
    }

    // MARK: - Reading

    /// Reads in one transaction; a database error becomes a ``StateError`` that says what it means.
    func read<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        try await StateError.wrapping(path) { try await database.read(body) }
    }

    /// Writes in one transaction; a database error becomes a ``StateError`` that says what it means.
    func write<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        try await StateError.wrapping(path) { try await database.write(body) }
    }

    /// Everything stored for `feed`, read in one transaction.
    package func snapshot(feed: String) async throws -> FeedSnapshot {
        try await read { db in
            let record = try Self.record(feed, db)
            return FeedSnapshot(
                record: record,
                items: try Self.items(feed, group: nil, since: nil, limit: nil, expected: record?.itemCount ?? 0, db),
                groups: try Row.fetchAll(
                    db, sql: "SELECT id, title FROM itemGroup WHERE feed = ? ORDER BY position", arguments: [feed]
                )
                .map { ItemGroup(id: $0[0], title: $0[1]) },
                validators: Dictionary(
                    try Row.fetchAll(
                        db, sql: "SELECT url, credential, etag, lastModified FROM validator WHERE feed = ?",
                        arguments: [feed]
                    ).map { row in
                        (
                            ValidatorKey(url: row[0], credential: row[1]),
                            Validators(etag: row[2], lastModified: row[3])
                        )
                    }, uniquingKeysWith: { $1 }),
                values: Dictionary(
                    try Row.fetchAll(db, sql: "SELECT key, value FROM sourceValue WHERE feed = ?", arguments: [feed])
                        .map { ($0[0], $0[1]) }, uniquingKeysWith: { $1 }))
        }
    }

    /// The record of `feed` alone (no items), nil when it was never polled.
    package func record(feed: String) async throws -> FeedRecord? {
        try await read { db in try Self.record(feed, db) }
    }

    /// The records of every feed ever polled, by name.
    package func records() async throws -> [FeedRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.recordColumns) FROM feed ORDER BY name").map(Self.record)
        }
    }

    /// The names of the feeds ever polled, in order.
    package func feedNames() async throws -> [String] {
        try await read { db in try String.fetchAll(db, sql: "SELECT name FROM feed ORDER BY name") }
    }

    /// The items of `feed`, newest first (items of the same date by id, descending): only those of `group` when
    /// given, dated at or after `since` when given, at most `limit`. The database selects them through its
    /// indexes; only the items returned are read.
    package func items(feed: String, group: String? = nil, since: Date? = nil, limit: Int? = nil) async throws -> [Item]
    {
        try await read { db in try Self.items(feed, group: group, since: since, limit: limit, db) }
    }

    /// The groups of `feed`'s last poll, in order.
    package func groups(feed: String) async throws -> [ItemGroup] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, title FROM itemGroup WHERE feed = ? ORDER BY position", arguments: [feed]
            )
            .map { ItemGroup(id: $0[0], title: $0[1]) }
        }
    }

    private static let recordColumns = """
        name, type, status, lastPoll, lastSuccess, lastNew, lastError, failures, notBefore, minimumInterval, \
        rateLimit, itemCount, holdReason
        """

    private static func record(_ feed: String, _ db: Database) throws -> FeedRecord? {
        try Row.fetchOne(
            db, sql: "SELECT \(recordColumns) FROM feed WHERE name = ?", arguments: [feed]
        ).map(record)
    }

    private static func record(_ row: Row) -> FeedRecord {
        var record = FeedRecord(name: row[0], type: row[1])
        record.status = row[2]
        record.lastPoll = (row[3] as Double?).map(Date.init(timeIntervalSince1970:))
        record.lastSuccess = (row[4] as Double?).map(Date.init(timeIntervalSince1970:))
        record.lastNew = (row[5] as Double?).map(Date.init(timeIntervalSince1970:))
        record.lastError = row[6]
        record.failures = row[7]
        // A hold or an interval beyond the caps (stored by an older version) is not believed.
        record.notBefore = HTTPPolicy.believed(
            notBefore: (row[8] as Double?).map(Date.init(timeIntervalSince1970:)), lastPoll: record.lastPoll)
        record.holdReason = record.notBefore == nil ? nil : row[12]
        record.minimumInterval = (row[9] as Double?).map {
            Duration.milliseconds(Int64(min($0, HTTPPolicy.maximumPollInterval.seconds) * 1000))
        }
        record.rateLimit = (row[10] as String?).flatMap {
            try? JSONDecoder().decode(RateLimit.self, from: Data($0.utf8))
        }
        record.itemCount = row[11]
        return record
    }

    /// The items of `feed`, newest first; `expected` is how many are likely (the record's count), so that a whole
    /// feed's list is made at its size rather than grown to up to twice it.
    private static func items(
        _ feed: String, group: String?, since: Date?, limit: Int?, expected: Int = 0, _ db: Database
    ) throws -> [Item] {
        var sql: String
        var arguments: StatementArguments = [feed]
        if let group {
            // Through the membership index, in its order: no sort, and no more rows read than are returned.
            sql = """
                SELECT item.id, item.title, item.date, item.groups, item.url, item.details
                FROM itemGroupMember AS member JOIN item ON item.feed = member.feed AND item.id = member.id
                WHERE member.feed = ? AND member.groupId = ?
                """
            arguments += [group]
            if let since {
                sql += " AND member.date >= ?"
                arguments += [since.timeIntervalSince1970]
            }
            sql += " ORDER BY member.date DESC, member.id DESC"
        } else {
            sql = "SELECT id, title, date, groups, url, details FROM item WHERE feed = ?"
            if let since {
                sql += " AND date >= ?"
                arguments += [since.timeIntervalSince1970]
            }
            sql += " ORDER BY date DESC, id DESC"
        }
        if let limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        var items: [Item] = []
        items.reserveCapacity(expected)
        var groups = StoredItem.GroupReader()
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        while let row = try rows.next() {
            items.append(
                Item(
                    id: row[0], title: row[1], date: Date(timeIntervalSince1970: row[2]),
                    groups: groups.unpack(row[3]), url: row[4], details: StoredItem.unpackDetails(row[5])))
        }
        return items
    }

    // MARK: - Writing

    /// `item` as it is stored: its title, link, groups and details without control characters, which SQLite's
    /// text would cut at a NUL and a terminal would obey. Its identifier is kept as the source made it.
    package static func storable(_ item: Item) -> Item {
        var item = item
        item.id = TerminalText.sanitized(item.id)
        item.title = TerminalText.sanitized(item.title)
        item.url = item.url.map { TerminalText.sanitized($0) }
        item.groups = item.groups.map { TerminalText.sanitized($0) }
        item.details = item.details.map { Detail(TerminalText.sanitized($0.name), TerminalText.sanitized($0.value)) }
        return item
    }

    /// Writes a poll's results in one transaction: the feed's record, and of its items, groups, validators and
    /// values only what differs from what is stored. Returns the rows written.
    @discardableResult
    package func commit(_ commit: PollCommit, feed: String) async throws -> CommitStatistics {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try await write { db in
            var statistics = CommitStatistics()
            let record = commit.record
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO feed
                        (name, type, status, lastPoll, lastSuccess, lastNew, lastError, failures, notBefore,
                         minimumInterval, rateLimit, itemCount, holdReason)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(
                arguments: [
                    feed, record.type, record.status, record.lastPoll?.timeIntervalSince1970,
                    record.lastSuccess?.timeIntervalSince1970, record.lastNew?.timeIntervalSince1970, record.lastError,
                    record.failures, record.notBefore?.timeIntervalSince1970,
                    record.minimumInterval?.seconds,
                    try record.rateLimit.map { String(decoding: try encoder.encode($0), as: UTF8.self) },
                    record.itemCount, record.holdReason,
                ])
            statistics.recordRows = 1
            if let items = commit.items {
                try Self.writeItems(
                    items, prepared: commit.prepared, feed: feed, firstSeen: commit.firstSeen.timeIntervalSince1970,
                    &statistics, db)
            }
            if let groups = commit.groups {
                statistics.groupRows = try Self.writeCatalog(
                    groups.map {
                        ItemGroup(id: TerminalText.sanitized($0.id), title: TerminalText.sanitized($0.title))
                    },
                    feed: feed, db)
            }
            for (key, validators) in commit.validators {
                let current = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT etag, lastModified FROM validator WHERE feed = ? AND url = ? AND credential = ?"),
                    arguments: [feed, key.url, key.credential]
                ).map { Validators(etag: $0[0], lastModified: $0[1]) }
                if validators.isEmpty {
                    guard current != nil else { continue }
                    try db.cachedStatement(sql: "DELETE FROM validator WHERE feed = ? AND url = ? AND credential = ?")
                        .execute(arguments: [feed, key.url, key.credential])
                } else {
                    guard current != validators else { continue }
                    try db.cachedStatement(
                        sql:
                            "INSERT OR REPLACE INTO validator (feed, url, credential, etag, lastModified) VALUES (?, ?, ?, ?, ?)"
                    ).execute(arguments: [feed, key.url, key.credential, validators.etag, validators.lastModified])
                }
                statistics.validatorRows += 1
            }
            for (key, value) in commit.values {
                let current = try String.fetchOne(
                    db.cachedStatement(sql: "SELECT value FROM sourceValue WHERE feed = ? AND key = ?"),
                    arguments: [feed, key])
                guard current != value else { continue }
                if let value {
                    try db.cachedStatement(
                        sql: "INSERT OR REPLACE INTO sourceValue (feed, key, value) VALUES (?, ?, ?)"
                    )
                    .execute(arguments: [feed, key, value])
                } else {
                    try db.cachedStatement(sql: "DELETE FROM sourceValue WHERE feed = ? AND key = ?").execute(
                        arguments: [feed, key])
                }
                statistics.valueRows += 1
            }
            statistics.dropped = try Self.enqueue(
                commit.notifications, bounds: commit.bounds, created: commit.record.lastPoll ?? commit.firstSeen, db)
            return statistics
        }
    }

    /// Makes `items` the feed's stored item set, writing only what differs from what is stored: new items and their
    /// group memberships inserted (several rows per statement), changed ones updated, those gone deleted.
    private static func writeItems(
        _ items: [Item], prepared: PreparedItems, feed: String, firstSeen: Double,
        _ statistics: inout CommitStatistics, _ db: Database
    ) throws {
        // The stored fingerprints: an item whose fingerprint is unchanged is not written again.
        var stored: [String: Int64] = [:]
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT id, fingerprint FROM item WHERE feed = ?"), arguments: [feed])
        while let row = try rows.next() { stored[row[0]] = row[1] }
        // A feed with nothing stored yet (a first poll) has nothing to delete: the ids kept are not collected, and
        // `stored` only finds an id met twice in the poll.
        let fresh = stored.isEmpty
        stored.reserveCapacity(stored.count + items.count)
        var kept = Set<String>()
        if !fresh { kept.reserveCapacity(items.count) }
        // New items and their memberships go in several rows per statement (a first poll's thousands).
        var inserts = RowBatch(
            table: "item",
            columns: ["feed", "id", "title", "date", "groups", "url", "details", "firstSeen", "fingerprint"])
        var members = RowBatch(table: "itemGroupMember", columns: ["feed", "groupId", "id", "date"])
        for item in items {
            let (item, packed) = prepared.stored(item)
            if !fresh { kept.insert(item.id) }
            switch stored.updateValue(packed.fingerprint, forKey: item.id) {
            case nil:
                let date = item.date.timeIntervalSince1970
                try inserts.append(db) { row in
                    row.append(.text(feed))
                    row.append(.text(item.id))
                    row.append(.text(item.title))
                    row.append(.real(date))
                    row.append(.text(packed.groups))
                    row.append(item.url.map(RowValue.text) ?? .null)
                    row.append(.text(packed.details))
                    row.append(.real(firstSeen))
                    row.append(.integer(packed.fingerprint))
                }
                statistics.itemsInserted += 1
                statistics.memberRows += try item.eachGroupOnce { group in
                    try members.append(db) { row in
                        row.append(.text(feed))
                        row.append(.text(group))
                        row.append(.text(item.id))
                        row.append(.real(date))
                    }
                }
                continue
            case packed.fingerprint?:
                continue
            default:
                // The item may be one of the rows not written yet (an id met twice in the poll).
                try inserts.flush(db)
                try members.flush(db)
                try db.cachedStatement(
                    sql: """
                        UPDATE item SET title = ?, date = ?, groups = ?, url = ?, details = ?, fingerprint = ?
                        WHERE feed = ? AND id = ?
                        """
                ).execute(
                    arguments: [
                        item.title, item.date.timeIntervalSince1970, packed.groups, item.url, packed.details,
                        packed.fingerprint, feed, item.id,
                    ])
                statistics.itemsUpdated += 1
                statistics.memberRows += try Self.deleteMembers(of: item.id, feed: feed, db)
            }
            statistics.memberRows += try Self.insertMembers(item, feed: feed, db)
        }
        try inserts.flush(db)
        try members.flush(db)
        if fresh { return }
        for id in stored.keys where !kept.contains(id) {
            try db.cachedStatement(sql: "DELETE FROM item WHERE feed = ? AND id = ?").execute(arguments: [feed, id])
            statistics.itemsDeleted += 1
            statistics.memberRows += try Self.deleteMembers(of: id, feed: feed, db)
        }
    }

    private static func insert(
        _ item: Item, _ packed: StoredItem, feed: String, firstSeen: Double, into table: String, _ db: Database
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO \(table) (feed, id, title, date, groups, url, details, firstSeen, fingerprint)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                feed, item.id, item.title, item.date.timeIntervalSince1970, packed.groups, item.url, packed.details,
                firstSeen, packed.fingerprint,
            ])
    }

    /// Lists `item` under each of its groups (once each); returns the rows inserted.
    private static func insertMembers(_ item: Item, feed: String, _ db: Database) throws -> Int {
        try item.eachGroupOnce { group in
            try db.cachedStatement(sql: "INSERT INTO itemGroupMember (feed, groupId, id, date) VALUES (?, ?, ?, ?)")
                .execute(arguments: [feed, group, item.id, item.date.timeIntervalSince1970])
        }
    }

    /// Removes the item `id` from every group; returns the rows deleted.
    private static func deleteMembers(of id: String, feed: String, _ db: Database) throws -> Int {
        try db.cachedStatement(sql: "DELETE FROM itemGroupMember WHERE feed = ? AND id = ?").execute(arguments: [
            feed, id,
        ])
        return db.changesCount
    }

    /// Makes the stored catalog `groups`, writing only the groups that differ; returns the rows written.
    private static func writeCatalog(_ groups: [ItemGroup], feed: String, _ db: Database) throws -> Int {
        var stored: [String: (title: String, position: Int)] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT id, title, position FROM itemGroup WHERE feed = ?"), arguments: [feed])
        {
            stored[row[0]] = (row[1], row[2])
        }
        var written = 0
        var kept = Set<String>()
        for (position, group) in groups.enumerated() {
            kept.insert(group.id)
            if let current = stored[group.id], current.title == group.title, current.position == position { continue }
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO itemGroup (feed, id, title, position) VALUES (?, ?, ?, ?)"
            ).execute(arguments: [feed, group.id, group.title, position])
            stored[group.id] = (group.title, position)
            written += 1
        }
        for id in stored.keys where !kept.contains(id) {
            try db.cachedStatement(sql: "DELETE FROM itemGroup WHERE feed = ? AND id = ?").execute(arguments: [
                feed, id,
            ])
            written += 1
        }
        return written
    }
}
