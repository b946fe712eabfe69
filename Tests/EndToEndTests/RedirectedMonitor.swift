import Foundation
import TestSupport

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

    /// Runs `monitor ARGUMENTS` in `directory` with standard output sent to `output`, and waits for it on a
    /// thread of its own (servers in the test process keep answering).
    static func run(
        _ arguments: [String], output: Output, in directory: URL, environment: [String: String] = [:]
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Swift.Result {
                        try runBlocking(arguments, output: output, in: directory, environment: environment)
                    })
            }
        }
    }

    private static func runBlocking(
        _ arguments: [String], output: Output, in directory: URL, environment: [String: String]
    ) throws -> Result {
        let process = Process()
        process.currentDirectoryURL = directory
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path, "NO_COLOR": "1"].merging(
            environment
        ) { $1 }
        var writingEnd: FileHandle?
        switch output {
        case .file(let path):
            process.executableURL = MonitorProcess.executable
            process.arguments = arguments
            guard let file = FileHandle(forWritingAtPath: path) else { throw POSIXError(.ENOENT) }
            writingEnd = file
            process.standardOutput = writingEnd
        case .closed:
            // Only a shell can start a program without a descriptor 1.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$0\" \"$@\" >&-", MonitorProcess.executable.path] + arguments
        case .brokenPipe:
            process.executableURL = MonitorProcess.executable
            process.arguments = arguments
            var descriptors: [Int32] = [0, 0]
            guard pipe(&descriptors) == 0 else { throw POSIXError(.EMFILE) }
            close(descriptors[0])
            writingEnd = FileHandle(fileDescriptor: descriptors[1], closeOnDealloc: true)
            process.standardOutput = writingEnd
        }
        let errors = Pipe()
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try writingEnd?.close()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stderr: String(decoding: errorData, as: UTF8.self))
    }
}
