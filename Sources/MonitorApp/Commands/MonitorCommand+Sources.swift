import ArgumentParser
import MonitorCore

extension MonitorCommand {
    /// `monitor sources`: each feed type with its options, defaults and docs, from the sources' declarations.
    struct Sources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the feed types with their options, defaults and docs."
        )

        func run() async throws {
            Console.out(SourcesListing.render(Registry.sources))
        }
    }
}
