import Foundation
import LoopbackHTTP
import TestSupport
import Testing

/// `monitor run` warms its HTTP client up while the state opens; a state that cannot be opened must still end the
/// command as before, with nothing sent to any feed's server.
@Suite("monitor run on a state that cannot be opened", .timeLimit(.minutes(5)))
struct UnopenableStateTests {
    @Test(
        "exits 1 with the state's message and sends no request to the feed's server",
        arguments: [["run", "--once"], ["run", "--format", "json"]])
    func stateIsAFile(_ command: [String]) async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer({ _ in .text("not expected") }) { server in
            try directory.write(
                "feeds.yaml",
                """
                feeds:
                  - name: planet
                    type: eonet
                    api: \(server.baseURL)/api/v3
                """)
            let file = try directory.write("state", "not a directory\n")
            let result = try await MonitorProcess.run(command + ["--state", "state"], in: directory.url)
            #expect(result.status == 1)
            #expect(result.stdout == "")
            #expect(
                result.stderr
                    == "monitor: error: cannot open the state: \(file.path) is a file, not a directory (--state names the state directory)\n"
            )
            #expect(server.requests.isEmpty)
        }
    }
}
