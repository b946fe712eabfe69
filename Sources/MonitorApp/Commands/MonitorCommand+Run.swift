import ArgumentParser
import Foundation
import Logging
import MonitorCore

extension MonitorCommand {
    /// `monitor run`: polls the feeds of the feeds file.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Poll the feeds of the feeds file.",
            discussion: """
                With --once, every feed is polled once, concurrently, and the command exits: 0 when every feed \
                succeeded, 1 when any failed or partly failed, 2 when the feeds file is invalid.
                --format json prints one JSON object per feed polled, one per line.
                """
        )

        @OptionGroup var options: ConfigOptions
        @OptionGroup var stateOptions: StateOptions

        @Flag(help: "Poll every feed once, print the summaries and exit.")
        var once = false

        @Option(help: "Output format: text or json.")
        var format: OutputFormat = .text

        @Flag(help: "Log every request to standard error.")
        var verbose = false

        func run() async throws {
            let config = try options.load()
            guard once else {
                Console.error("monitor run: watching continuously is not built yet; use `monitor run --once`\n")
                throw ExitStatus.usage
            }
            let store = try stateOptions.open()
            let reports = try await PollSession(config: config, store: store, format: format, verbose: verbose)
                .runOnce()
            if reports.contains(where: \.isFailure) { throw ExitStatus.failure }
        }
    }
}
