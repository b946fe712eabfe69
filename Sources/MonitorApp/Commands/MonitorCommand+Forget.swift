import ArgumentParser
import Foundation
import MonitorCore

extension MonitorCommand {
    /// `monitor forget NAME`: removes everything the state holds of a feed, in one transaction.
    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forget",
            abstract: "Remove a feed's stored data: its record, items, groups, validators and values.",
            discussion: """
                On a terminal it asks first; otherwise only --yes forgets. The notifications its polls wrote stay in \
                their notifiers' outbox. A feed still in the feeds file may be forgotten too: its next poll starts \
                afresh, as its first one did. A `monitor run` polling the feed writes it again at its next poll.
                """
        )

        @Argument(help: "The feed's name, as `monitor status` lists it.")
        var name: String

        @Flag(help: "Forget without asking (required when standard input is not a terminal).")
        var yes = false

        @OptionGroup var options: ConfigOptions
        @OptionGroup var stateOptions: StateOptions

        func run() async throws {
            let (_, record) = try await stateOptions.storedFeed(name, command: "forget")
            let configured = ConfigLoader().load(path: options.path).config?.feeds.contains { $0.name == name } ?? false
            let items = "\(record.itemCount) item\(record.itemCount == 1 ? "" : "s")"
            let note = configured ? " (still in \(options.path): its next poll starts afresh)" : ""
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    Console.error(
                        "monitor forget: error: standard input is not a terminal: pass --yes to forget '\(name)'\n")
                    throw ExitStatus.failure
                }
                Console.error("Forget feed '\(name)' and its \(items)\(note)? [y/N] ")
                guard let answer = readLine()?.lowercased(), answer == "y" || answer == "yes" else {
                    Console.error("nothing forgotten\n")
                    return
                }
            }
            let store = try await stateOptions.open()
            do {
                try await store.forget(feed: name)
            } catch {
                Console.error("monitor forget: error: \(error)\n")
                throw ExitStatus.failure
            }
            Console.out("forgot feed '\(name)': its record and \(items)\(note)\n")
        }
    }
}
