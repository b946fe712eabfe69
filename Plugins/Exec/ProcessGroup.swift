import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process group of one running program (its id is the program's pid), to end it whole: the program and
/// everything it started.
final class ProcessGroup: Sendable {
    /// How long a killed process may take to exit before `monitor` stops waiting for it (one stuck in the kernel).
    static let exitWait: Duration = .seconds(1)

    private let id = Mutex<Int32?>(nil)

    init() {}

    /// The running program's process group, while it runs.
    var current: Int32? { id.withLock { $0 } }

    /// The program started as the leader of group `id`.
    func started(_ id: Int32) {
        self.id.withLock { $0 = id }
    }

    /// The program was reaped: kills what is left of its group (a child it left running), waits until that has
    /// exited, and forgets the group.
    func ended() {
        let group = id.withLock { id in
            defer { id = nil }
            return id
        }
        if let group { Self.kill(group) }
    }

    /// Sends SIGKILL to group `group` and waits (at most ``exitWait`` each) until its processes have exited.
    static func kill(_ group: Int32) {
        guard group > 1, killpg(group, SIGKILL) == 0 else { return }
        for pid in members(of: group) {
            waitForExit(pid)
        }
    }

    /// The processes of `group` that have not exited (zombies, which have, are left out), from `/proc`.
    static func members(of group: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let (state, processGroup) = status(of: pid) else { return false }
            return processGroup == group && state != "Z" && state != "X"
        }
    }

    /// Waits until `pid` has exited (gone, or a zombie waiting for its parent), checking every millisecond.
    static func waitForExit(_ pid: Int32) {
        let deadline = ContinuousClock.now + exitWait
        while let (state, _) = status(of: pid), state != "Z", state != "X", ContinuousClock.now < deadline {
            usleep(1000)
        }
    }

    /// The state letter and process group of `pid` from `/proc/PID/stat`; nil when it is gone.
    private static func status(of pid: Int32) -> (state: Character, group: Int32)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After the command's closing parenthesis: state, parent pid, process group, …
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, let group = Int32(fields[2]) else { return nil }
        return (state, group)
    }
}
