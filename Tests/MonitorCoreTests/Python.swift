import Foundation
import TestSupport

/// Runs a Python 3 program as a real process, as a reference implementation to compare with.
enum Python {
    /// What `python3 -c PROGRAM` printed on standard output for `input` on standard input; throws when it does not
    /// exit 0. The input goes through a file, so neither side waits on a full pipe.
    static func run(_ program: String, input: [UInt8]) async throws -> String {
        let directory = try TemporaryDirectory()
        let inputFile = directory.url.appendingPathComponent("input")
        try Data(input).write(to: inputFile)
        return try await offThePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", program]
            process.standardInput = try FileHandle(forReadingFrom: inputFile)
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            nonisolated(unsafe) var errorData = Data()
            let group = DispatchGroup()
            group.enter()
            DispatchQueue.global().async {
                errorData = errors.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            group.wait()
            process.waitUntilExit()
            _ = directory
            guard process.terminationStatus == 0 else {
                throw Failure(status: process.terminationStatus, errors: String(decoding: errorData, as: UTF8.self))
            }
            return String(decoding: outputData, as: UTF8.self)
        }
    }

    /// python3 exited with `status`, printing `errors`.
    struct Failure: Error, CustomStringConvertible {
        var status: Int32
        var errors: String
        var description: String { "python3 exited with status \(status): \(errors)" }
    }
}
