import Foundation
import LoopbackHTTP
import TestSupport
import Testing

/// A feeds file that is a FIFO is refused, never waited on: `open` of a FIFO without a writer blocks for ever.
@Suite("A feeds file that is not a regular file", .timeLimit(.minutes(5)))
struct FeedsFileKindTests {
    @Test("validate refuses a FIFO at once, naming it, and exits 2")
    func validateFIFO() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.url.appendingPathComponent("fifo.yaml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Without the refusal it waits in `open` for ever. (Not through RunningMonitor, which can miss the end of the
        // empty output of a process that exits at once.)
        let result = try await MonitorProcess.run(["validate", "--config", "fifo.yaml"], in: directory.url)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "fifo.yaml: error: is a FIFO, not a regular file\n1 error in fifo.yaml\n")
    }

    @Test("a feeds file replaced by a FIFO while run runs is reported once; the feeds keep running; SIGTERM stops it")
    func runFIFO() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(eonetAnswer) { server in
            let path = try directory.write(
                "feeds.yaml", "feeds:\n  - {name: planet, type: eonet, api: \(server.baseURL)/api/v3, interval: 1h}\n"
            ).path
            let monitor = try await RunningMonitor(["run", "--format", "json", "--state", "state"], in: directory.url)
            try await monitor.waitForOutput { $0.contains(#""feed":"planet""#) }
            // Replaced in one step (a FIFO renamed over it), so that the watcher never sees the file missing.
            #expect(mkfifo(path + ".fifo", 0o600) == 0)
            #expect(rename(path + ".fifo", path) == 0)
            let message =
                "feeds.yaml cannot be read (is a FIFO, not a regular file); still running the last valid feeds\n"
            try await monitor.waitForErrors { $0.contains(message) }
            monitor.send(SIGTERM)
            // Without the refusal the watcher waits in `open` and SIGTERM no longer stops the process.
            #expect(try await monitor.waitForExit() == 0)
            #expect(monitor.stderr == message)
        }
    }
}
