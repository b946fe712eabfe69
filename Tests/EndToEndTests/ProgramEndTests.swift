import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Each signal that stops `monitor`: its number, its name, and the exit code of `run --once` it gives (128 + its
/// number).
private let stopSignals: [(signal: Int32, name: String, code: Int32)] = [
    (SIGHUP, "SIGHUP", 129), (SIGINT, "SIGINT", 130), (SIGQUIT, "SIGQUIT", 131), (SIGUSR1, "SIGUSR1", 138),
    (SIGUSR2, "SIGUSR2", 140), (SIGALRM, "SIGALRM", 142), (SIGTERM, "SIGTERM", 143),
]

/// Starts a daemon the `setsid` way — a new session, its output closed, sleeping — that writes its pid to the new
/// named pipe `up` once it has left the program's process group, and reads it into `$daemon` (a shell command).
/// `prefix` and `suffix` wrap the daemon's start, as in a subshell.
private func startDaemon(prefix: String = "", suffix: String = "") -> String {
    "mkfifo up; \(prefix)setsid sh -c 'echo $$ > up; exec sleep 1000' </dev/null >/dev/null 2>&1 &\(suffix) "
        + "read daemon < up;"
}

/// The two usual ways a program leaves a daemon behind, each a shell command writing the daemon's pid to the file
/// `daemon` before it returns.
private let daemonRecipes: [(name: String, script: String)] = [
    ("setsid", startDaemon() + " echo $daemon > daemon"),
    // The subshell starts the daemon and exits at once: the daemon's parent is gone before the program ends.
    ("double fork", startDaemon(prefix: "( ", suffix: " );") + " echo $daemon > daemon"),
]

/// A program deaf to SIGTERM with a child in its group and a daemon out of it: it writes the three pids to the named
/// pipe `fifo` and waits for ever (as one line of a YAML flow list, quoted).
private func stuckProgram(writingTo fifo: String) -> String {
    """
    "trap '' TERM; sleep 1000 & child=$!; \(startDaemon()) echo \\"$$ $child $daemon\\" > \(fifo); wait"
    """
}

/// A feeds file whose one exec feed runs `command` (a YAML flow list) for at most an hour.
private func execFeed(_ command: String) -> String {
    """
    feeds:
      - name: stuck
        type: exec
        command: \(command)
        timeout: 1h
    """
}

/// The pids a program wrote to the named pipe `fifo` once started (read as it writes them), each still running.
private func startedPids(_ fifo: String) async throws -> [Int32] {
    let pids = try await readFIFO(fifo).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
    #expect(pids.allSatisfy { !hasEnded($0) })
    return pids
}

/// The pid a program wrote to the file `daemon` in `directory`.
private func daemonPid(in directory: TemporaryDirectory) throws -> Int32 {
    try #require(Int32(try directory.read("daemon").trimmingCharacters(in: .whitespacesAndNewlines)))
}

/// A new named pipe `pids` in `directory`; its path.
private func makeFIFO(in directory: TemporaryDirectory) -> String {
    let fifo = directory.url.appendingPathComponent("pids").path
    #expect(mkfifo(fifo, 0o600) == 0)
    return fifo
}

/// Waits until `monitor` (process `pid`) has started its guardian, a child `sh` whose `$0` is `monitor-guardian`;
/// looks at `/proc` every few milliseconds, for at most 10 seconds (a safety net); returns whether it did.
private func waitForGuardian(of pid: Int32) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { entry in
            guard Int32(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            return stat[close...].split(separator: " ").dropFirst(2).first == "\(pid)"
        }
        for child in children {
            let arguments = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/cmdline"))) ?? Data()
            if arguments.split(separator: 0).last.map({ String(decoding: $0, as: UTF8.self) }) == "monitor-guardian" {
                return true
            }
        }
        guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { return false }
    }
    return false
}

