import ArgumentParser
import MonitorCore

extension MonitorCommand {
    /// `monitor sources`: each feed type with its options, defaults and docs, from the sources' declarations.
    struct Sources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources",
            abstract: "List the feed types and notifier types with their options, defaults and docs."
        )

        /// Accepted so that one command line serves every subcommand; the list comes from the built-in sources.
        @OptionGroup(visibility: .hidden) var configOptions: ConfigOptions
        /// Accepted so that one command line serves every subcommand; `sources` reads no state.
        @OptionGroup(visibility: .hidden) var stateOptions: StateOptions

        func run() async throws {
            Console.out(SourcesListing.render(Registry.sources, notifiers: Registry.notifiers))
        }
    }
}
