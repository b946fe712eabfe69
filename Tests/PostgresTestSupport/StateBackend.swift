import Foundation
import MonitorCore
import MonitorPostgres
import MonitorSQLite
import TestSupport
import Testing

/// The databases the state is kept in: every test of the state runs against each (`@Test(arguments:
/// StateBackend.allCases)`).
package enum StateBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// The SQLite file in a directory.
    case sqlite
    /// A PostgreSQL database on the test process's server.
    case postgres

    package var testDescription: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }

    /// A new, empty state of this backend. Without PostgreSQL, the test case of `.postgres` is cancelled (shown
    /// as skipped) and says why on standard error.
    package func makeState() async throws -> TestState {
        switch self {
        case .sqlite:
            return TestState(directory: try TemporaryDirectory())
        case .postgres:
            let server = try await PostgresServer.forTest()
            return TestState(server: server, url: try await server.makeDatabase())
        }
    }
}

/// One empty state of a test, in a directory or a PostgreSQL database of its own.
package final class TestState: Sendable {
    /// The directory of an SQLite state (removed with this value), nil for PostgreSQL.
    package let directory: TemporaryDirectory?
    /// The server of a PostgreSQL state.
    package let server: PostgresServer?
    /// The database of a PostgreSQL state.
    package let url: PostgresURL?

    init(directory: TemporaryDirectory) {
        self.directory = directory
        server = nil
        url = nil
    }

    init(server: PostgresServer, url: PostgresURL) {
        directory = nil
        self.server = server
        self.url = url
    }

    /// What `--state` names it by (a directory's path, or the database's URL with its password).
    package var argument: String {
        if let server, let url { return server.text(of: url) }
        return directory?.url.path ?? ""
    }

    /// How error messages name it: the SQLite file, or the URL without its password.
    package var location: String {
        if let url { return url.description }
        return directory?.url.appendingPathComponent(SQLiteStateStore.fileName).path ?? ""
    }

    /// Opens the state for writing, creating it when needed (as `monitor run` does).
    package func open() async throws -> any StateStoring {
        if let url { return try await PostgresStateStore.open(url) }
        return try SQLiteStateStore(directory: directory!.url)
    }

    /// Opens the state for reading only, nil when nothing is stored yet (as `monitor status` does).
    package func reading() async throws -> (any StateStoring)? {
        if let url { return try await PostgresStateStore.reading(url) }
        return try SQLiteStateStore.reading(directory: directory!.url)
    }
}
