import ArgumentParser
import Foundation
import MonitorCore

extension MonitorCommand {
    /// `monitor events NAME`: a feed's stored items, newest first, offline.
    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "events",
            abstract: "List a feed's stored items, newest first (offline).",
            discussion: "Example: monitor events planet --group wildfires --days 30"
        )

        @Argument(help: "The feed's name, as in the feeds file.")
        var name: String

        @OptionGroup var selection: ItemSelection

        @Option(help: "At most N items.")
        var limit: Int?

        @Option(help: "Output format: text or json.")
        var format: OutputFormat = .text

        @OptionGroup var stateOptions: StateOptions
        /// Accepted so that one command line serves every subcommand; the stored state is all `events` reads.
        @OptionGroup(visibility: .hidden) var configOptions: ConfigOptions

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() async throws {
            let (store, record) = try await stateOptions.storedFeed(name, command: "events")
            // The database selects the items (`--group`, `--days` and `--limit` through its indexes).
            let now = Date()
            let items = try await store.items(
                feed: name, group: selection.group, since: selection.since(now: now), limit: limit)
            switch format {
            case .json:
                Console.out(JSONValue.array(items.map { $0.json() }).text + "\n")
            case .text:
                let columns = Registry.source(named: record.type)?.detailColumns ?? []
                Console.out(EventsListing.text(items, columns: columns))
            }
        }
    }
}
