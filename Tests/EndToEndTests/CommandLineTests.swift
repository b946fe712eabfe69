import Foundation
import TestSupport
import Testing

@Suite("The monitor command line, run as a user would")
struct CommandLineTests {
    static let broken = """
        feeds:
          - name: rx
            type: github
            repo: ReactiveX/RxSwift
            kep: 10
          - name: planet
            type: eonet
            days: soon
          - name: bad
            type: eonet
            status: [open
        """

    @Test("validate accepts a valid file and exits 0")
    func validateValid() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "feeds.yaml", "feeds:\n  - {name: planet, type: eonet}\n  - {name: rx, type: github, repo: a/b}\n")
        let result = try await MonitorProcess.run(["validate"], in: directory.url)
        #expect(result.status == 0)
        #expect(result.stdout == "feeds.yaml: ok, 2 feeds: planet (eonet), rx (github)\n")
        #expect(result.stderr == "")
    }

    @Test("validate prints every problem with its line and column and exits 2")
    func validateBroken() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", Self.broken)
        let result = try await MonitorProcess.run(["validate"], in: directory.url)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                feeds.yaml:5:5: error: unknown key 'kep' in feed 'rx' (did you mean 'keep'?)
                    kep: 10
                    ^
                feeds.yaml:8:11: error: 'days' must be a whole number from 1 to 36500, not 'soon'
                    days: soon
                          ^
                feeds.yaml:11:18: error: did not find expected ',' or ']' while parsing a flow sequence
                    status: [open
                                 ^
                3 errors in feeds.yaml

                """)
    }

    @Test("status with a broken feeds file says so on stderr, as a run rejects it, and lists what the state holds")
    func statusBroken() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", Self.broken)
        let result = try await MonitorProcess.run(["status", "--state", "state"], in: directory.url)
        #expect(result.status == 0)
        #expect(result.stdout == "no feeds\n")
        #expect(
            result.stderr
                == "monitor: warning: feeds file invalid (line 5): feeds.yaml has 3 errors (`monitor validate` shows "
                + "them); a running monitor keeps the last valid one; showing only what the state holds\n")
    }

    @Test("--config names the file; $MONITOR_CONFIG is the default when set")
    func configPath() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("other.yaml", "feeds:\n  - {name: p, type: eonet}\n")
        let flag = try await MonitorProcess.run(["validate", "--config", "other.yaml"], in: directory.url)
        #expect(flag.status == 0)
        #expect(flag.stdout == "other.yaml: ok, 1 feed: p (eonet)\n")
        let variable = try await MonitorProcess.run(
            ["validate"], in: directory.url, environment: ["MONITOR_CONFIG": "other.yaml"])
        #expect(variable.stdout == "other.yaml: ok, 1 feed: p (eonet)\n")
        let missing = try await MonitorProcess.run(["validate"], in: directory.url)
        #expect(missing.status == 2)
        #expect(
            missing.stderr
                == "feeds.yaml: error: no such file (write a starter with `monitor init`, or name another with --config)\n1 error in feeds.yaml\n"
        )
    }

    @Test("init writes a starter that validates, and never overwrites")
    func initCommand() async throws {
        let directory = try TemporaryDirectory()
        let first = try await MonitorProcess.run(["init"], in: directory.url)
        #expect(first.status == 0)
        #expect(first.stdout == "wrote feeds.yaml: check it with `monitor validate`, then `monitor run`\n")
        let written = try directory.read("feeds.yaml")
        #expect(written.hasPrefix("# feeds.yaml: the feeds `monitor run` watches.\n"))
        #expect(try await MonitorProcess.run(["validate"], in: directory.url).status == 0)

        try directory.write("feeds.yaml", "# mine\n")
        let second = try await MonitorProcess.run(["init"], in: directory.url)
        #expect(second.status == 1)
        #expect(second.stderr == "feeds.yaml: error: already exists; not overwriting it\n")
        #expect(try directory.read("feeds.yaml") == "# mine\n")
    }

    @Test("sources lists both built-in types with their options")
    func sources() async throws {
        let directory = try TemporaryDirectory()
        let result = try await MonitorProcess.run(["sources"], in: directory.url)
        #expect(result.status == 0)
        #expect(result.stdout.contains("\neonet: NASA EONET natural events"))
        #expect(result.stdout.contains("\ngithub: Activity of a GitHub repository"))
        #expect(result.stdout.contains("  keep "))
    }

    @Test("--version prints the version")
    func version() async throws {
        let directory = try TemporaryDirectory()
        let result = try await MonitorProcess.run(["--version"], in: directory.url)
        #expect(result.status == 0)
        #expect(result.stdout == "0.1.0\n")
    }

    @Test(
        "bad usage exits 64 with a message",
        arguments: [["frobnicate"], ["validate", "--nope"], ["validate", "--config"]])
    func usage(arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        let result = try await MonitorProcess.run(arguments, in: directory.url)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: "))
    }

    @Test("--help answers, naming the commands and the exit codes")
    func help() async throws {
        let directory = try TemporaryDirectory()
        let result = try await MonitorProcess.run(["--help"], in: directory.url)
        #expect(result.status == 0)
        for word in ["run", "validate", "sources", "init", "Exit codes: 0 success; 1 some feed failed"] {
            #expect(result.stdout.contains(word), "\(word)")
        }
    }
}
