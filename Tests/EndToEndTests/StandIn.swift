import Foundation
import TestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `monitor-standin` (the GitHub and EONET APIs from generated data) as a child process on a free port; stopped by
/// `stop()`.
final class StandIn: Sendable {
    let server: ListeningProcess
    var port: Int { server.port }

    init(arguments: [String]) async throws {
        let executable = MonitorProcess.executable.deletingLastPathComponent()
            .appendingPathComponent("monitor-standin")
        server = try await ListeningProcess(executable.path, ["--port", "0"] + arguments)
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
        server.stop()
    }
}
