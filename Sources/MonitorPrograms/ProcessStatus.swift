import Foundation

/// What `/proc/PID/stat` says of a process: its state, parent, process group and start time.
struct ProcessStatus: Sendable, Equatable {
    /// The state letter: `R` running, `S` sleeping, `Z` a zombie (exited, waiting for its parent), …
    var state: Character
    /// Its parent's pid.
    var parent: Int32
    /// Its process group.
    var group: Int32
    /// When it started, in clock ticks since the machine booted.
    var started: UInt64

    /// Whether it has exited (a zombie, or being reaped).
    var hasExited: Bool { state == "Z" || state == "X" }

    /// The status of `pid`; nil when it is gone.
    init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        // After the command's closing parenthesis (the command may hold any character): field 3, the state, then the
        // parent, the group, …, field 22 the start time.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let parent = Int32(fields[1]),
            let group = Int32(fields[2]), let started = UInt64(fields[19])
        else { return nil }
        self.state = state
        self.parent = parent
        self.group = group
        self.started = started
    }

    /// Every process of the machine with its status, from `/proc`.
    static func all() -> [(pid: Int32, status: ProcessStatus)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry), let status = ProcessStatus(pid: pid) else { return nil }
            return (pid, status)
        }
    }
}
