import ArgumentParser
import Foundation
import MonitorCore
import MonitorItems
import MonitorText

extension MonitorCommand {
    /// `monitor notify`: the notifiers of the feeds file.
    struct Notify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notify",
            abstract: "Work with the notifiers of the feeds file (its `notify:` list).",
            subcommands: [Test.self]
        )

        /// `monitor notify test NAME`: sends a sample notification through one notifier now.
        struct Test: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "test",
                abstract: "Send a sample notification through a notifier now and print the answer.",
                discussion: """
                    The sample is a `new` event of the feed `monitor-test` with one item, in the notifier's format, \
                    with an id of its own (to a notifier with `digest:`, a `digest` combining it, as it will really \
                    receive); it is not written to the state. Exits 0 when the receiver accepted it \
                    (HTTP 2xx, exit 0), 1 when it did not. A signal that stops `run --once` (SIGINT, SIGTERM, SIGHUP, …) \
                    cancels the delivery, ending a command's program, and it exits 128 + the signal's number.
                    """
            )

            @Argument(help: "The notifier's name, as in the feeds file.")
            var name: String

            @OptionGroup var options: ConfigOptions
            /// Accepted so that one command line serves every subcommand; `notify test` reads no state.
            @OptionGroup(visibility: .hidden) var stateOptions: StateOptions

            func run() async throws {
                let config = try options.load()
                guard let notifier = config.notifiers.first(where: { $0.name == name }) else {
                    let known = config.notifiers.map(\.name)
                    let hint =
                        known.isEmpty
                        ? "the feeds file has no `notify:` list"
                        : (Suggestion.closest(to: name, in: known).map { "did you mean '\($0)'? " } ?? "")
                            + "notifiers: \(known.joined(separator: ", "))"
                    Console.error(
                        "monitor notify test: error: no notifier named '\(TerminalText.sanitized(name))' (\(hint))\n")
                    throw ExitStatus.failure
                }
                let transport = NotifierSet.transport()
                guard
                    let instance = NotifierSet.make(
                        [notifier], settings: config.settings, transport: transport)[notifier.name]
                else { throw ExitStatus.failure }
                let now = Date()
                let new = FeedNotification(
                    id: "test-" + UUID().uuidString.lowercased(), notifier: notifier.name, feed: "monitor-test",
                    type: "test", event: .new, at: now, total: 1,
                    items: [
                        Item(
                            id: "monitor-test-1", title: "A test notification from monitor", date: now, groups: [])
                    ])
                // A digest notifier only ever gets digests: the sample is shaped like them, so that its receiver's
                // handling of a digest is what the test tries.
                let sample =
                    notifier.digestPeriod == nil ? new : .digest(of: [new], notifier: notifier.name, at: now)
                // Trapped before the delivery starts: a signal cancels it (ending a command notifier's program)
                // instead of killing `monitor` and leaving the program running.
                let signals = await StopSignals.trap()
                let (result, signal) = try await StopSignals.run(stoppingOn: signals) {
                    () async -> Result<DeliveryReceipt, any Error> in
                    do {
                        return .success(try await instance.deliver(sample))
                    } catch {
                        return .failure(error)
                    }
                }
                try? await transport.shutdown()
                if let signal {
                    Console.error("monitor notify test: \(signal) received: the delivery was cancelled\n")
                    throw ExitStatus.stopped(by: signal)
                }
                switch result {
                case .success(let receipt):
                    Console.out("\(notifier.name): delivered to \(instance.target): \(receipt.answer)\n")
                case .failure(let error):
                    let refused = (error as? DeliveryError).map { if case .permanent = $0 { true } else { false } }
                    let verdict = refused == true ? "refused" : "not delivered"
                    Console.error(
                        "monitor notify test: \(notifier.name): \(verdict): \(TerminalText.sanitized("\(error)"))\n")
                    throw ExitStatus.failure
                }
            }
        }
    }
}
