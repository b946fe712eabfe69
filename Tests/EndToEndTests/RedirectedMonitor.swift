import Foundation
import MonitorConcurrency
import TestSupport

@testable import MonitorCore

/// Runs the built `monitor` with its standard output somewhere other than a pipe that is read: a file such as
/// `/dev/full`, a closed descriptor, or a pipe whose reader has gone. Standard error is captured.
enum RedirectedMonitor {
    /// Where standard output goes.
    enum Output: Sendable {
        /// A file opened for writing (`/dev/full`).
        case file(String)
        /// No descriptor 1 at all, as the shell's `>&-` leaves it.
        case closed
        /// A pipe whose reading end is closed before `monitor` starts: every write meets `EPIPE`.
        case brokenPipe
    }

    /// What one run printed on standard error and how it exited.
    struct Result: Sendable {
        /// The exit status.
        var status: Int32
        /// Standard error.
        var stderr: String
    }

    /// Runs `monitor ARGUMENTS` in `directory` with standard output sent to `output`, and waits for it (its
    /// errors are read on a thread of their own: servers in the test process keep answering).
    static func run(
        _ arguments: [String], output: Output, in directory: URL, environment: [String: String] = [:]
    ) async throws -> Result {
        var program = MonitorProcess.executable.path
        var programArguments = arguments
        let standardOutput: Int32
        switch output {
        case .file(let path):
            standardOutput = open(path, O_WRONLY | O_CLOEXEC)
            guard standardOutput >= 0 else { throw POSIXError(.ENOENT) }
        case .closed:
            // Only a shell can start a program without a descriptor 1.
            program = "/bin/sh"
            programArguments = ["-c", "exec \"$0\" \"$@\" >&-", MonitorProcess.executable.path] + arguments
            standardOutput = try ChildProcess.nullDevice()
        case .brokenPipe:
            let pipe = try ChildProcess.pipe()
            close(pipe.read)
            standardOutput = pipe.write
        }
        let errors = try ChildProcess.pipe()
        let errorsHandle = FileHandle(fileDescriptor: errors.read, closeOnDealloc: true)
        let child = try await ChildProcess.start(
            program, programArguments, in: directory,
            environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path, "NO_COLOR": "1"].merging(environment) { $1 },
            input: try ChildProcess.nullDevice(), output: standardOutput, error: errors.write)
        let errorData = await offThePool { errorsHandle.readDataToEndOfFile() }
        let status = try await child.waitForExit()
        return Result(status: status, stderr: String(decoding: errorData, as: UTF8.self))
    }
}
