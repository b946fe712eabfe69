import ArgumentParser
import Foundation
import MonitorCore
import MonitorPostgres
import MonitorSQLite
import MonitorText

/// The `--state` option of the commands that read or write the stored state: a directory holding the SQLite file,
/// or a PostgreSQL database (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB`); `$MONITOR_STATE` when not given.
struct StateOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The state: a directory (default: $MONITOR_STATE, else $XDG_STATE_HOME/monitor, else "
                + "~/.local/state/monitor), or a PostgreSQL database postgres://USER[:PASSWORD]@HOST[:PORT]/DB.",
            valueName: "dir|url"))
    var state: String?

    /// `--state`, else `$MONITOR_STATE` when set and not empty.
    var given: String? {
        if let state { return state }
        if let variable = ProcessInfo.processInfo.environment["MONITOR_STATE"], !variable.isEmpty { return variable }
        return nil
    }

    /// The directory: `--state` or `$MONITOR_STATE`, else the XDG default.
    var directory: URL {
        if let given { return URL(fileURLWithPath: given) }
        return SQLiteStateStore.defaultDirectory(environment: ProcessInfo.processInfo.environment)
    }

    /// The PostgreSQL database named (its password from `$PGPASSWORD` when the URL has none), nil when the state is a
    /// directory; a malformed URL prints why and exits 1.
    private func database() throws -> PostgresURL? {
        guard let given, PostgresURL.names(given) else { return nil }
        do {
            var url = try PostgresURL(parsing: given)
            // As libpq: a URL without a password takes $PGPASSWORD's, which `ps` does not show.
            if url.password == nil { url.password = ProcessInfo.processInfo.environment["PGPASSWORD"] }
            return url
        } catch {
            throw failure(error)
        }
    }

    /// Opens the state, creating it when needed; on failure prints why and exits 1.
    func open() async throws -> any StateStoring {
        let database = try database()
        do {
            if let database { return try await PostgresStateStore.open(database) }
            let store = try SQLiteStateStore(directory: directory)
            if let notice = store.notice { Console.error("monitor: warning: \(notice)\n") }
            return store
        } catch {
            throw failure(error)
        }
    }

    /// Opens the state when it is a PostgreSQL database, whose rate budgets the instances running on it share (see
    /// ``RateBudgetStoring``); nil for a directory, which is left alone. On failure prints why and exits 1.
    func openShared() async throws -> (any StateStoring)? {
        guard try database() != nil else { return nil }
        return try await open()
    }

    /// Opens the state for reading only (nothing is created or written), nil when there is none yet; on failure
    /// prints why and exits 1, or throws what `unreachable` makes of a state that cannot be reached.
    func openForReading(unreachable: ((StateError) -> ExitCode)? = nil) async throws -> (any StateStoring)? {
        let database = try database()
        do {
            if let database { return try await PostgresStateStore.reading(database) }
            return try SQLiteStateStore.reading(directory: directory)
        } catch {
            if let unreachable, let error = error as? StateError, error.isUnreachable { throw unreachable(error) }
            throw failure(error)
        }
    }

    /// The state, opened for reading, and its record of the feed `name`; when either is missing, prints why (with
    /// the stored feeds, or how to store some) as `monitor COMMAND: error: …` and exits 1.
    func storedFeed(_ name: String, command: String) async throws -> (any StateStoring, FeedRecord) {
        let opened = try await openForReading()
        guard let store = opened, let record = try await store.record(feed: name) else {
            let known = try await opened?.feedNames() ?? []
            let hint =
                known.isEmpty
                ? "nothing is stored yet: run `monitor run --once` first"
                : (Suggestion.closest(to: name, in: known).map { "did you mean '\($0)'? " } ?? "")
                    + "stored feeds: \(known.joined(separator: ", "))"
            Console.error("monitor \(command): error: no stored feed named '\(name)' (\(hint))\n")
            throw ExitStatus.failure
        }
        return (store, record)
    }

    /// Prints why the state cannot be opened, and returns the exit code that says so.
    func failure(_ error: any Error) -> ExitCode {
        let reason = error is StateError ? "\(error)" : "\(directory.path): \(error.localizedDescription)"
        Console.error("monitor: error: cannot open the state: \(reason)\n")
        return ExitStatus.failure
    }
}

/// How a command prints its results.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}
