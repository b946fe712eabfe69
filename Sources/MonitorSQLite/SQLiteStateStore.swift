import CSQLiteOptions
import Foundation
import GRDB
import MonitorCore

/// The embedded SQLite state: per feed its items, HTTP validators, group catalog, source values and record.
///
/// A poll's results are written in one transaction, so a poll that fails or is interrupted leaves the
/// previous state intact; SQLite's locking (WAL mode, a busy timeout) lets two processes share the file.
/// Credentials are never written: validators are keyed by a fingerprint.
package final class SQLiteStateStore: StateStoring {
    /// The database file's name inside the state directory.
    package static let fileName = "state.sqlite"

    private let database: any DatabaseWriter
    /// The database file.
    package let path: String

    /// What opening the state did that its user should hear of (modes made private), nil when nothing.
    package let notice: String?

    /// The page size of a new state's file, in bytes.
    static let pageSize = 16384

    /// The database file's path.
    package var location: String { path }

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
            // the switch, before any table is created, and every later commit keeps that setting. Its pages are
            // 16 KiB (SQLite's default is 4): a poll's commit of thousands of items writes a quarter of the pages to
            // the WAL. The size is fixed once the file has its first table; states made before keep theirs.
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA page_size = \(Self.pageSize)")
                try db.execute(sql: "PRAGMA synchronous = OFF")
            }
        }
        database = try SQLiteFailure.wrapping(path) {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try SQLiteSchema.migrator.migrate(pool)
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
    package static func reading(directory: URL) throws -> SQLiteStateStore? {
        let path = directory.appendingPathComponent(Self.fileName).path
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw SQLiteFailure.unreadable(path, errno)
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw SQLiteFailure.notAFile(path) }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        configuration.label = "monitor-state"
        return try SQLiteFailure.wrapping(path) {
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
            let store = SQLiteStateStore(path: path, database: queue)
            let current = try queue.read { db -> Bool? in
                guard try db.tableExists("feed") else { return nil }
                return try SQLiteSchema.migrator.hasCompletedMigrations(db)
            }
            switch current {
            case nil: return nil
            case true?: return store
            // A state written by an earlier version is brought up to date first, when it can be written.
            case false?:
                do {
                    return try SQLiteStateStore(directory: directory)
                } catch {
                    throw SQLiteFailure.olderVersion(path)
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

    // MARK: - Transactions

    /// Reads in one transaction; a database error becomes a ``StateError`` that says what it means.
    func read<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        try await SQLiteFailure.wrapping(path) { try await database.read(body) }
    }

    /// Writes in one transaction; a database error becomes a ``StateError`` that says what it means.
    func write<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        try await SQLiteFailure.wrapping(path) { try await database.write(body) }
    }

    // MARK: - Writing

    @discardableResult
    package func commit(_ commit: PollCommit, feed: String) async throws -> CommitStatistics {
        try await write { db in try SQLiteCommit(db: db, feed: feed).write(commit) }
    }
}
