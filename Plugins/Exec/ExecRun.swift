import Foundation
import MonitorCore
import Subprocess

/// One run of an exec program: started in a process group of its own with its input on standard input, its
/// standard output read as messages as they come, its standard error kept to its last lines.
///
/// The run succeeds when the program exits 0. It fails — throwing a ``SourceError`` that says why — when the
/// program cannot start, exits otherwise, writes a line that is not a message or more than `maxOutput` bytes,
/// or is still running after `timeout`. A failed or cancelled run ends the whole process group: SIGTERM, then
/// SIGKILL after `grace`; whatever the program left running when it ended is killed too, in its group or out of it
/// (a daemon: see ``ProgramSupervisor``).
struct ExecRun: Sendable {
    var command: [String]
    /// Where it runs, which a relative program path is resolved from (the feeds file's directory); nil for the
    /// current one.
    var directory: String?
    /// Its whole environment.
    var environment: [String: String]
    /// What it reads on standard input.
    var input: String
    /// How long it may run.
    var timeout: Duration
    /// The most bytes it may write on standard output.
    var maxOutput: Int
    /// What its messages never show: the feed's `env` values (a token passed on), wherever its standard error or a
    /// failure to start echoes them.
    var redaction = Redaction(values: [])
    /// How long a program that was sent SIGTERM has before SIGKILL.
    var grace: Duration = .milliseconds(500)
    /// How the timeout is waited for.
    var sleep: @Sendable (Duration) async throws -> Void
    /// The program's process group while it runs.
    var processGroup = ProcessGroup()

    /// Runs the program, handing the messages of each chunk of output to `handle` as they are read; returns when
    /// it exited 0.
    func run(_ handle: @escaping @Sendable ([ExecMessage]) -> Void) async throws {
        // Past the timeout the program is cancelled, which ends it, and its end is waited for.
        try await withDeadline(
            timeout,
            orThrow: SourceError(
                "\(name) was still running after the timeout (\(DurationFormat.string(timeout))): ended"),
            sleep: sleep
        ) { try await runProgram(handle) }
    }

    /// The program's name as messages show it.
    var name: String { "'\(TerminalText.sanitized(command.first ?? ""))'" }

    private func runProgram(_ handle: @escaping @Sendable ([ExecMessage]) -> Void) async throws {
        guard let program = command.first else { throw SourceError("'command' is empty") }
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
        let stdin: Int32
        do {
            stdin = try ProgramInput.file(Array(input.utf8))
        } catch {
            throw SourceError(error.description)
        }

        let result: ExecutionResult<String, SequenceOutput, SequenceOutput>
        do {
            result = try await processGroup.run {
                try await Subprocess.run(
                    configuration, input: .fileDescriptor(.init(rawValue: stdin), closeAfterSpawningProcess: true),
                    output: .sequence, error: .sequence
                ) { execution in
                    await processGroup.started(execution.processIdentifier.value)
                    return try await self.communicate(
                        output: execution.standardOutput, errors: execution.standardError, handle)
                }
            }
        } catch let error as SubprocessError {
            switch error.code {
            case .executableNotFound:
                let problem = ProgramPath.problem(program, searchPath: environment["PATH"], directory: directory)
                throw SourceError("cannot start \(name): \(redaction.message(problem, limit: 300))")
            case .spawnFailed: throw SourceError("cannot start \(name): \(redaction.message("\(error)", limit: 300))")
            default: throw SourceError("\(name): \(redaction.message("\(error)", limit: 300))")
            }
        }
        let stderr = result.closureResult
        switch result.terminationStatus {
        case .exited(0):
            return
        case .exited(let code):
            throw SourceError("\(name) exited with status \(code)" + (stderr.isEmpty ? "" : ": \(stderr)"))
        case .signaled(let signal):
            throw SourceError("\(name) was ended by signal \(signal)" + (stderr.isEmpty ? "" : ": \(stderr)"))
        }
    }

    /// Reads standard output as messages and standard error into its tail until both end; returns the tail.
    private func communicate(
        output: SubprocessOutputSequence, errors: SubprocessOutputSequence,
        _ handle: @escaping @Sendable ([ExecMessage]) -> Void
    ) async throws -> String {
        try await withThrowingTaskGroup(of: String.self) { readers in
            readers.addTask {
                var tail = StderrTail(redaction: redaction)
                for try await chunk in errors {
                    chunk.withUnsafeBytes { tail.append($0) }
                }
                return tail.text
            }
            var lines = OutputLines(limit: maxOutput)
            var messages: [ExecMessage] = []
            let message = { (number: Int, line: [UInt8]) throws -> Void in
                do {
                    messages.append(try ExecMessage(line: line))
                } catch let problem as ExecMessage.Problem {
                    throw SourceError("line \(number) of the output: \(problem.message)")
                }
            }
            // The messages of one chunk go together, so that many small lines do not make as many updates.
            for try await chunk in output {
                try chunk.withUnsafeBytes { try lines.append($0, message) }
                if !messages.isEmpty { handle(messages) }
                messages.removeAll(keepingCapacity: true)
            }
            try lines.finish(message)
            if !messages.isEmpty { handle(messages) }
            return try await readers.next() ?? ""
        }
    }
}
