import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A test's way to hang the scheduler's loop, to see the watchdog beats stop: with `MONITOR_TEST_HOLD_SCHEDULER`
/// naming a path, the loop, about to answer a watchdog question, blocks while a named pipe is at that path — it opens
/// the pipe, reads until the test closes its end, and removes it. Nothing happens while no pipe is there.
enum SchedulerHold {
    /// The variable naming the pipe.
    static let variable = "MONITOR_TEST_HOLD_SCHEDULER"

    /// The hook `environment` asks for, or nil.
    static func hook(_ environment: [String: String]) -> (@Sendable () -> Void)? {
        guard let path = environment[variable], !path.isEmpty else { return nil }
        return { hold(at: path) }
    }

    /// Blocks the calling thread while the named pipe at `path` is open at its other end; removes it after.
    private static func hold(at path: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        unlink(path)
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &buffer, buffer.count) > 0 {}
    }
}
