import ArgumentParser
import MonitorCore

extension MonitorCommand {
    /// `monitor run`: polls the feeds of the feeds file.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Poll the feeds of the feeds file."
        )

        @OptionGroup var options: ConfigOptions

        func run() async throws {
            let config = try options.load()
            Console.out("\(options.path): \(config.feeds.count) feeds valid; polling is not built yet\n")
        }
    }
}
