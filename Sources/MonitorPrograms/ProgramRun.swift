import Foundation
import MonitorConcurrency
import MonitorCore
import MonitorText
import Subprocess

/// How monitor runs a program (an exec source's, a command notifier's): in a process group of its own, its input in
/// an unlinked file, its standard error kept to its tail, the whole group ended when it runs past `timeout` or is
/// cancelled (SIGTERM, then SIGKILL after `grace`), and what it left running when it ended killed, in its group or out
/// of it (a daemon: see ``ProgramSupervisor``).
package struct ProgramRun: Sendable {
    package var command: [String]
    /// Where it runs, which a relative program path is resolved from (the feeds file's directory); nil for the
    /// current one.
    package var directory: String?
    /// Its whole environment.
    package var environment: [String: String]
    /// How long one run may take.
    package var timeout: Duration
    /// What its messages never show: the values of its `env` (a token passed on), wherever its standard error or a
    /// failure to start echoes them.
    package var redaction: Redaction
    /// The most bytes of standard error kept.
    package var stderrCapacity: Int
    /// How long a program sent SIGTERM has before SIGKILL.
    package var grace: Duration = .milliseconds(500)
    /// How the timeout is waited for.
    package var sleep: @Sendable (Duration) async throws -> Void

    package init(
        command: [String], directory: String?, environment: [String: String], timeout: Duration,
        redaction: Redaction, stderrCapacity: Int, sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.command = command
        self.directory = directory
        self.environment = environment
        self.timeout = timeout
        self.redaction = redaction
        self.stderrCapacity = stderrCapacity
        self.sleep = sleep
    }

    /// Why a run failed, said whole: the program's name, what happened, its redacted and bounded detail.
    package struct Failure: Error, Sendable {
        package var message: String
    }

    /// The program's name as messages show it.
    package var name: String { "'\(TerminalText.sanitized(command.first ?? ""))'" }

    /// The program can be started: found where a run looks for it (its directory, its `PATH`), a regular, executable
    /// file whose `#!` interpreter exists. Nothing is run.
    package func check() -> OnlineCheck {
        guard let program = command.first else { return .wrong("'command' is empty") }
        return ProgramPath.check(
            program, searchPath: environment["PATH"], directory: directory, redaction: redaction)
    }

    /// Runs the program with `input` on standard input, its standard output going to `output`, read by `body` while it
    /// runs; returns what `body` returned once the program exited 0. Throws a ``Failure`` when it cannot start, exits
    /// otherwise (`stderr` says what its tail adds to the message), or runs past the timeout; and what `body` throws.
    package func run<Output: OutputProtocol, Result: Sendable>(
        input: [UInt8], output: Output, group: ProcessGroup = ProcessGroup(),
        stderr shown: @escaping @Sendable (StderrTail) -> String,
        _ body: @escaping @Sendable (Execution<FileDescriptorInput, Output, SequenceOutput>) async throws -> Result
    ) async throws -> Result {
        guard let program = command.first else { throw Failure(message: "'command' is empty") }
        // Past the timeout the program is cancelled, which ends its group, and its end is waited for.
        return try await withDeadline(
            timeout,
            orThrow: Failure(
                message: "\(name) was still running after the timeout (\(DurationFormat.string(timeout))): ended"),
            sleep: sleep
        ) { try await run(program, input: input, output: output, group: group, stderr: shown, body) }
    }

    private func run<Output: OutputProtocol, Result: Sendable>(
        _ program: String, input: [UInt8], output: Output, group: ProcessGroup,
        stderr shown: @escaping @Sendable (StderrTail) -> String,
        _ body: @escaping @Sendable (Execution<FileDescriptorInput, Output, SequenceOutput>) async throws -> Result
    ) async throws -> Result {
        var platform = PlatformOptions()
        platform.processGroupID = 0
        platform.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: grace)]
        var variables: [Environment.Key: String] = [:]
        for (name, value) in environment {
            if let key = Environment.Key(rawValue: name) { variables[key] = value }
        }
        let configuration = Configuration(
            executable: program.contains("/")
                ? .path(.init(ProgramPath.resolved(program, in: directory))) : .name(program),
            arguments: Arguments(Array(command.dropFirst())), environment: .custom(variables),
            workingDirectory: directory.map { .init($0) }, platformOptions: platform)
        let stdin = try ProgramInput.file(input)
        let capacity = stderrCapacity
        let redaction = redaction
        let result: ExecutionResult<(Result, StderrTail), Output, SequenceOutput>
        do {
            result = try await group.run {
                try await Subprocess.run(
                    configuration, input: .fileDescriptor(.init(rawValue: stdin), closeAfterSpawningProcess: true),
                    output: output, error: .sequence
                ) { execution in
                    await group.started(execution.processIdentifier.value)
                    let errors = execution.standardError
                    async let tail = {
                        var tail = StderrTail(redaction: redaction, capacity: capacity)
                        for try await chunk in errors {
                            chunk.withUnsafeBytes { tail.append($0) }
                        }
                        return tail
                    }()
                    let value = try await body(execution)
                    return (value, try await tail)
                }
            }
        } catch let error as SubprocessError {
            switch error.code {
            case .executableNotFound:
                let problem = ProgramPath.problem(program, searchPath: environment["PATH"], directory: directory)
                throw Failure(message: "cannot start \(name): \(redaction.message(problem, limit: 300))")
            case .spawnFailed:
                throw Failure(message: "cannot start \(name): \(redaction.message("\(error)", limit: 300))")
            default: throw Failure(message: "\(name): \(redaction.message("\(error)", limit: 300))")
            }
        }
        let stderr = shown(result.closureResult.1)
        let said = stderr.isEmpty ? "" : ": \(stderr)"
        switch result.terminationStatus {
        case .exited(0): return result.closureResult.0
        case .exited(let code): throw Failure(message: "\(name) exited with status \(code)\(said)")
        case .signaled(let signal): throw Failure(message: "\(name) was ended by signal \(signal)\(said)")
        }
    }
}
