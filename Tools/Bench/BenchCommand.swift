import ArgumentParser

/// `monitor-bench`: measurements of the monitor's own code that need no server.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor-bench",
        abstract: "Measure the monitor's own code on local files.",
        subcommands: [Decode.self, GitHubEvents.self, StateWrite.self, OutboxCost.self])
}
