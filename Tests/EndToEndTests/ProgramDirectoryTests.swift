import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The programs of a feeds file (exec sources, command notifiers) as the real binary runs them: found from the feeds
/// file's directory and run there wherever `monitor` was started, and a command notifier's missing program retried.
@Suite("Programs named in a feeds file, run by the real binary", .timeLimit(.minutes(5)))
struct ProgramDirectoryTests {
    /// A directory `conf` holding the feeds file `feeds` and its programs: `counter_source.sh` (an item per run,
    /// counted in `count` beside it), `helper.sh` (not executable: run as `sh helper.sh`) and, when `notifier`,
    /// `notify.sh` (writes where it ran and its input); and an empty directory `elsewhere` to start `monitor` in.
    private static func setUp(_ feeds: String, notifier: Bool = true) throws -> (TemporaryDirectory, conf: String) {
        let root = try TemporaryDirectory()
        for name in ["conf", "elsewhere"] {
            try FileManager.default.createDirectory(
                at: root.url.appendingPathComponent(name), withIntermediateDirectories: false)
        }
        let conf = root.url.appendingPathComponent("conf").path
        let executable = { (name: String, text: String) throws in
            try root.write("conf/\(name)", text)
            chmod("\(conf)/\(name)", 0o755)
        }
        try executable(
            "counter_source.sh",
            """
            #!/bin/sh
            n=$(($(cat count 2>/dev/null || echo 0) + 1))
            echo $n > count
            echo '{"item":{"id":"c'$n'","title":"Count '$n'","date":"2025-09-21T18:00:00Z"}}'

            """)
        try root.write("conf/helper.sh", #"echo '{"item":{"id":"h1","title":"Helped","date":"2025-09-21T18:00:00Z"}}'"#)
        if notifier {
            try executable("notify.sh", "#!/bin/sh\npwd > notified-in\ncat > notified.json\n")
        }
        try root.write("conf/feeds.yaml", feeds)
        return (root, conf)
    }

    /// `monitor ARGUMENTS --config ../conf/feeds.yaml --state state`, started in `elsewhere`.
    private static func monitor(_ arguments: [String], in root: TemporaryDirectory) async throws
        -> MonitorProcess.Result
    {
        try await MonitorProcess.run(
            arguments + ["--config", "../conf/feeds.yaml", "--state", "state"],
            in: root.url.appendingPathComponent("elsewhere"))
    }

    @Test(
        "started elsewhere, run and validate --online find and run programs in the feeds file's directory (#34 item 1)")
    func relativeToTheFeedsFile() async throws {
        let (root, conf) = try Self.setUp(
            """
            feeds:
              - {name: counter, type: exec, command: [./counter_source.sh]}
              - {name: helper, type: exec, command: [sh, helper.sh]}
              - {name: missing, type: exec, command: [./no_such_source.sh]}
            notify:
              - {name: script, type: command, command: [./notify.sh], feeds: [counter]}
            """)
        let first = try await Self.monitor(["run", "--once", "--format", "json"], in: root)
        #expect(first.status == 1, "\(first.stderr)")
        #expect(first.stderr == "")
        var reports: [String: [String: Any]] = [:]
        for line in first.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            reports[try #require(object["feed"] as? String)] = object
        }
        #expect(reports.keys.sorted() == ["counter", "helper", "missing"])
        #expect(reports["counter"]?["items"] as? Int == 1)
        #expect(reports["helper"]?["items"] as? Int == 1)
        #expect(
            reports["missing"]?["error"] as? String
                == "cannot start './no_such_source.sh': \(conf)/no_such_source.sh: no such file")
        #expect(try root.read("conf/count") == "1\n")

        // A second run finds c2 new: the notifier's program runs in the feeds file's directory too.
        let second = try await Self.monitor(["run", "--once"], in: root)
        #expect(second.status == 1)
        #expect(second.stderr == "")
        #expect(try root.read("conf/count") == "2\n")
        #expect(try root.read("conf/notified-in") == conf + "\n")
        #expect(try root.read("conf/notified.json").contains(#""items":[{"id":"c2","title":"Count 2""#))

        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let sh = try #require(
            path.split(separator: ":").map { "\($0)/sh" }.first { FileManager.default.fileExists(atPath: $0) })
        let validate = try await Self.monitor(["validate", "--online"], in: root)
        #expect(
            validate.stdout == """
                ../conf/feeds.yaml: ok, 3 feeds: counter (exec), helper (exec), missing (exec); 1 notifier: \
                script (command)
                counter: ok: program './counter_source.sh' is \(conf)/counter_source.sh
                helper: ok: program 'sh' is \(sh)
                missing: wrong: cannot start './no_such_source.sh': \(conf)/no_such_source.sh: no such file
                notifier script: ok: program './notify.sh' is \(conf)/notify.sh
                3 ok, 1 wrong, 0 not checked

                """)
        #expect(validate.status == 1)
    }

    @Test("a command notifier's missing program: kept, why in status, delivered once it exists (#34 item 2)")
    func missingProgramRetried() async throws {
        let (root, conf) = try Self.setUp(
            """
            feeds:
              - {name: counter, type: exec, command: [./counter_source.sh]}
            notify:
              - {name: script, type: command, command: [./notify.sh]}
            """, notifier: false)
        #expect(try await Self.monitor(["run", "--once"], in: root).status == 0)
        let missing = try await Self.monitor(["run", "--once"], in: root)
        #expect(missing.status == 0)
        let id = try #require(missing.stderr.split(separator: " ").dropFirst(2).first.map(String.init))
        #expect(
            missing.stderr
                == "monitor: notification \(id) (new of counter) to script not delivered: cannot start './notify.sh': "
                + "\(conf)/notify.sh: no such file; kept for the next run\n")
        let status = try await Self.monitor(["status"], in: root)
        #expect(
            status.stdout.hasSuffix(
                """

                  notifier  type     target         pending  refused  dropped  last delivered
                  script    command  './notify.sh'        1        0        0  -
                script: cannot start './notify.sh': \(conf)/notify.sh: no such file (just now)

                """), "\(status.stdout)")

        try root.write("conf/notify.sh", "#!/bin/sh\ncat >> notified.json\necho >> notified.json\n")
        chmod("\(conf)/notify.sh", 0o755)
        let delivered = try await Self.monitor(["run", "--once"], in: root)
        #expect(delivered.status == 0)
        #expect(delivered.stderr == "")
        // The kept one first, then the one of this run's poll.
        let bodies = try root.read("conf/notified.json").split(separator: "\n")
        #expect(bodies.count == 2)
        #expect(bodies.first?.hasPrefix(#"{"schema":1,"id":"\#(id)","notifier":"script","feed":"counter","#) == true)
        #expect(bodies.first?.contains(#""items":[{"id":"c2","title":"Count 2""#) == true)
        #expect(bodies.last?.contains(#""items":[{"id":"c3","title":"Count 3""#) == true)
    }
}
