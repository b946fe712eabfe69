import Testing

@testable import MonitorCore
@testable import MonitorPostgres

@Suite("A PostgreSQL URL is parsed strictly and shown without its password")
struct PostgresURLTests {
    @Test(
        "well-formed URLs and their parts",
        arguments: [
            (
                "postgres://monitor:s3cret@db.example:6543/feeds",
                PostgresURL(user: "monitor", password: "s3cret", host: "db.example", port: 6543, database: "feeds")
            ),
            (
                "postgresql://monitor@127.0.0.1/feeds",
                PostgresURL(user: "monitor", host: "127.0.0.1", port: 5432, database: "feeds")
            ),
            (
                "POSTGRES://a%40b:p%3Aw%2Fd@[::1]:5433/my%20db?sslmode=require",
                PostgresURL(
                    user: "a@b", password: "p:w/d", host: "::1", port: 5433, database: "my db", tls: .require)
            ),
            (
                "postgres://u:pa/ss?w#rd@host/db?sslmode=disable",
                PostgresURL(user: "u", password: "pa/ss?w#rd", host: "host", database: "db", tls: .disable)
            ),
            (
                "postgres://u:@host/db",
                PostgresURL(user: "u", password: "", host: "host", database: "db")
            ),
        ])
    func wellFormed(text: String, expected: PostgresURL) throws {
        let url = try PostgresURL(parsing: text)
        #expect(url == expected)
        #expect(!url.description.contains("s3cret"))
    }

    @Test("the description is postgres://USER@HOST:PORT/DB, without the password")
    func description() throws {
        #expect(
            try PostgresURL(parsing: "postgresql://monitor:s3cret@db.example/feeds").description
                == "postgres://monitor@db.example:5432/feeds")
        #expect(try PostgresURL(parsing: "postgres://u:x@[::1]:1/d").description == "postgres://u@[::1]:1/d")
    }

    static let form = "(the form is postgres://USER[:PASSWORD]@HOST[:PORT]/DB)"

    @Test(
        "a malformed URL is named without its password, saying what is wrong",
        arguments: [
            ("postgres:/monitor:hunter2@db/feeds", "postgres", "it does not start with postgres:// or postgresql://"),
            (
                "postgres://monitor:hunter2@db:54x/feeds", "postgres://monitor@db:54x/feeds",
                "the port is not a number from 1 to 65535"
            ),
            (
                "postgres://monitor:hunter2@db:0/feeds", "postgres://monitor@db:0/feeds",
                "the port is not a number from 1 to 65535"
            ),
            (
                "postgres://monitor:hunter2@db:65536/feeds", "postgres://monitor@db:65536/feeds",
                "the port is not a number from 1 to 65535"
            ),
            ("postgres://monitor:hunter2/feeds", "postgres://monitor/feeds", "it names no user (USER@)"),
            ("postgres://monitor:hunter2@db", "postgres://monitor@db", "it names no database (/DB)"),
            ("postgres://monitor:hunter2@db/", "postgres://monitor@db/", "it names no database (/DB)"),
            ("postgres://monitor:hunter2@/feeds", "postgres://monitor@/feeds", "it names no host"),
            ("postgres://:hunter2@db/feeds", "postgres://@db/feeds", "it names no user (USER@)"),
            ("postgres://monitor:hunter2@db/a/b", "postgres://monitor@db/a/b", "the database name contains a /"),
            ("postgres://monitor:hunter2@d b/feeds", "postgres://monitor@d b/feeds", "the host name is not valid"),
            (
                "postgres://monitor:hunter2@[::1/feeds", "postgres://monitor@[::1/feeds",
                "the IPv6 address has no closing ]"
            ),
            ("postgres://monitor:hunter2@db/feeds#x", "postgres://monitor@db/feeds", "it has a fragment (#)"),
            (
                "postgres://monitor@db/feeds?password=hunter2", "postgres://monitor@db/feeds",
                "unknown parameter 'password' (only sslmode is understood)"
            ),
            (
                "postgres://monitor:hunter2@db/feeds?sslmode=hunter2", "postgres://monitor@db/feeds",
                "sslmode must be one of disable, prefer, require, verify-full"
            ),
            (
                "postgres://monitor:hunter2@db/feeds?sslmode=require&sslmode=disable", "postgres://monitor@db/feeds",
                "the parameter 'sslmode' is given more than once"
            ),
            (
                "postgres://monitor:hunter2@db/feeds?sslmode=require&sslmode=require", "postgres://monitor@db/feeds",
                "the parameter 'sslmode' is given more than once"
            ),
            (
                "postgres://monitor:hun%zzter2@db/feeds", "postgres://monitor@db/feeds",
                "the password holds invalid percent-encoding or control characters"
            ),
            (
                "postgres://monitor:hunter2\u{1B}[2J@db/feeds", "postgres://monitor@db/feeds",
                "the password holds invalid percent-encoding or control characters"
            ),
        ] as [(String, String, String)])
    func malformed(text: String, shown: String, problem: String) {
        #expect(throws: StateError("invalid PostgreSQL URL \(shown): \(problem) \(Self.form)")) {
            try PostgresURL(parsing: text)
        }
        #expect(!PostgresURL.masked(text).contains("hunter2"))
    }

    @Test("a URL names PostgreSQL by its scheme alone (then must be well formed); anything else is a directory")
    func names() {
        #expect(PostgresURL.names("postgres://x"))
        #expect(PostgresURL.names("PostgreSQL://x"))
        #expect(!PostgresURL.names("postgres"))
        #expect(!PostgresURL.names("./postgres:/x"))
        #expect(PostgresURL.names("postgres:/db"))
        #expect(!PostgresURL.names("mysql://u@h/d"))
    }
}
