import ArgumentParser
import Foundation
import MonitorCore

/// The `--state` option of the commands that read or write the stored state.
struct StateOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The state directory (default: $XDG_STATE_HOME/monitor, else ~/.local/state/monitor).", valueName: "dir"))
    var state: String?

    /// The directory: `--state`, else the XDG default.
    var directory: URL {
        if let state { return URL(fileURLWithPath: state) }
        return StateStore.defaultDirectory(environment: ProcessInfo.processInfo.environment)
    }

    /// Opens the state, creating it when needed; on failure prints why and exits 1.
    func open() throws -> StateStore {
        do {
            return try StateStore(directory: directory)
        } catch {
            throw failure(error)
        }
    }

    /// Opens the state for reading only (nothing is created or written), nil when there is none yet; on failure
    /// prints why and exits 1.
    func openForReading() throws -> StateStore? {
        do {
            return try StateStore.reading(directory: directory)
        } catch {
            throw failure(error)
        }
    }

    private func failure(_ error: any Error) -> ExitCode {
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
