import Foundation
import MonitorCore
import MonitorPrograms
import Subprocess

/// One run of an exec program (how it is started and ended: ``ProgramRun``): its standard output read as messages as
/// they come. It fails — throwing a ``SourceError`` that says why — when the program cannot start, exits otherwise
/// (with the last lines of its standard error), writes a line that is not a message or more than `maxOutput` bytes,
/// or is still running after its timeout.
struct ExecRun: Sendable {
    /// The program, its environment and how it is run.
    var program: ProgramRun
    /// What it reads on standard input.
    var input: String
    /// The most bytes of output, and of one line of it.
    var maxOutput: Int

    /// Runs the program, handing the messages of each chunk of output to `handle` as they are read; returns when
    /// it exited 0.
    func run(_ handle: @escaping @Sendable ([ExecMessage]) -> Void) async throws {
        do {
            try await program.run(input: Array(input.utf8), output: .sequence, stderr: \.lines) { execution in
                try await read(execution.standardOutput, handle)
            }
        } catch let failure as ProgramRun.Failure {
            throw SourceError(failure.message)
        }
    }

    /// Reads standard output as messages until it ends.
    private func read(
        _ output: SubprocessOutputSequence, _ handle: @escaping @Sendable ([ExecMessage]) -> Void
    ) async throws {
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
    }
}
