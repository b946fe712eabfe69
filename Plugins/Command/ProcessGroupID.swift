import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process group of one run of a notifier program (its id is the program's pid), ended whole when the run
/// ends: whatever the program left running is killed with it, and waited for.
final class ProcessGroupID: Sendable {
    /// How long a killed process may take to exit before `monitor` stops waiting for it (one stuck in the kernel).
    static let exitWait: Duration = .seconds(1)

    private let id = Mutex<Int32?>(nil)

    init() {}

    /// The program started as the leader of group `id`.
    func started(_ id: Int32) {
        self.id.withLock { $0 = id }
    }

    /// Kills what is left of the group, waits (at most ``exitWait`` each) until it has exited, and forgets it.
    func end() {
        let group = id.withLock { id in
            defer { id = nil }
            return id
        }
        guard let group, group > 1, killpg(group, SIGKILL) == 0 else { return }
        for pid in Self.members(of: group) {
            let deadline = ContinuousClock.now + Self.exitWait
            while Self.isRunning(pid, in: group), ContinuousClock.now < deadline { usleep(1000) }
        }
    }

    /// The processes of `group` that have not exited, from `/proc`.
    static func members(of group: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { isRunning($0, in: group) }
    }

    /// Whether `pid` is a process of `group` that has not exited (a zombie has).
    private static func isRunning(_ pid: Int32, in group: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, let processGroup = Int32(fields[2]) else { return false }
        return processGroup == group && state != "Z" && state != "X"
    }
}
