import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process group of one run of an external program (its id is the program's pid, the program being started as
/// the leader of a group of its own), to end it whole: the program and everything it started.
///
/// Call ``starting()`` before spawning the program, ``started(_:)`` with its pid once it runs, and ``ended()`` once
/// it was reaped (or could not start). Each step is told to the ``ProgramSupervisor``, which ends the orphans a
/// program left when `monitor` adopts them.
package final class ProcessGroup: Sendable {
    /// How long a killed process may take to exit before `monitor` stops waiting for it (one stuck in the kernel).
    static let exitWait: Duration = .seconds(1)

    private enum Step {
        case idle
        case starting
        case running(Int32)
    }

    private let step = Mutex(Step.idle)
    private var supervisor: ProgramSupervisor { .shared }

    package init() {}

    /// The program is about to be spawned.
    package func starting() {
        step.withLock { $0 = .starting }
        supervisor.starting()
    }

    /// The program started as the leader of group `id`.
    package func started(_ id: Int32) {
        step.withLock { $0 = .running(id) }
        supervisor.started(id)
    }

    /// The program was reaped, or could not start: kills what is left of its group (a child it left running), waits
    /// until that has exited, and forgets the group; the supervisor then ends the orphans it left.
    package func ended() {
        let last = step.withLock { step in
            defer { step = .idle }
            return step
        }
        switch last {
        case .idle:
            return
        case .starting:
            supervisor.notStarted()
        case .running(let group):
            Self.kill(group)
            supervisor.ended(group)
        }
    }

    /// Sends SIGKILL to group `group` and waits (at most ``exitWait`` each) until its processes have exited.
    static func kill(_ group: Int32) {
        guard group > 1, killpg(group, SIGKILL) == 0 else { return }
        for pid in members(of: group) {
            waitForExit(pid)
        }
    }

    /// The processes of `group` that have not exited (zombies, which have, are left out), from `/proc`.
    private static func members(of group: Int32) -> [Int32] {
        ProcessStatus.all().filter { $0.status.group == group && !$0.status.hasExited }.map(\.pid)
    }

    /// Waits until `pid` has exited (gone, or a zombie waiting for its parent), checking every millisecond, at most
    /// ``exitWait``.
    static func waitForExit(_ pid: Int32) {
        let deadline = ContinuousClock.now + exitWait
        while let status = ProcessStatus(pid: pid), !status.hasExited, ContinuousClock.now < deadline {
            usleep(1000)
        }
    }
}
