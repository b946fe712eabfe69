import ArgumentParser
import Logging
import MonitorCore

extension MonitorCommand {
    /// `monitor validate`: checks the feeds file and reports every problem with its line and column; with
    /// `--online`, then asks each feed's and notifier's service whether what it names exists.
    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check the feeds file and report every problem with its line and column.",
            discussion: """
                Exits 0 when the file is valid, 2 when it is not. With --online, a valid file's feeds and notifiers \
                are then checked against their services without polling them (a GitHub repository, organisation, \
                user or search, its token's scopes and rate limit; EONET's categories; an exec or command \
                program; a webhook's host, to which nothing is sent): one line each, ok, wrong or could not check \
                (no network, a timeout, a rate limit), then a count. Exits 1 when a check found something wrong, \
                0 when every check is ok or could not be made.
                """
        )

        @OptionGroup var options: ConfigOptions
        /// Accepted so that one command line serves every subcommand; `validate` reads no state, but for
        /// `--online` with a PostgreSQL state, whose shared rate budgets the checks take from.
        @OptionGroup(visibility: .hidden) var stateOptions: StateOptions

        @Flag(help: "Then check each feed and notifier against its service, without polling it.")
        var online = false

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
            if online { try await checkOnline(config) }
        }

        /// Prints each feed's and notifier's check and the count; exits 1 when one found something wrong.
        private func checkOnline(_ config: MonitorConfig) async throws {
            let settings = config.settings
            var logger = Logger(label: "monitor") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = .warning
            // The checks spend from the budgets `run` instances share in a PostgreSQL state, like their polls.
            let shared = try await stateOptions.openShared() as? any RateBudgetStoring
            // A check follows no redirect: it says where one goes (a cloud's metadata address, a local port).
            let transport = HTTPClientTransport(
                timeout: settings.timeout, concurrency: settings.concurrency, followRedirects: false)
            let notifierTransport = NotifierSet.transport()
            var validation = OnlineValidation(
                config: config, transport: transport, notifierTransport: notifierTransport, logger: logger)
            if let shared {
                validation.budgets = RateBudgets(
                    sharing: RateBudgets.Sharing(store: shared, flight: settings.timeout * 2, logger: logger))
            }
            let lines = await validation.run { Console.out($0.text + "\n") }
            try? await transport.shutdown()
            try? await notifierTransport.shutdown()
            Console.out(OnlineValidation.count(lines) + "\n")
            if lines.contains(where: { if case .wrong = $0.check { true } else { false } }) {
                throw ExitStatus.failure
            }
        }
    }
}
