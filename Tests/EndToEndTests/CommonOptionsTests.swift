import Foundation
import TestSupport
import Testing

@Suite("One command line for every subcommand: --config and --state everywhere", .timeLimit(.minutes(5)))
struct CommonOptionsTests {
    /// `monitor COMMAND… --config other.yaml --state st`.
    static func run(_ command: [String], in directory: TemporaryDirectory) async throws -> MonitorProcess.Result {
        try await MonitorProcess.run(command + ["--config", "other.yaml", "--state", "st"], in: directory.url)
    }

    @Test("validate, sources, status, events and init accept both options and use what they need")
    func everyCommand() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("other.yaml", "feeds:\n  - {name: planet, type: eonet}\n")

        let validate = try await Self.run(["validate"], in: directory)
        #expect(validate.status == 0)
        #expect(validate.stdout == "other.yaml: ok, 1 feed: planet (eonet)\n")
        #expect(validate.stderr == "")

        let sources = try await Self.run(["sources"], in: directory)
        #expect(sources.status == 0)
        #expect(sources.stdout.contains("\neonet: NASA EONET natural events"))

        let status = try await Self.run(["status", "--format", "json"], in: directory)
        #expect(status.status == 0)
        #expect(
            status.stdout
                == #"[{"feed":"planet","type":"eonet","status":null,"lastPoll":null,"lastSuccess":null,"error":null,"failures":0,"items":0,"notBefore":null,"holdReason":null}]"#
                + "\n")

        let events = try await Self.run(["events", "planet"], in: directory)
        #expect(events.status == 1)
        #expect(
            events.stderr
                == "monitor events: error: no stored feed named 'planet' (nothing is stored yet: run `monitor run --once` first)\n"
        )

        try FileManager.default.removeItem(at: directory.url.appendingPathComponent("other.yaml"))
        let initialize = try await Self.run(["init"], in: directory)
        #expect(initialize.status == 0)
        #expect(initialize.stdout == "wrote other.yaml: check it with `monitor validate`, then `monitor run`\n")

        // None of them made a state: only `run` writes one.
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("st").path))
    }

    @Test("validate and run refuse a token with a control character, naming its place and never its value")
    func tokenWithLineBreak() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "other.yaml", "feeds:\n  - name: rx\n    type: github\n    repo: a/b\n    token: ${GITHUB_TOKEN}\n")
        let expected = """
            other.yaml:5:12: error: 'token' contains a line break (U+000A), which an HTTP request cannot carry: check where its value comes from (an environment variable?)
                token: ***************
                       ^
            1 error in other.yaml

            """
        for command in [["validate"], ["run", "--once"]] {
            let result = try await MonitorProcess.run(
                command + ["--config", "other.yaml", "--state", "st"], in: directory.url,
                environment: ["GITHUB_TOKEN": "ghp_a\nghp_b"])
            #expect(result.status == 2, "\(command)")
            #expect(result.stdout == "", "\(command)")
            #expect(result.stderr == expected, "\(command)")
        }
    }
}
