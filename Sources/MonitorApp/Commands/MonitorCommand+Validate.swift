import ArgumentParser
import MonitorCore

extension MonitorCommand {
    /// `monitor validate`: checks the feeds file and reports every problem with its line and column.
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check the feeds file and report every problem with its line and column.",
            discussion: "Exits 0 when the file is valid, 2 when it is not."
        )

        @OptionGroup var options: ConfigOptions
        /// Accepted so that one command line serves every subcommand; `validate` reads no state.
        @OptionGroup(visibility: .hidden) var stateOptions: StateOptions

        func run() async throws {
            let config = try options.load()
            let feeds = config.feeds.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")
            let notifiers =
                config.notifiers.isEmpty
                ? ""
                : "; \(config.notifiers.count) notifier\(config.notifiers.count == 1 ? "" : "s"): "
                    + config.notifiers.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")
            Console.out(
                "\(options.path): ok, \(config.feeds.count) feed\(config.feeds.count == 1 ? "" : "s"): \(feeds)"
                    + notifiers + "\n")
        }
    }
}
