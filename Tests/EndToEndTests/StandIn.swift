import Foundation
import TestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `monitor-standin` (the GitHub and EONET APIs from generated data) as a child process on a free port; stopped by
/// `stop()`.
final class StandIn: Sendable {
    let process: ChildProcess
    let port: Int

    init(arguments: [String]) async throws {
        let executable = MonitorProcess.executable.deletingLastPathComponent()
            .appendingPathComponent("monitor-standin")
        let output = try ChildProcess.pipe()
        let outputHandle = FileHandle(fileDescriptor: output.read, closeOnDealloc: true)
        let process = try await ChildProcess.start(
            executable.path, ["--port", "0"] + arguments, input: try ChildProcess.nullDevice(),
            output: output.write, error: try ChildProcess.nullDevice())
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
            let port = line.split(separator: ":").last.flatMap({
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            })
        else {
            process.send(SIGTERM)
            throw TmuxSession.Failure(description: "monitor-standin did not say where it listens: \(line)")
        }
        self.process = process
        self.port = port
    }

    func get(_ path: String) async throws -> Data {
        let url = URL(string: "http://127.0.0.1:\(port)\(path)")!
        return try await URLSession.shared.data(from: url).0
    }

    /// How many EONET events each category has (`GET /_counts`; an event in two categories counts in both).
    func eonetCounts() async throws -> [String: Int] {
        struct Counts: Decodable {
            struct EONET: Decodable { var categories: [String: Int] }
            var eonet: EONET
        }
        return try JSONDecoder().decode(Counts.self, from: try await get("/_counts")).eonet.categories
    }

    /// Asks it to end (SIGTERM); it is reaped in the background.
    func stop() {
        process.send(SIGTERM)
    }
}
