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
    private let id = Mutex<Int32?>(nil)

    init() {}

    /// The running program's process group, while it runs.
    var current: Int32? { id.withLock { $0 } }

    /// The program started as the leader of group `id`.
    func started(_ id: Int32) {
        self.id.withLock { $0 = id }
    }

    /// The program was reaped: sends SIGKILL to what is left of its group (a child it left running) and
    /// forgets the group.
    func ended() {
        let group = id.withLock { id in
            defer { id = nil }
            return id
        }
        if let group, group > 0 { _ = killpg(group, SIGKILL) }
    }

    /// Sends SIGKILL to the whole group now, if it runs (a stopping `monitor` cannot wait for a graceful end).
    func kill() {
        if let group = current, group > 0 { _ = killpg(group, SIGKILL) }
    }
}