@Suite("No program outlives what started it: daemons, every stopping signal, SIGKILL", .timeLimit(.minutes(5)))
struct ProgramEndTests {
    @Test("an exec program's daemon is ended with the program, in `run --once`", arguments: daemonRecipes)
    func execDaemonOnce(recipe: String, script: String) async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", execFeed(#"[sh, -c, "\#(script)"]"#))
        let run = try await MonitorProcess.run(
            ["run", "--once", "--format", "json", "--state", "state"], in: directory.url)
        let daemon = try daemonPid(in: directory)
        defer { killLeftover(daemon) }
        #expect(run.status == 0, "\(recipe): \(run.stderr)")
        #expect(await waitForEnd(of: daemon), "\(recipe): the daemon \(daemon) is left")
    }

    @Test("an exec program's daemon is ended when the program ends, while `run` goes on", arguments: daemonRecipes)
    func execDaemonRun(recipe: String, script: String) async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", execFeed(#"[sh, -c, "\#(script)"]"#))
        let monitor = try await RunningMonitor(["run", "--format", "json", "--state", "state"], in: directory.url)
        // The poll is reported once the program has ended.
        try await monitor.waitForOutput { $0.contains(#""feed":"stuck""#) }
        let daemon = try daemonPid(in: directory)
        defer { killLeftover(daemon) }
        #expect(await waitForEnd(of: daemon), "\(recipe): the daemon \(daemon) is left")
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
    }

    @Test("a command notifier's daemon is ended with it, in `notify test`", arguments: daemonRecipes)
    func commandDaemonNotifyTest(recipe: String, script: String) async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "feeds.yaml",
            execFeed("[true]") + """

                notify:
                  - name: script
                    type: command
                    command: [sh, -c, "cat > /dev/null; \(script)"]
                """)
        let test = try await MonitorProcess.run(["notify", "test", "script"], in: directory.url)
        let daemon = try daemonPid(in: directory)
        defer { killLeftover(daemon) }
        #expect(test.status == 0, "\(recipe): \(test.stderr)")
        #expect(test.stdout == "script: delivered to 'sh': exit 0\n")
        #expect(await waitForEnd(of: daemon), "\(recipe): the daemon \(daemon) is left")
    }

    @Test("a command notifier's daemon is ended with it, in `run --once` delivering a notification")
    func commandDaemonRunOnce() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "feeds.yaml",
            """
            feeds:
              - name: ev
                type: exec
                command: [cat, items.jsonl]
            notify:
              - name: script
                type: command
                command: [sh, -c, "cat > /dev/null; \(daemonRecipes[0].script)"]
            """)
        let item = #"{"item":{"id":"e1","title":"Event 1","date":"2025-09-21T18:00:00Z"}}"#
        try directory.write("items.jsonl", "")
        // The first poll is the baseline: nothing to notify.
        #expect(try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url).status == 0)
        try directory.write("items.jsonl", item + "\n")
        let run = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
        let daemon = try daemonPid(in: directory)
        defer { killLeftover(daemon) }
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(await waitForEnd(of: daemon), "the daemon \(daemon) is left")
    }

    @Test(
        "each stopping signal to `run --once` cancels the polls: the program, its child and its daemon end; 128 + N",
        arguments: stopSignals)
    func signalToRunOnce(signal: Int32, name: String, code: Int32) async throws {
        let stopped = try await stopWhileStuck(
            ["run", "--once", "--format", "json", "--state", "state"], with: signal, name: name
        ) { execFeed("[sh, -c, \($0)]") }
        #expect(stopped.status == code, "\(stopped.stderr)")
        #expect(stopped.stderr == "monitor: \(name) received: the polls were cancelled\n")
        // The one feed was cancelled: it has no report.
        #expect(stopped.stdout == "")
    }

    @Test(
        "each stopping signal to `run` stops it gracefully: the program, its child and its daemon end; exit 0",
        arguments: stopSignals.filter { $0.signal != SIGHUP })
    func signalToRun(signal: Int32, name: String, code: Int32) async throws {
        let stopped = try await stopWhileStuck(
            ["run", "--format", "json", "--state", "state"], with: signal, name: name
        ) { execFeed("[sh, -c, \($0)]") }
        #expect(stopped.status == 0, "\(name): \(stopped.stderr)")
    }

    @Test("SIGHUP to `run` reloads the feeds file: the unchanged feed's program goes on; SIGTERM then ends it all")
    func hangUpReloadsRun() async throws {
        let directory = try TemporaryDirectory()
        let fifo = makeFIFO(in: directory)
        try directory.write("feeds.yaml", execFeed("[sh, -c, \(stuckProgram(writingTo: fifo))]"))
        let monitor = try await RunningMonitor(["run", "--state", "state"], in: directory.url)
        let pids = try await startedPids(fifo)
        defer { pids.forEach(killLeftover) }
        #expect(pids.count == 3)
        monitor.send(SIGHUP)
        try await monitor.waitForOutput { $0.contains("feeds.yaml reloaded: no feed changed") }
        #expect(pids.allSatisfy { !hasEnded($0) })
        monitor.send(SIGTERM)
        #expect(try await monitor.waitForExit() == 0, "\(monitor.stderr)")
        for pid in pids {
            #expect(await waitForEnd(of: pid), "process \(pid) is left")
        }
    }

    @Test(
        "a stopping signal to `notify test` cancels the delivery: the command's program and its child end; 128 + N",
        arguments: [stopSignals[0], stopSignals[6]])
    func signalToNotifyTest(signal: Int32, name: String, code: Int32) async throws {
        let stopped = try await stopWhileStuck(["notify", "test", "script"], with: signal, name: name) { program in
            execFeed("[true]") + """

                notify:
                  - name: script
                    type: command
                    command: [sh, -c, \(program)]
                    timeout: 1h
                """
        }
        #expect(stopped.status == code, "\(stopped.stderr)")
        #expect(stopped.stderr == "monitor notify test: \(name) received: the delivery was cancelled\n")
        #expect(stopped.stdout == "")
    }

    /// Runs `monitor ARGUMENTS` in a directory whose feeds file is `feeds` of the ``stuckProgram(writingTo:)``
    /// (quoted), sends `signal` (named `name`) once that program runs, waits for `monitor` to exit and expects the
    /// program's three processes to end; returns how `monitor` exited and what it printed.
    private func stopWhileStuck(
        _ arguments: [String], with signal: Int32, name: String, feeds: (String) -> String
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let directory = try TemporaryDirectory()
        let fifo = makeFIFO(in: directory)
        try directory.write("feeds.yaml", feeds(stuckProgram(writingTo: fifo)))
        let monitor = try await RunningMonitor(arguments, in: directory.url)
        let pids = try await startedPids(fifo)
        defer { pids.forEach(killLeftover) }
        #expect(pids.count == 3)
        monitor.send(signal)
        let status = try await monitor.waitForExit()
        for pid in pids {
            #expect(await waitForEnd(of: pid), "\(name): process \(pid) is left")
        }
        return (status, monitor.stdout, monitor.stderr)
    }

    @Test("`monitor` killed with SIGKILL while a program runs: the program and its child end soon all the same")
    func killedMonitor() async throws {
        let directory = try TemporaryDirectory()
        let fifo = makeFIFO(in: directory)
        // Deaf to SIGTERM, as its child is: the watcher's SIGKILL, half a second later, ends them.
        try directory.write(
            "feeds.yaml",
            execFeed(#"[sh, -c, "trap '' TERM; sleep 1000 & echo \"$$ $!\" > \#(fifo); wait"]"#))
        let monitor = try await RunningMonitor(
            ["run", "--once", "--format", "json", "--state", "state"], in: directory.url)
        let pids = try await startedPids(fifo)
        defer { pids.forEach(killLeftover) }
        #expect(pids.count == 2)
        // Started with the first program, told of its group at once: once it runs, the group is in its hands.
        #expect(await waitForGuardian(of: monitor.pid))
        monitor.send(SIGKILL)
        #expect(try await monitor.waitForExit() == SIGKILL)
        for pid in pids {
            #expect(await waitForEnd(of: pid), "process \(pid) is left")
        }
    }
}
