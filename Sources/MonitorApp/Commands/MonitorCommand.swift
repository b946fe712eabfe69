import ArgumentParser
import MonitorCore
import MonitorPrograms

/// `monitor`: the root command.
package struct MonitorCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract:
            "Watch GitHub activity, NASA natural events, RSS, Atom and JSON feeds, any JSON API and what programs report, as feeds.yaml says.",
        discussion: """
            The feeds file is ./feeds.yaml, or $MONITOR_CONFIG when set, or the file named by --config.
            `monitor sources` lists every feed type and notifier type with its options.

            Exit codes: 0 success; 1 some feed failed (or the command could not do its work); \
            2 invalid feeds file; 64 bad command-line usage.
            """,
        version: MonitorVersion.current,
        subcommands: [
            Run.self, Events.self, Map.self, Status.self, Forget.self, Validate.self, Sources.self, Notify.self,
            Init.self,
        ]
    )

    package init() {}

    /// The executable's start, before `main()`: makes standard output and error safe to write to (a closed pipe, a full
    /// disk, a closed stream); answers `monitor --version` alone, without building the commands first (their reflection
    /// costs more than the answer); raises the soft limit of open files to the hard one (the feeds' programs,
    /// connections, the state and the metrics server's connections); makes this process see to it that no program it
    /// runs outlives it, not even a daemon or after a SIGKILL (`ProgramSupervisor`: a test process never does). False
    /// when nothing is left to run. Called before the first `await`: the runtime's threads would take a closed
    /// descriptor's number.
    package static func prepare(arguments: ArraySlice<String>) -> Bool {
        Console.prepare()
        guard !arguments.elementsEqual(["--version"]) else {
            Console.out(MonitorVersion.current + "\n")
            return false
        }
        OpenFileLimit.raise()
        ProgramSupervisor.superviseThisProcess()
        return true
    }
}
