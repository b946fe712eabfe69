import Foundation

/// Runs a Python 3 program as a real process, as a reference implementation to compare with.
package enum Python {
    /// What `python3 -c PROGRAM` printed on standard output for `input` on standard input; throws when it does not
    /// exit 0. The input goes through a file, so neither side waits on a full pipe.
    package static func run(_ program: String, input: [UInt8]) async throws -> String {
        let (status, output, errors) = try await ChildProcess.run(
            "/usr/bin/env", ["python3", "-c", program], input: input)
        guard status == 0 else {
            throw Failure(status: status, errors: String(decoding: errors, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// python3 exited with `status`, printing `errors`.
    struct Failure: Error, CustomStringConvertible {
        var status: Int32
        var errors: String
        var description: String { "python3 exited with status \(status): \(errors)" }
    }
}
