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

    /// Opens the state; on failure prints why and exits 1.
    func open() throws -> StateStore {
        do {
            return try StateStore(directory: directory)
        } catch {
            Console.error("monitor: error: cannot open the state in \(directory.path): \(error)\n")
            throw ExitStatus.failure
        }
    }
}

/// How a command prints its results.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}
