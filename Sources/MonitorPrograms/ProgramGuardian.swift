import CProcessControl
import Foundation

/// A small shell that outlives `monitor` to end its programs when `monitor` dies without ending them (SIGKILL, a
/// crash): it reads lines `+GROUP` and `-GROUP` from a socket only `monitor` holds the other end of, and when that end
/// closes — `monitor` is gone, however it died — sends SIGTERM to each process group still registered, SIGKILL half a
/// second later, and exits.
///
/// It runs in a session of its own, deaf to the signals that stop `monitor`, holding no descriptor of `monitor`'s but
/// its end of the socket. (A program cannot be made to receive a signal when `monitor` dies, `PR_SET_PDEATHSIG`: that
/// fires when the *thread* that spawned it exits, and the threads that spawn programs come and go.)
struct ProgramGuardian: Sendable {
    /// The shell's pid.
    let pid: Int32
    /// `monitor`'s end of the socket: close-on-exec, so that no program holds it open.
    private let socket: Int32

    /// The shell's script.
    static let script = """
        trap '' HUP INT TERM QUIT USR1 USR2 ALRM PIPE TSTP TTIN TTOU
        PATH=/usr/bin:/bin
        groups=' '
        while read -r line; do
          case $line in
            +*) groups="$groups${line#+} " ;;
            -*) kept=' '
                for group in $groups; do [ "$group" = "${line#-}" ] || kept="$kept$group "; done
                groups=$kept ;;
          esac
        done
        [ "$groups" = ' ' ] && exit 0
        for group in $groups; do kill -TERM -"$group" 2>/dev/null; done
        sleep 0.5
        for group in $groups; do kill -KILL -"$group" 2>/dev/null; done
        """

    /// Starts one; nil when it cannot (no `/bin/sh`, no descriptor left): programs then run without one.
    static func start() -> ProgramGuardian? {
        var ends: [Int32] = [0, 0]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { return nil }
        defer { close(ends[1]) }
        let arguments = ["sh", "-c", script, "monitor-guardian"]
        var pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        guard monitor_spawn_detached("/bin/sh", &pointers, ends[1], &pid) == 0 else {
            close(ends[0])
            return nil
        }
        return ProgramGuardian(pid: pid, socket: ends[0])
    }

    /// Sends `line` (never blocking, never raising SIGPIPE); false when the guardian is gone.
    func tell(_ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        let flags = Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)
        let sent = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, flags) }
        return sent == bytes.count
    }

    /// Closes `monitor`'s end: a guardian still running ends what it was told of, and exits.
    func disconnect() {
        close(socket)
    }
}
