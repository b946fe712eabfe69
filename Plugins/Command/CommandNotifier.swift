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

    static let command = FeedOption<[String]?>(
        "command", .list(placeholder: "words"), required: true,
        doc: "The program and its arguments, run without a shell, e.g. [./bin/on-new-items, --verbose]")
    static let timeout = FeedOption<Duration>(
        "timeout", .duration(), default: .seconds(30), doc: "Time limit of one run; its process group is then ended")
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

    /// The most characters of standard error a message shows.
    static let stderrLimit = 300

    /// The program, its environment without the notification's variables, and how it is run.
    let program: ProgramRun

    package init(name: String, options: FeedOptions, context: NotifierContext) {
        program = ProgramRun(
            command: options[Self.command] ?? [], directory: options.directory,
            environment: ProgramEnvironment.make(env: options[Self.env] ?? [:], from: context.environment),
            timeout: options[Self.timeout], redaction: Redaction(values: Array((options[Self.env] ?? [:]).values)),
            stderrCapacity: Self.stderrLimit, sleep: context.sleep)
    }

    package var target: String { program.name }

    /// Runs the program for `notification` with its JSON on standard input and its variables added to the
    /// environment; returns when it exited 0, else throws a retryable ``DeliveryError``, also when the program cannot
    /// start (no such file, not executable, …): a fault of the setup, like a receiver down.
    package func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        var program = program
        program.environment["MONITOR_NOTIFICATION_ID"] = notification.id
        program.environment["MONITOR_NOTIFIER"] = notification.notifier
        program.environment["MONITOR_FEED"] = notification.feed
        program.environment["MONITOR_EVENT"] = notification.event.rawValue
        do {
            try await program.run(input: notification.jsonBody(), output: .discarded, stderr: \.last) { _ in }
        } catch let failure as ProgramRun.Failure {
            throw DeliveryError.retry(failure.message)
        }
        return DeliveryReceipt("exit 0")
    }
}
