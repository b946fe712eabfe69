import Foundation

/// Runs the built `monitor` executable as a user would, and captures what it prints.
public struct MonitorProcess: Sendable {
    /// What one run printed and how it exited.
    public struct Result: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output.
        public var stdout: String
        /// Standard error.
        public var stderr: String
    }

    /// The path of the `monitor` executable built beside the test bundle.
    public static let executable: URL = {
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
    /// The waiting happens on a thread of its own, not on the tasks' cooperative pool, so that servers in the
    /// same test process keep answering.
    public static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:]
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Swift.Result { try runBlocking(arguments, in: directory, environment: environment) })
            }
        }
    }

    private static func runBlocking(
        _ arguments: [String], in directory: URL, environment: [String: String]
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path]
        base["NO_COLOR"] = "1"
        process.environment = base.merging(environment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so a full pipe never blocks the child.
        nonisolated(unsafe) var errorData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self))
    }
}

/// A `monitor` process left running, whose output is read as it comes.
public final class RunningMonitor: @unchecked Sendable {
    private let process: Process
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()

    /// Starts `monitor ARGUMENTS` in `directory` with `environment` added to a minimal one.
    public init(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = MonitorProcess.executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path]
        base["NO_COLOR"] = "1"
        process.environment = base.merging(environment) { $1 }
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        outputPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.output.append(data) }
        }
        errorPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.errors.append(data) }
        }
        try process.run()
    }

    /// What it printed on standard output so far.
    public var stdout: String { lock.withLock { String(decoding: output, as: UTF8.self) } }
    /// What it printed on standard error so far.
    public var stderr: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }

    /// Waits (at most `timeout`) until standard output satisfies `condition`.
    public func waitForOutput(timeout: Duration = .seconds(20), _ condition: (String) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(stdout) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw TimeoutError(description: "output not seen; stdout: \(stdout) stderr: \(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends `signal` (SIGINT, SIGTERM).
    public func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits (at most `timeout`) for the process to exit and returns its status; kills it when it does not.
    public func waitForExit(timeout: Duration = .seconds(10)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw TimeoutError(description: "monitor did not exit within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
