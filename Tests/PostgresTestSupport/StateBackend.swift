import Foundation
import MonitorPostgres
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore

/// The places the state is kept in: every test of the state runs against each (`@Test(arguments:
/// StateBackend.allCases)`), the in-memory state of the other tests included; a test of what only a database does
/// (rows written, indexes, files, a read-only store) runs against ``databases``.
package enum StateBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// The SQLite file in a directory.
    case sqlite
    /// A PostgreSQL database on the test process's server.
    case postgres
    /// The tests' ``MemoryState``.
    case memory

    /// The two databases.
    package static let databases: [StateBackend] = [.sqlite, .postgres]

    package var testDescription: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        case .memory: "memory"
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
        case .memory:
            return TestState(memory: MemoryState())
        }
    }
}

/// One empty state of a test, in a directory, a PostgreSQL database or a memory of its own.
package final class TestState: Sendable {
    /// The directory of an SQLite state (removed with this value), nil for PostgreSQL.
    package let directory: TemporaryDirectory?
    /// The server of a PostgreSQL state.
    package let server: PostgresServer?
    /// The database of a PostgreSQL state.
    package let url: PostgresURL?
    /// The in-memory state, which every opening shares (as every process shares a database).
    package let memory: MemoryState?

    init(
        directory: TemporaryDirectory? = nil, server: PostgresServer? = nil, url: PostgresURL? = nil,
        memory: MemoryState? = nil
    ) {
        self.directory = directory
        self.server = server
        self.url = url
        self.memory = memory
    }

    /// What `--state` names it by (a directory's path, or the database's URL with its password).
    package var argument: String {
        if let server, let url { return server.text(of: url) }
        return directory?.url.path ?? ""
    }

    /// How error messages name it: the SQLite file, or the URL without its password.
    package var location: String {
        if let memory { return memory.location }
        if let url { return url.description }
        return directory?.url.appendingPathComponent(SQLiteStateStore.fileName).path ?? ""
    }

    /// Opens the state for writing, creating it when needed (as `monitor run` does).
    package func open() async throws -> any StateStoring {
        if let memory { return memory }
        if let url { return try await PostgresStateStore.open(url, deadline: .patientDeadline) }
        return try SQLiteStateStore(directory: directory!.url)
    }

    /// Opens the state for reading only, nil when nothing is stored yet (as `monitor status` does); the in-memory
    /// state is always there, and does not refuse to write.
    package func reading() async throws -> (any StateStoring)? {
        if let memory { return memory }
        if let url { return try await PostgresStateStore.reading(url) }
        return try SQLiteStateStore.reading(directory: directory!.url)
    }
}

extension Duration {
    /// The deadline of a PostgreSQL call in the tests that are not about deadlines: the whole suite at once on two
    /// cores has kept a call waiting past the standard 30 s (`PostgresDeadlineTests` test the deadline itself); a
    /// test's time limit still ends a hang.
    package static let patientDeadline = Duration.seconds(240)
}
