import Foundation
import MonitorConcurrency
import Synchronization

/// The process group of one run of an external program (its id is the program's pid, the program being started as
/// the leader of a group of its own), to end it whole: the program and everything it started.
///
/// Run the program in ``run(_:)``, which tells the supervisor before and calls ``ended()`` after; call ``started(_:)``
/// with its pid once it runs. Each step is told to the ``ProgramSupervisor``, which ends the orphans a program left
/// when `monitor` adopts them.
///
/// Waiting for killed processes to exit and sweeping the orphans read `/proc` and wait: they run on a thread of
/// their own (``offThePool(_:)``), never on one of the few threads of the tasks' cooperative pool, which many
/// programs ending at once would otherwise hold for up to ``exitWait`` each, stalling every other task.
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

    /// Runs `body`, which spawns the program and calls ``started(_:)`` once it runs; then, whether `body` returned
    /// or threw, ends what is left of the group (see ``ended()``).
    package func run<T>(_ body: () async throws -> T) async throws -> T {
        step.withLock { $0 = .starting }
        supervisor.starting()
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await ended()
        return try result.get()
    }

    /// The program started as the leader of group `id`.
    package func started(_ id: Int32) async {
        step.withLock { $0 = .running(id) }
        if supervisor.started(id) {
            let supervisor = self.supervisor
            await offThePool { supervisor.endOrphans() }
        }
    }

    /// The program was reaped, or could not start: kills what is left of its group (a child it left running), waits
    /// until that has exited, and forgets the group; the supervisor then ends the orphans it left. Not cancelled with
    /// the calling task: what a cancelled run left is ended all the same.
    func ended() async {
        let last = step.withLock { step in
            defer { step = .idle }
            return step
        }
        let supervisor = self.supervisor
        switch last {
        case .idle:
            return
        case .starting:
            if supervisor.notStarted() { await offThePool { supervisor.endOrphans() } }
        case .running(let group):
            await offThePool {
                Self.kill(group)
                supervisor.ended(group)
            }
        }
    }

    /// Sends SIGKILL to group `group` and waits (at most ``exitWait`` each) until its processes have exited. It
    /// blocks its thread: called on a thread of its own, or at exit.
    static func kill(_ group: Int32) {
        guard group > 1, killpg(group, SIGKILL) == 0 else { return }
        // Zombies have exited already.
        for (pid, status) in ProcessStatus.all() where status.group == group && !status.hasExited { waitForExit(pid) }
    }

    /// Waits until `pid` has exited (gone, or a zombie waiting for its parent), checking every millisecond, at most
    /// ``exitWait``. It blocks its thread, as ``kill(_:)``.
    static func waitForExit(_ pid: Int32) {
        let deadline = ContinuousClock.now + exitWait
        while let status = ProcessStatus(pid: pid), !status.hasExited, ContinuousClock.now < deadline {
            usleep(1000)
        }
    }
}
