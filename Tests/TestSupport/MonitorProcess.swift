import Foundation

/// Runs the built `monitor` executable as a user would, and captures what it prints.
package struct MonitorProcess: Sendable {
    /// What one run printed and how it exited.
    package struct Result: Sendable {
        /// The exit status.
        package var status: Int32
        /// Standard output.
        package var stdout: String
        /// Standard error.
        package var stderr: String
    }

    /// The path of the `monitor` executable built beside the test bundle.
    package static let executable: URL = {
        var directory = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        for _ in 0..<6 {
            directory.deleteLastPathComponent()
            let candidate = directory.appendingPathComponent("monitor")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
        }
        fatalError("the monitor executable is not built beside the tests (run `swift build` first)")
    }()

    /// Runs `monitor ARGUMENTS` in `directory` with `environment` added to a minimal one, and waits for it.
    /// Its output is read on threads of their own, not on the tasks' cooperative pool, so that servers in the
    /// same test process keep answering. `launcher`, when given, is a program and its arguments that start
    /// `monitor` (such as `setpriv` with fewer capabilities).
    package static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], launcher: [String] = []
    ) async throws -> Result {
        let (child, output, errors) = try await start(
            arguments, in: directory, environment: environment, launcher: launcher)
        let (outputData, errorData) = await ChildProcess.readToEnd(output, errors)
        let status = try await child.waitForExit()
        return Result(
            status: status, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self))
    }

    /// util-linux's tool that starts a program with fewer capabilities.
    package static let setpriv = "/usr/bin/setpriv"

    /// Whether ``runUnprivileged(_:in:)`` can run here: as root only with ``setpriv``.
    package static var canRunUnprivileged: Bool {
        getuid() != 0 || FileManager.default.isExecutableFile(atPath: setpriv)
    }

    /// Runs `monitor ARGUMENTS` in `directory` unable to write files whose modes forbid it: as root (the tests' usual
    /// user) through ``setpriv``, without the capabilities that let root ignore file modes; as anyone else, directly.
    package static func runUnprivileged(_ arguments: [String], in directory: URL) async throws -> Result {
        let launcher = getuid() == 0 ? [setpriv, "--bounding-set=-dac_override,-fowner"] : []
        return try await run(arguments, in: directory, launcher: launcher)
    }

    /// Starts `monitor ARGUMENTS` in `directory`, with `environment` added to a minimal one (`PATH`, `HOME` =
    /// `directory`, `NO_COLOR`) and no input; returns it with the reading ends of its output and its errors.
    static func start(
        _ arguments: [String], in directory: URL, environment: [String: String], launcher: [String] = []
    ) async throws -> (child: ChildProcess, output: FileHandle, errors: FileHandle) {
        let program = launcher.first ?? executable.path
        let programArguments = launcher.isEmpty ? arguments : launcher.dropFirst() + [executable.path] + arguments
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path]
        base["NO_COLOR"] = "1"
        let output = try ChildProcess.pipe()
        let outputHandle = FileHandle(fileDescriptor: output.read, closeOnDealloc: true)
        let errors = try ChildProcess.pipe()
        let errorsHandle = FileHandle(fileDescriptor: errors.read, closeOnDealloc: true)
        let child = try await ChildProcess.start(
            program, programArguments, in: directory, environment: base.merging(environment) { $1 },
            input: try ChildProcess.nullDevice(), output: output.write, error: errors.write)
        return (child, outputHandle, errorsHandle)
    }
}

/// A `monitor` process left running, whose output is read as it comes.
///
/// Waiting on it is event-driven (its output and its exit), with no real-time deadline: a suite's `.timeLimit` ends
/// a wait that never comes true, and a process still running when the value is released is terminated.
package final class RunningMonitor: Sendable {
    private struct Output: Sendable {
        var stdout = Data()
        var stderr = Data()
        /// How many of the two pipes reached their end.
        var closed = 0
        var status: Int32?
    }

    private let child: ChildProcess
    /// The reading ends of its output and errors, kept open while their threads read them.
    private let pipes: [FileHandle]
    private let output = Watched(Output())

    /// Starts `monitor ARGUMENTS` in `directory` with `environment` added to a minimal one; `launcher`, when given, is
    /// a program and its arguments that start `monitor` (such as a shell that lowers a limit, then `exec`s it).
    package init(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], launcher: [String] = []
    ) async throws {
        let (child, outputPipe, errorPipe) = try await MonitorProcess.start(
            arguments, in: directory, environment: environment, launcher: launcher)
        // Each pipe is read on a thread of its own until its end. (A `readabilityHandler` missed the end of a pipe
        // whose data and end had both come before it was set, when `monitor` exited at once: a wait then never ended.)
        let output = self.output
        for (pipe, isOutput) in [(outputPipe, true), (errorPipe, false)] {
            Thread.detachNewThread {
                while true {
                    let data = pipe.availableData
                    output.update { output in
                        if data.isEmpty {
                            output.closed += 1
                        } else if isOutput {
                            output.stdout.append(data)
                        } else {
                            output.stderr.append(data)
                        }
                    }
                    if data.isEmpty { return }
                }
            }
        }
        self.child = child
        pipes = [outputPipe, errorPipe]
        Task {
            guard let status = try? await child.waitForExit() else { return }
            output.update { $0.status = status }
        }
    }

    /// Its process id.
    package var pid: Int32 { child.pid }

    /// What it printed on standard output so far.
    package var stdout: String { String(decoding: output.value.stdout, as: UTF8.self) }
    /// What it printed on standard error so far.
    package var stderr: String { String(decoding: output.value.stderr, as: UTF8.self) }

    /// Waits until standard output satisfies `condition`; throws when the process ends (and its output with it)
    /// without that.
    package func waitForOutput(_ condition: @escaping @Sendable (String) -> Bool) async throws {
        let seen = try await output.wait { output in
            condition(String(decoding: output.stdout, as: UTF8.self)) || (output.closed == 2 && output.status != nil)
        }
        guard condition(String(decoding: seen.stdout, as: UTF8.self)) else {
            throw ProcessEnded(
                description: "monitor exited with \(seen.status ?? -1) before the awaited output; "
                    + "stdout: \(stdout) stderr: \(stderr)")
        }
    }

    /// Waits until standard error satisfies `condition` and returns it; throws when the process ends (and its output
    /// with it) without that.
    @discardableResult
    package func waitForErrors(_ condition: @escaping @Sendable (String) -> Bool) async throws -> String {
        let seen = try await output.wait { output in
            condition(String(decoding: output.stderr, as: UTF8.self)) || (output.closed == 2 && output.status != nil)
        }
        let errors = String(decoding: seen.stderr, as: UTF8.self)
        guard condition(errors) else {
            throw ProcessEnded(
                description: "monitor exited with \(seen.status ?? -1) before the awaited errors; "
                    + "stdout: \(stdout) stderr: \(errors)")
        }
        return errors
    }

    /// Sends `signal` (SIGINT, SIGTERM).
    package func send(_ signal: Int32) {
        child.send(signal)
    }

    /// Waits for the process to exit and for the end of its output, and returns its status.
    package func waitForExit() async throws -> Int32 {
        let ended = try await output.wait { $0.status != nil && $0.closed == 2 }
        return ended.status ?? -1
    }

    deinit {
        child.send(SIGTERM)
    }
}

/// The process ended before what a test waited for.
package struct ProcessEnded: Error, CustomStringConvertible {
    /// What was waited for and what the process printed.
    package var description: String
}
