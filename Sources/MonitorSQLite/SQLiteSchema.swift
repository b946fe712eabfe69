import Foundation
import GRDB
import MonitorCore
import MonitorItems

/// The state's tables in the SQLite file, created and migrated by `monitor` itself through GRDB's migrator: each
/// migration is applied once, in order, in one transaction, and recorded in the file.
///
/// A later version adds a migration at the end of ``migrator``: its statements (new tables, columns, indexes) and
/// nothing else; the store's methods then use them.
enum SQLiteSchema {
    /// An item's columns from v1 until v3 added its fingerprint.
    private static let itemColumns = """
        feed TEXT NOT NULL, id TEXT NOT NULL, title TEXT NOT NULL, date DOUBLE NOT NULL, groups TEXT NOT NULL, \
        url TEXT, details TEXT NOT NULL, firstSeen DOUBLE NOT NULL,
        """

    /// Every migration, in order.
    static var migrator: DatabaseMigrator {
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
                        \(itemColumns) PRIMARY KEY (feed, id)
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
                    \(itemColumns) fingerprint INTEGER NOT NULL,
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
            let packed = StoredItem(item)
            try db.execute(
                sql: """
                    INSERT INTO packedItem (feed, id, title, date, groups, url, details, firstSeen, fingerprint)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    feed, item.id, item.title, item.date.timeIntervalSince1970, packed.groups, item.url,
                    packed.details, firstSeen, packed.fingerprint,
                ])
            _ = try SQLiteCommit(db: db, feed: feed).insertMembers(item)
        }
        try db.execute(
            sql: """
                DROP TABLE item;
                ALTER TABLE packedItem RENAME TO item;
                CREATE INDEX item_by_date ON item (feed, date DESC, id DESC);
                CREATE INDEX itemGroupMember_by_date ON itemGroupMember (feed, groupId, date DESC, id DESC);
                """)
    }
}
