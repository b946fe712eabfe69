import Logging
import PostgresNIO

/// The state's tables in PostgreSQL, created and migrated by `monitor` itself: each migration is applied once, in
/// order, in one transaction under an advisory lock (so that two instances starting at once do not both apply it),
/// and recorded in `monitor_schema (version, name, applied_at)`.
///
/// A later version adds a migration at the end of ``migrations``: its statements (new tables, columns, indexes)
/// and nothing else; the store's methods then use them.
enum PostgresSchema {
    /// One step of the schema.
    struct Migration: Sendable {
        /// Its number, one more than the previous one's.
        var version: Int
        /// What it does, in a few words.
        var name: String
        /// Its statements, run in order.
        var statements: [String]
    }

    /// The advisory lock held while migrating (any number, the same for every instance: "monitor" in ASCII).
    static let lockKey: Int64 = 0x6d6f_6e69_746f_72

    /// Every migration, in order. Text that is compared or sorted uses the "C" collation, so that the order is
    /// that of SQLite's (by bytes), whatever the database's locale. Dates are seconds since 1970 as `float8`, so
    /// that they read back exactly as written.
    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "feeds, items, group members, groups, validators, source values",
            statements: [
                """
                CREATE TABLE feed (
                    name text COLLATE "C" PRIMARY KEY,
                    type text NOT NULL,
                    status text,
                    last_poll float8,
                    last_success float8,
                    last_new float8,
                    last_error text,
                    failures integer NOT NULL DEFAULT 0,
                    not_before float8,
                    hold_reason text,
                    minimum_interval float8,
                    rate_limit text,
                    item_count integer NOT NULL DEFAULT 0
                )
                """,
                """
                CREATE TABLE item (
                    feed text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    title text NOT NULL,
                    date float8 NOT NULL,
                    groups text NOT NULL,
                    url text,
                    details text NOT NULL,
                    first_seen float8 NOT NULL,
                    fingerprint bigint NOT NULL,
                    PRIMARY KEY (feed, id)
                )
                """,
                "CREATE INDEX item_by_date ON item (feed, date DESC, id DESC)",
                """
                CREATE TABLE item_group_member (
                    feed text COLLATE "C" NOT NULL,
                    group_id text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    date float8 NOT NULL,
                    PRIMARY KEY (feed, id, group_id)
                )
                """,
                "CREATE INDEX item_group_member_by_date ON item_group_member (feed, group_id, date DESC, id DESC)",
                """
                CREATE TABLE item_group (
                    feed text COLLATE "C" NOT NULL,
                    id text COLLATE "C" NOT NULL,
                    title text NOT NULL,
                    position integer NOT NULL,
                    PRIMARY KEY (feed, id)
                )
                """,
                """
                CREATE TABLE validator (
                    feed text COLLATE "C" NOT NULL,
                    url text COLLATE "C" NOT NULL,
                    credential text COLLATE "C" NOT NULL,
                    etag text,
                    last_modified text,
                    PRIMARY KEY (feed, url, credential)
                )
                """,
                """
                CREATE TABLE source_value (
                    feed text COLLATE "C" NOT NULL,
                    key text COLLATE "C" NOT NULL,
                    value text NOT NULL,
                    PRIMARY KEY (feed, key)
                )
                """,
            ]),
        Migration(
            version: 2, name: "feed schedule: due times, back-off, holds and leases",
            statements: [
                """
                CREATE TABLE feed_schedule (
                    feed text COLLATE "C" PRIMARY KEY,
                    due_at float8 NOT NULL,
                    backoff float8 NOT NULL DEFAULT 0,
                    held_until float8,
                    lease_owner text,
                    lease_term bigint NOT NULL DEFAULT 0,
                    lease_expires float8
                )
                """,
                "CREATE INDEX feed_schedule_by_due ON feed_schedule (due_at, feed)",
            ]),
        Migration(
            version: 3, name: "notifications outbox",
            statements: [
                """
                CREATE TABLE notification (
                    seq bigserial UNIQUE,
                    id text COLLATE "C" PRIMARY KEY,
                    notifier text COLLATE "C" NOT NULL,
                    feed text COLLATE "C" NOT NULL,
                    event text NOT NULL,
                    created float8 NOT NULL,
                    content text NOT NULL,
                    attempts integer NOT NULL DEFAULT 0,
                    next_attempt float8,
                    last_error text,
                    failed_permanently float8
                )
                """,
                "CREATE INDEX notification_by_notifier ON notification (notifier)",
                """
                CREATE TABLE notifier (
                    name text COLLATE "C" PRIMARY KEY,
                    last_error text,
                    last_error_at float8,
                    last_delivered float8
                )
                """,
            ]),
        Migration(
            version: 4, name: "notifications claimed by one instance",
            statements: [
                "ALTER TABLE notification ADD COLUMN claimed_by text, ADD COLUMN claimed_until float8"
            ]),
        Migration(
            version: 5, name: "rate budgets shared by every instance using a token",
            statements: [
                """
                CREATE TABLE rate_budget (
                    origin text COLLATE "C" NOT NULL,
                    credential text COLLATE "C" NOT NULL,
                    resource text COLLATE "C" NOT NULL,
                    lowest integer,
                    reset_at float8,
                    held_until float8,
                    hold_reason text,
                    reset_learned_at float8,
                    hold_learned_at float8,
                    PRIMARY KEY (origin, credential, resource)
                )
                """,
                """
                CREATE TABLE rate_budget_flight (
                    ticket bigint PRIMARY KEY,
                    origin text COLLATE "C" NOT NULL,
                    credential text COLLATE "C" NOT NULL,
                    resource text COLLATE "C" NOT NULL,
                    expires float8 NOT NULL
                )
                """,
                "CREATE INDEX rate_budget_flight_by_budget ON rate_budget_flight (origin, credential, resource)",
                "CREATE INDEX rate_budget_flight_by_expiry ON rate_budget_flight (expires)",
            ]),
        Migration(
            version: 6, name: "each notifier's queue read through an index, and bounded",
            statements: [
                """
                CREATE INDEX notification_queue ON notification (notifier, seq) WHERE failed_permanently IS NULL
                """,
                """
                CREATE INDEX notification_age ON notification (notifier, created) WHERE failed_permanently IS NULL
                """,
                """
                CREATE INDEX notification_refused ON notification (failed_permanently)
                WHERE failed_permanently IS NOT NULL
                """,
                "ALTER TABLE notifier ADD COLUMN dropped integer NOT NULL DEFAULT 0",
            ]),
    ]

    /// The version this `monitor` writes: the last migration's.
    static var latest: Int { migrations.last?.version ?? 0 }

    /// The version of the schema in the database reached by `connection`, nil when it has none (nothing was ever
    /// stored there).
    static func version(_ connection: PostgresConnection, logger: Logger) async throws -> Int? {
        let rows = try await connection.query(
            "SELECT to_regclass('monitor_schema') IS NOT NULL", logger: logger)
        var exists = false
        for try await (found) in rows.decode(Bool.self) { exists = found }
        guard exists else { return nil }
        var version = 0
        for try await (found) in try await connection.query(
            "SELECT coalesce(max(version), 0) FROM monitor_schema", logger: logger
        ).decode(Int.self) {
            version = found
        }
        return version
    }

    /// Brings the schema up to date inside the transaction open on `connection`, under the advisory lock; returns
    /// the version found before (0 for an empty database). Throws `newer` when the database's version is later than
    /// this `monitor`'s.
    static func migrate(
        _ connection: PostgresConnection, logger: Logger, newer: (Int) -> any Error
    ) async throws -> Int {
        try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS monitor_schema (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger)
        let found = try await version(connection, logger: logger) ?? 0
        guard found <= latest else { throw newer(found) }
        for migration in migrations where migration.version > found {
            for statement in migration.statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query(
                "INSERT INTO monitor_schema (version, name) VALUES (\(migration.version), \(migration.name))",
                logger: logger)
        }
        return found
    }
}
