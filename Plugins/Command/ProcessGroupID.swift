import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process group of one run of a notifier program (its id is the program's pid), ended whole when the run
/// ends: whatever the program left running is killed with it.
final class ProcessGroupID: Sendable {
    private let id = Mutex<Int32?>(nil)

    init() {}

    /// The program started as the leader of group `id`.
    func started(_ id: Int32) {
        self.id.withLock { $0 = id }
    }

    /// Kills what is left of the group and forgets it.
    func end() {
        let group = id.withLock { id in
            defer { id = nil }
            return id
        }
        if let group, group > 1 { killpg(group, SIGKILL) }
    }
}
