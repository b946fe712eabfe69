import Foundation
import MonitorConcurrency
import TestSupport
import Testing

@testable import MonitorCore

/// The tests' way of starting programs (``ChildProcess``) while the test process holds many descriptors.
///
/// Foundation's `Process.run()` crashed CI this way: with about 1,350 descriptors open, its scan of `/proc/self/fd`
/// reads past the end of glibc's directory buffer (a heap-buffer-overflow under AddressSanitizer, a crash in
/// `memmove` when the memory after it is unmapped). Run under `--sanitize=address`, these tests fail at once if any
/// start goes through that scan again.
@Suite("Starting programs from the tests while the test process holds 1,500 more descriptors")
struct ChildProcessTests {
    /// 1,500 descriptors open on `/dev/null` (close-on-exec), closed again when `body` returns: more than fill the
    /// 32 KiB buffer glibc reads `/proc/self/fd` into (24 bytes an entry).
    private static func withManyDescriptors<T>(_ body: () async throws -> T) async throws -> T {
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        for _ in 0..<1500 {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            try #require(descriptor >= 0, "cannot open /dev/null: \(String(cString: strerror(errno)))")
            descriptors.append(descriptor)
        }
        return try await body()
    }

    @Test("a program started with 1,500 more descriptors open gets its input, and inherits only 0, 1 and 2")
    func manyDescriptors() async throws {
        let (status, output, errors) = try await Self.withManyDescriptors {
            // `ls` lists its own descriptors: the three it was given, and the one it reads the directory with.
            try await ChildProcess.run(
                "/bin/sh",
                ["-c", "cat; echo; ls /proc/self/fd | sort -n | tr '\\n' ' '; echo 'to stderr' >&2; exit 3"],
                input: Array("the input".utf8))
        }
        #expect(status == 3)
        #expect(String(decoding: output, as: UTF8.self) == "the input\n0 1 2 3 ")
        #expect(String(decoding: errors, as: UTF8.self) == "to stderr\n")
    }

    @Test("a program that cannot start is an error (the start does not wait for it forever)")
    func missingProgram() async throws {
        await #expect(throws: (any Error).self) {
            _ = try await ChildProcess.run("/nonexistent/program", [])
        }
    }

    @Test("a signal ends a running program: its status is the signal, as Process said")
    func signalled() async throws {
        let output = try ChildProcess.pipe()
        let outputHandle = FileHandle(fileDescriptor: output.read, closeOnDealloc: true)
        let child = try await ChildProcess.start(
            "/bin/sh", ["-c", "echo started; exec sleep 600"], input: try ChildProcess.nullDevice(),
            output: output.write, error: try ChildProcess.nullDevice())
        // Its first line: it runs (`sleep` has replaced the shell, keeping the pipe open).
        let line = await offThePool { outputHandle.readData(ofLength: 8) }
        #expect(String(decoding: line, as: UTF8.self) == "started\n")
        #expect(child.status == nil)
        child.send(SIGTERM)
        #expect(try await child.waitForExit() == SIGTERM)
        #expect(child.status == SIGTERM)
    }
}
