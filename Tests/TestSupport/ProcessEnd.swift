import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether process `pid` has ended: it is gone (`kill(pid, 0)` fails with ESRCH), or it is a zombie — dead,
/// waiting to be reaped by its parent (in this container PID 1 never reaps the orphans it adopts).
package func hasEnded(_ pid: Int32) -> Bool {
    if kill(pid, 0) == -1, errno == ESRCH { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return true }
    return stat[stat.index(close, offsetBy: 2)] == "Z"
}

/// Whether process `pid` is gone altogether, reaped: `kill(pid, 0)` fails with ESRCH.
package func isReaped(_ pid: Int32) -> Bool {
    kill(pid, 0) == -1 && errno == ESRCH
}

/// Waits until process `pid` has ended (see ``hasEnded(_:)``), looking at `/proc` every few milliseconds, for at most
/// `limit` — a safety net only, far beyond what ending a process takes; returns whether it ended. Nothing tells
/// this process when one that is not its child ends, hence the looking.
package func waitForEnd(of pid: Int32, limit: Duration = .seconds(10)) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !hasEnded(pid) {
        guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(5))) != nil else {
            return false
        }
    }
    return true
}

/// Ends process `pid` with SIGKILL unless it has ended: a test's cleanup of what it expected to be gone.
package func killLeftover(_ pid: Int32) {
    if !hasEnded(pid) { kill(pid, SIGKILL) }
}

/// What a writer puts in the named pipe `path`, read on a thread of its own: returns once the writer closes it.
package func readFIFO(_ path: String) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                continuation.resume(throwing: CocoaError(.fileReadNoSuchFile))
                return
            }
            let data = handle.readDataToEndOfFile()
            try? handle.close()
            continuation.resume(returning: String(decoding: data, as: UTF8.self))
        }
    }
}
