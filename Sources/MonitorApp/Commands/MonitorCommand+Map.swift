import ArgumentParser
import Foundation
import MonitorCore

extension MonitorCommand {
    /// `monitor map NAME`: a world map of a feed's stored items that have a position, offline.
    struct Map: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "map",
            abstract: "Draw a world map of a feed's stored items that have a position (offline).",
            discussion: """
                Each group has its own symbol (and colour on a terminal, unless NO_COLOR is set); the legend below \
                the map says how many of each group's items are on it and how many have no position.
                Example: monitor map planet --group wildfires --days 30
                """
        )

        @OptionGroup var selection: ItemSelection

        @Option(help: "The map's width in columns, 1–1000 (default: the terminal's, else 100).")
        var width: Int?

        @Option(
            help: "The map's height in rows, the legend excluded, 1–500 (default: what the terminal leaves, else 30).")
        var height: Int?

        @OptionGroup var stateOptions: StateOptions
        /// Accepted so that one command line serves every subcommand; the stored state is all `map` reads.
        @OptionGroup(visibility: .hidden) var configOptions: ConfigOptions

        func validate() throws {
            if let width, !(1...WorldMap.maxColumns).contains(width) {
                throw ValidationError("--width must be between 1 and \(WorldMap.maxColumns), not \(width)")
            }
            if let height, !(1...WorldMap.maxRows).contains(height) {
                throw ValidationError("--height must be between 1 and \(WorldMap.maxRows), not \(height)")
            }
        }

        func run() async throws {
            let (store, _) = try await stateOptions.storedFeed(selection.name, command: "map")
            _ = try await selection.groupTitle(in: store, command: "map")
            let now = Date()
            // Every stored item is read: a group's symbol is its place among the feed's groups with items, any day.
            let stored = StoredFeed(
                feed: selection.name, catalog: try await store.groups(feed: selection.name),
                items: try await store.items(feed: selection.name, group: nil, since: nil, limit: nil),
                breakdownDetail: nil)
            let items = stored.items(within: selection.days, now: now).filter { item in
                selection.group.map(item.groups.contains) ?? true
            }
            let ids =
                selection.group.map { [$0] }
                ?? stored.groups(within: selection.days, now: now).filter { $0.count > 0 }.map(\.id)
            let groups = WorldMap.legend(ids, of: stored, now: now)
            let screen = isatty(STDOUT_FILENO) == 1 ? TerminalSession.size() : (width: 100, height: 30)
            // On a terminal the map leaves room for the legend and the prompt.
            let rows = height ?? (isatty(STDOUT_FILENO) == 1 ? max(screen.height - groups.count - 1, 4) : 30)
            let map = WorldMap(
                columns: width ?? screen.width, rows: rows, colour: Console.colors(onStandardError: false))
            Console.out(map.lines(items: items, groups: groups).joined(separator: "\n") + "\n")
        }
    }
}
