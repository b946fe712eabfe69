import ArgumentParser
import Foundation
import MonitorCore

extension MonitorCommand {
    /// `monitor status`: each feed's last poll, status, last error and item count, offline.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show each feed's last poll, status, last error and item count (offline)."
        )

        @OptionGroup var options: ConfigOptions
        @OptionGroup var stateOptions: StateOptions

        @Option(help: "Output format: text or json.")
        var format: OutputFormat = .text

        func run() async throws {
            let stored = try await stateOptions.openForReading()?.records() ?? []
            // The feeds of the feeds file first, in its order (also those never polled), then any others stored.
            let loaded = ConfigLoader().load(path: options.path)
            var records: [FeedRecord] = []
            for feed in loaded.config?.feeds ?? [] {
                records.append(stored.first { $0.name == feed.name } ?? FeedRecord(name: feed.name, type: feed.type))
            }
            records += stored.filter { record in !records.contains { $0.name == record.name } }
            switch format {
            case .json:
                Console.out(JSONValue.array(records.map(StatusListing.json)).text + "\n")
            case .text:
                Console.out(StatusListing.text(records, now: Date()))
            }
        }
    }
}
