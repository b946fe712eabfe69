import Foundation
import MonitorCore
import Subprocess

/// One notifier program and how it is run: in a process group of its own, its input in an unlinked file, its
/// standard error kept to its last bytes, its whole group ended when it runs past `timeout` or is cancelled, and what
/// it left running when it ended killed (in its group or out of it: see ``ProgramSupervisor``).
struct CommandRun: Sendable {
    var command: [String]
    /// Where it runs, which a relative program path is resolved from (the feeds file's directory); nil for the
    /// current one.
    var directory: String?
    /// How long one run may take.
    var timeout: Duration
    /// Its environment, without the notification's variables.
    var variables: [String: String]
    /// What must never show: the values of the notifier's `env`.
    var redaction = Redaction(values: [])
    /// How long a program sent SIGTERM has before SIGKILL.
    var grace: Duration = .milliseconds(500)
    /// How the timeout is waited for.
    var sleep: @Sendable (Duration) async throws -> Void

    /// The most bytes of standard error kept for a message.
    static let stderrLimit = 300

    /// The program's name as messages show it.
    var name: String { "'\(TerminalText.sanitized(command.first ?? ""))'" }

    /// Runs the program for `notification`; returns when it exited 0, else throws a retryable ``DeliveryError``, also
    /// when the program cannot start (no such file, not executable, …): a fault of the setup, like a receiver down.
    func deliver(_ notification: FeedNotification) async throws -> DeliveryReceipt {
        var environment = variables
        environment["MONITOR_NOTIFICATION_ID"] = notification.id
        environment["MONITOR_NOTIFIER"] = notification.notifier
        environment["MONITOR_FEED"] = notification.feed
        environment["MONITOR_EVENT"] = notification.event.rawValue
        let input = notification.jsonBody()
        let variables = environment
        let group = ProcessGroup()
        // Past the timeout the program is cancelled, which ends its group, and its end is waited for.
        return try await withDeadline(
            timeout,
            orThrow: DeliveryError.retry(
                "\(name) was still running after the timeout (\(DurationFormat.string(timeout))): ended"),
            sleep: sleep
        ) { try await runProgram(input: input, environment: variables, group: group) }
    }

    private func runProgram(input: [UInt8], environment: [String: String], group: ProcessGroup) async throws
        -> DeliveryReceipt
    {
        guard let program = command.first else { throw DeliveryError.permanent("'command' is empty") }
        var platform = PlatformOptions()
        platform.processGroupID = 0
        platform.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: grace)]
        var keys: [Environment.Key: String] = [:]
        for (name, value) in environment {
            if let key = Environment.Key(rawValue: name) { keys[key] = value }
        }
        let configuration = Configuration(
            executable: program.contains("/")
                ? .path(.init(ProgramPath.resolved(program, in: directory))) : .name(program),
            arguments: Arguments(Array(command.dropFirst())), environment: .custom(keys),
            workingDirectory: directory.map { .init($0) }, platformOptions: platform)
        let stdin: Int32
        do {
            stdin = try ProgramInput.file(input)
        } catch {
            throw DeliveryError.retry(error.description)
        }
        let result: ExecutionResult<([UInt8], Bool), DiscardedOutput, SequenceOutput>
        do {
            let window = self.window
            result = try await group.run {
                try await Subprocess.run(
                    configuration, input: .fileDescriptor(.init(rawValue: stdin), closeAfterSpawningProcess: true),
                    output: .discarded, error: .sequence
                ) { execution in
                    await group.started(execution.processIdentifier.value)
                    var tail: [UInt8] = []
                    var cut = false
                    for try await chunk in execution.standardError {
                        chunk.withUnsafeBytes { tail += $0 }
                        if tail.count > 4 * window {
                            tail.removeFirst(tail.count - window)
                            cut = true
                        }
                    }
                    if tail.count > window {
                        tail.removeFirst(tail.count - window)
                        cut = true
                    }
                    return (tail, cut)
                }
            }
        } catch let error as SubprocessError {
            let problem =
                error.code == .executableNotFound
                ? ProgramPath.problem(program, searchPath: environment["PATH"], directory: directory) : "\(error)"
            throw DeliveryError.retry("cannot start \(name): \(redaction.message(problem, limit: 300))")
        }
        let stderr = shown(stderr: result.closureResult.0, cut: result.closureResult.1)
        let said = stderr.isEmpty ? "" : ": \(stderr)"
        switch result.terminationStatus {
        case .exited(0):
            return DeliveryReceipt("exit 0")
        case .exited(let code):
            throw DeliveryError.retry("\(name) exited with status \(code)\(said)")
        case .signaled(let signal):
            throw DeliveryError.retry("\(name) was ended by signal \(signal)\(said)")
        }
    }

    /// The most bytes of standard error kept: the limit and room for a secret straddling its start.
    private var window: Int { Self.stderrLimit + redaction.longest }

    /// The last bytes of standard error (`cut` when earlier ones were dropped) as a message may show them: its last
    /// ``stderrLimit`` characters once its secrets are hidden (see ``Redaction``), the end of one at its start too.
    func shown(stderr tail: [UInt8], cut: Bool) -> String {
        redaction.message(
            String(decoding: tail, as: UTF8.self), limit: Self.stderrLimit, keeping: .last, cutBefore: cut)
    }
}
