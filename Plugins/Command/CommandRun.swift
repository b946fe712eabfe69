import Foundation
import MonitorCore
import MonitorPrograms

/// One notifier program (how it is started and ended: ``ProgramRun``), run for each notification with its JSON on
/// standard input and the notification's variables added to its environment.
struct CommandRun: Sendable {
    /// The program, its environment without the notification's variables, and how it is run.
    var program: ProgramRun

    /// The most characters of standard error a message shows.
    static let stderrLimit = 300

    /// The program's name as messages show it.
    var name: String { program.name }

    /// Runs the program for `notification`; returns when it exited 0, else throws a retryable ``DeliveryError``, also
    /// when the program cannot start (no such file, not executable, …): a fault of the setup, like a receiver down.
    func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
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
