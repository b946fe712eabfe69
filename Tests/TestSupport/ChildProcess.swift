import Foundation
import MonitorConcurrency
import Subprocess

@testable import MonitorCore

/// A program the tests start, by swift-subprocess and never by Foundation's `Process`.
///
/// On Linux, `Process.run()` lists `/proc/self/fd` to find the descriptors the child must not inherit, and copies
/// each entry's whole 256-byte `d_name` out of glibc's directory buffer, however short the entry (fixed by
/// swift-corelibs-foundation's pull request 5472, not in Swift 6.3.1's Foundation). Once the test process has about
/// 1,350 descriptors open — the suite's first seconds, when every suite at once opens its states, servers, clients
/// and pipes (1,357 measured) — the entries fill that 32 KiB buffer and the copy of the last ones reads up to 243
/// bytes past its end:
/// AddressSanitizer reports a heap-buffer-overflow in `findMaximumOpenFromProcSelfFD`, and without it the test
/// process crashes in `memmove` whenever the buffer ends at unmapped memory. swift-subprocess reads the directory
/// within its own buffer (or closes with `close_range`), at any number of descriptors.
///
/// The child's standard streams are descriptors given to ``start(_:_:in:environment:input:output:error:)``, which
/// closes them in this process once the child has them; the child is in a process group of its own, as with
/// `Process`.
package final class ChildProcess: Sendable {
    /// Its process id.
    package let pid: Int32
    /// Its termination status once it ended: the exit code, or the signal that ended it (as `Process` says).
    private let ended: Watched<Int32?>

    private init(pid: Int32, ended: Watched<Int32?>) {
        self.pid = pid
        self.ended = ended
    }

    /// Starts `executable` (a path) with `arguments` in `directory` (this process's when nil), with `environment` as
    /// its whole environment (this process's when nil), reading `input` and writing `output` and `error`: three
    /// different descriptors that this process gives up (they are closed here once the child started, or when it
    /// could not start). Throws when it cannot start.
    package static func start(
        _ executable: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
        input: Int32, output: Int32, error: Int32
    ) async throws -> ChildProcess {
        let ended = Watched<Int32?>(nil)
        var platform = PlatformOptions()
        platform.processGroupID = 0
        var variables: [Environment.Key: String] = [:]
        for (name, value) in environment ?? [:] {
            if let key = Environment.Key(rawValue: name) { variables[key] = value }
        }
        let configuration = Configuration(
            executable: .path(.init(executable)), arguments: Arguments(arguments),
            environment: environment == nil ? .inherit : .custom(variables),
            workingDirectory: directory.map { .init($0.path) }, platformOptions: platform)
        let pid = try await withCheckedThrowingContinuation { (started: CheckedContinuation<Int32, any Error>) in
            Task.detached {
                var waiting: CheckedContinuation<Int32, any Error>? = started
                do {
                    let result = try await Subprocess.run(
                        configuration,
                        input: .fileDescriptor(.init(rawValue: input), closeAfterSpawningProcess: true),
                        output: .fileDescriptor(.init(rawValue: output), closeAfterSpawningProcess: true),
                        error: .fileDescriptor(.init(rawValue: error), closeAfterSpawningProcess: true)
                    ) { execution in
                        waiting?.resume(returning: execution.processIdentifier.value)
                        waiting = nil
                    }
                    let status: Int32 =
                        switch result.terminationStatus {
                        case .exited(let code): code
                        case .signaled(let signal): signal
                        }
                    ended.update { $0 = status }
                } catch {
                    if let waiting {
                        // swift-subprocess closed the descriptors.
                        waiting.resume(throwing: error)
                    } else {
                        ended.update { $0 = -1 }
                    }
                }
            }
        }
        return ChildProcess(pid: pid, ended: ended)
    }

    /// Runs `executable` with `arguments` and `input` on its standard input (through a file, so that neither side
    /// waits on a full pipe), and waits for it; returns its termination status and what it wrote on standard output
    /// and standard error. The output is read on threads of their own, off the tasks' cooperative pool.
    package static func run(
        _ executable: String, _ arguments: [String], input: [UInt8] = []
    ) async throws -> (status: Int32, output: Data, errors: Data) {
        let directory = try TemporaryDirectory()
        let inputFile = directory.url.appendingPathComponent("input")
        try Data(input).write(to: inputFile)
        let inputDescriptor = open(inputFile.path, O_RDONLY | O_CLOEXEC)
        guard inputDescriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let output = try pipe()
        let outputHandle = FileHandle(fileDescriptor: output.read, closeOnDealloc: true)
        let errors = try pipe()
        let errorsHandle = FileHandle(fileDescriptor: errors.read, closeOnDealloc: true)
        let child = try await start(
            executable, arguments, input: inputDescriptor, output: output.write, error: errors.write)
        let (outputData, errorData) = await readToEnd(outputHandle, errorsHandle)
        let status = try await child.waitForExit()
        _ = directory
        return (status, outputData, errorData)
    }

    /// All that `output` and `errors` give until their ends, read at once on threads of their own, so that a full
    /// pipe never blocks the child writing them. Not on `DispatchQueue.global()`: on Linux its threads are the tasks'
    /// cooperative pool, which a read waiting for a program's end would hold all that time.
    package static func readToEnd(_ output: FileHandle, _ errors: FileHandle) async -> (Data, Data) {
        async let outputData = offThePool { output.readDataToEndOfFile() }
        async let errorData = offThePool { errors.readDataToEndOfFile() }
        return await (outputData, errorData)
    }

    /// Its termination status, nil while it runs.
    package var status: Int32? { ended.value }

    /// Waits until it ended and returns its termination status (event-driven: cancelling the task ends the wait).
    package func waitForExit() async throws -> Int32 {
        try await ended.wait { $0 != nil } ?? -1
    }

    /// Sends `signal` (SIGTERM by default) unless it ended already.
    package func send(_ signal: Int32 = SIGTERM) {
        if ended.value == nil { kill(pid, signal) }
    }

    /// A new pipe: (reading end, writing end), both close-on-exec.
    package static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard Glibc.pipe(&descriptors) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // (`pipe2` is not imported; every program is started by swift-subprocess, which closes the descriptors a
        // child is not given, so the moment before close-on-exec is set is harmless.)
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    /// `/dev/null` opened for reading and writing, close-on-exec.
    package static func nullDevice() throws -> Int32 {
        let descriptor = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return descriptor
    }
}
