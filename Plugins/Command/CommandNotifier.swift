import MonitorCore
import MonitorOptions
import MonitorPrograms
import MonitorText

/// The `command` notifier: a program run once per notification, from an argv (never through a shell), with the
/// notification's schema-1 json body on its standard input and `MONITOR_NOTIFICATION_ID`, `MONITOR_FEED`,
/// `MONITOR_EVENT` and `MONITOR_NOTIFIER` in its environment. Exit 0 means delivered; any other end (another exit, a
/// signal, a run past `timeout`, which ends its whole process group, a program that cannot start) is retried.
package struct CommandNotifier: Notifier {
    package static let type = "command"
    package static let summary = "A program run per notification, the json body on its standard input"

    /// `command`: the program and its arguments.
    static let command = FeedOption<[String]?>(
        "command", .list(placeholder: "words"), required: true,
        doc: "The program and its arguments, run without a shell, e.g. [./bin/on-new-items, --verbose]")
    /// `timeout`: the time limit of one run.
    static let timeout = FeedOption<Duration>(
        "timeout", .duration(), default: .seconds(30), doc: "Time limit of one run; its process group is then ended")
    /// `env`: environment variables for the program (secret: never shown).
    static let env = FeedOption<[String: String]?>(
        "env", .mapping(placeholder: "NAME: value", key: ProgramEnvironment.checkName), secret: true,
        doc: "Environment variables for the program, e.g. {TOKEN: \"${CHAT_TOKEN}\"}")

    package static let options: [any OptionDeclaration] = [command, timeout, env]

    /// The command names at least the program.
    package static func check(_ options: FeedOptions) -> [Diagnostic] {
        guard let command = options[Self.command], command.isEmpty else { return [] }
        return [
            .error(
                "'command' must name the program to run and its arguments, like [./notify.sh, --verbose]",
                at: options.location(of: Self.command.name))
        ]
    }

    private let name: String
    let run: CommandRun

    package init(name: String, options: FeedOptions, context: NotifierContext) {
        self.name = name
        run = CommandRun(
            program: ProgramRun(
                command: options[Self.command] ?? [], directory: options.directory,
                environment: ProgramEnvironment.make(env: options[Self.env] ?? [:], from: context.environment),
                timeout: options[Self.timeout], redaction: Redaction(values: Array((options[Self.env] ?? [:]).values)),
                stderrCapacity: CommandRun.stderrLimit, sleep: context.sleep))
    }

    package var target: String { run.name }

    package func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        try await run.deliver(notification)
    }
}
