import Foundation

/// A server run as a process of its own that prints `listening on http://127.0.0.1:PORT` first (`monitor-standin`,
/// `../shared/tools/realdata-server.py`); ended by `stop()`.
package final class ListeningProcess: Sendable {
    package let process: ChildProcess
    package let port: Int

    /// Starts `executable ARGUMENTS` and waits for the line that says where it listens; throws, having ended it,
    /// when its output ends without that line.
    package init(_ executable: String, _ arguments: [String]) async throws {
        let output = try ChildProcess.pipe()
        let outputHandle = FileHandle(fileDescriptor: output.read, closeOnDealloc: true)
        let process = try await ChildProcess.start(
            executable, arguments, input: try ChildProcess.nullDevice(), output: output.write,
            error: try ChildProcess.nullDevice())
        // Its first line says where it listens; read it on a thread of its own.
        let line = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var data = Data()
                while !data.contains(UInt8(ascii: "\n")) {
                    let chunk = outputHandle.availableData
                    if chunk.isEmpty { break }
                    data.append(chunk)
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        guard
            line.hasPrefix("listening on "),
            let port = line.split(separator: ":").last.flatMap({
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            })
        else {
            process.send(SIGTERM)
            throw Failure(description: "\(executable) did not say where it listens: \(line)")
        }
        self.process = process
        self.port = port
    }

    /// Asks it to end (SIGTERM); it is reaped in the background.
    package func stop() {
        process.send(SIGTERM)
    }

    /// The server did not start as expected.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }
}
