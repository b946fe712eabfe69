import CProcessControl
import Foundation
import Synchronization

/// Sees to it that no external program `monitor` runs (an exec source's, a command notifier's) outlives what started
/// it, even one that leaves its process group to live on as a daemon, and even when `monitor` is killed.
///
/// The `monitor` executable calls ``superviseThisProcess()`` once. From then on:
/// - `monitor` is the *subreaper* of its programs' descendants: a process whose parent exits (a daemon's double fork,
///   `setsid cmd &`) is reparented to `monitor` instead of PID 1. Such an orphan cannot be traced back to the program
///   that started it, so when a program ends, each orphan that no still-running program could have started (none
///   started before it) is killed, and reaped; orphans that exited by themselves are reaped too.
/// - a ``ProgramGuardian`` learns each running program's process group, and ends those still registered when
///   `monitor` is gone however it died (SIGKILL, a crash).
/// - at exit, whatever is left (a program, an orphan) is killed.
///
/// A test process never calls ``superviseThisProcess()``: its own children are never touched.
package final class ProgramSupervisor: Sendable {
    /// The one of this process.
    static let shared = ProgramSupervisor()

    private struct State {
        /// Whether this process supervises its programs (the `monitor` executable).
        var supervising = false
        /// Programs being spawned, whose pid is not known yet.
        var starting = 0
        /// How many spawns ever began (programs and guardians): one that begins while a sweep reads `/proc` may be
        /// seen there as an orphan, so the sweep starts over.
        var spawns = 0
        /// The process group (the pid) of each running program, with its start time in clock ticks since boot.
        var running: [Int32: UInt64] = [:]
        /// A sweep was put off while a program was being spawned.
        var sweepPending = false
        var guardian: ProgramGuardian?
    }

    /// What a sweep works from: the programs running when it began.
    private struct Snapshot {
        var spawns: Int
        var running: [Int32: UInt64]
        var guardian: Int32?
    }

    private let state = Mutex(State())

    /// How many times a sweep goes on killing the orphans that the orphans it killed left (a bound for a fork bomb).
    private static let rounds = 64

    private init() {}

    /// Makes this process the supervisor of its programs, as the type says: the `monitor` executable calls it once,
    /// first thing (Linux only; elsewhere only the cleanup at exit and the guardian remain).
    package static func superviseThisProcess() {
        _ = monitor_become_subreaper()
        shared.state.withLock { $0.supervising = true }
        atexit { ProgramSupervisor.shared.endAll() }
    }

    /// A program is about to be spawned.
    func starting() {
        state.withLock { state in
            state.starting += 1
            state.spawns += 1
        }
    }

    /// The program of group `group` (its pid) started; returns whether a sweep put off while it was spawned is due
    /// now (the caller then calls ``endOrphans(all:)``, which waits, on a thread of its own).
    func started(_ group: Int32) -> Bool {
        let started = ProcessStatus(pid: group)?.started ?? 0
        return state.withLock { state in
            state.starting -= 1
            // Unknown when it is already gone: the earliest time keeps every orphan it may have started.
            state.running[group] = started
            // The guardian (started on the first program) ends the group if `monitor` dies.
            if state.supervising, state.guardian?.tell("+\(group)") != true { Self.restartGuardian(in: &state) }
            return state.sweepPending && state.starting == 0
        }
    }

    /// The program that was about to be spawned could not start; returns whether a sweep is due, as ``started(_:)``.
    func notStarted() -> Bool {
        state.withLock { state in
            state.starting -= 1
            return state.sweepPending && state.starting == 0
        }
    }

    /// The program of group `group` ended, and what was left of its group was killed: the orphans no running program
    /// could have started are ended. It waits for them: called on a thread of its own.
    func ended(_ group: Int32) {
        state.withLock { state in
            state.running[group] = nil
            if state.guardian?.tell("-\(group)") == false { Self.restartGuardian(in: &state) }
        }
        endOrphans()
    }

    /// At exit: kills every program still running and every orphan.
    private func endAll() {
        let groups = state.withLock { state -> [Int32]? in
            guard state.supervising, state.spawns > 0 else { return nil }
            return Array(state.running.keys)
        }
        guard let groups else { return }
        for group in groups { ProcessGroup.kill(group) }
        endOrphans(all: true)
        state.withLock { state in
            for group in groups { _ = state.guardian?.tell("-\(group)") }
        }
    }

    /// Kills and reaps the children of this process that are not its programs (or the guardian) — orphans it
    /// adopted — each one that no running program started before (`all`: every one), then the orphans those leave,
    /// and reaps the orphans that exited by themselves. It waits for the killed to exit: called on a thread of its
    /// own, or at exit.
    func endOrphans(all: Bool = false) {
        let me = getpid()
        for _ in 0..<Self.rounds {
            let taken = state.withLock { state -> Snapshot? in
                guard state.supervising else { return nil }
                guard state.starting == 0 || all else {
                    // A child being spawned cannot be told from an orphan: the sweep is done once it has started.
                    state.sweepPending = true
                    return nil
                }
                state.sweepPending = false
                return Snapshot(spawns: state.spawns, running: state.running, guardian: state.guardian?.pid)
            }
            guard let snapshot = taken else { return }
            let orphans = ProcessStatus.all().filter { pid, status in
                status.parent == me && (all || snapshot.running[pid] == nil) && pid != snapshot.guardian
            }
            guard !orphans.isEmpty else { return }
            // A spawn that began during the scan may be among them: look again.
            guard all || state.withLock({ $0.spawns == snapshot.spawns }) else { continue }
            var killed: [Int32] = []
            for (pid, status) in orphans {
                if status.hasExited {
                    Self.reap(pid)
                } else if all || !snapshot.running.values.contains(where: { $0 <= status.started }) {
                    kill(pid, SIGKILL)
                    killed.append(pid)
                }
            }
            guard !killed.isEmpty else { return }
            for pid in killed {
                ProcessGroup.waitForExit(pid)
                Self.reap(pid)
            }
        }
    }

    /// Collects the exit status of `pid`, a child of this process that has exited (no wait when it has not).
    private static func reap(_ pid: Int32) {
        var info = siginfo_t()
        _ = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG)
    }

    /// Starts the guardian, or replaces one that is gone (killed by someone): the new one learns every running group.
    private static func restartGuardian(in state: inout State) {
        if let old = state.guardian {
            old.disconnect()
            reap(old.pid)
        }
        state.spawns += 1
        state.guardian = ProgramGuardian.start()
        for group in state.running.keys { _ = state.guardian?.tell("+\(group)") }
    }
}
