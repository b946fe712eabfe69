import Foundation
import MonitorCore
import MonitorText
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notify protocol without a library: each message is one datagram (`KEY=VALUE` lines) sent to the
/// socket `NOTIFY_SOCKET` names, a path or an abstract name (`@…`, sent with a leading NUL byte). Never blocks: a
/// datagram the socket's full queue cannot take is dropped.
package struct SystemdNotify: Sendable {
    /// The socket's address as given in `NOTIFY_SOCKET`.
    package let socket: String
    /// How often to send `WATCHDOG=1`: half of `WATCHDOG_USEC`, within ``watchdogBounds``; nil when systemd expects
    /// no watchdog beats.
    package let watchdogInterval: Duration?
    /// Says, once, why the socket cannot be used.
    private let problem: Problem

    /// The shortest and longest time between watchdog beats: `WATCHDOG_USEC=1` would otherwise beat without pause,
    /// and beating more often than asked is always safe.
    package static let watchdogBounds = Duration.milliseconds(50)...Duration.seconds(3600)

    /// The notifier `environment` asks for, or nil when `NOTIFY_SOCKET` is unset or empty, or (said to `warn`) is
    /// neither a path nor an @name. The watchdog is ours when `WATCHDOG_USEC` is a positive number and
    /// `WATCHDOG_PID`, if set, is this process's id. Why a send fails is said to `warn` at the first failure.
    package init?(
        environment: [String: String], pid: Int32 = getpid(),
        warn: @escaping @Sendable (String) -> Void = { Console.error($0) }
    ) {
        guard let socket = environment["NOTIFY_SOCKET"], !socket.isEmpty else { return nil }
        let problem = Problem(socket: socket, warn: warn)
        self.problem = problem
        guard socket.hasPrefix("/") || socket.hasPrefix("@") else {
            problem.say("it is neither an absolute path nor an @name")
            return nil
        }
        self.socket = socket
        let ours = environment["WATCHDOG_PID"].map { Int32($0) == pid } ?? true
        if ours, let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0 {
            let bounds = Self.watchdogBounds
            watchdogInterval = min(max(.microseconds(usec / 2), bounds.lowerBound), bounds.upperBound)
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends `message` without waiting; returns whether the datagram was sent. A full queue drops it (a supervisor
    /// that does not read is not `monitor`'s problem); any other failure is said once.
    @discardableResult
    package func send(_ message: String) -> Bool {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socket.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else {
            problem.say("its name is longer than \(capacity - 1) bytes")
            return false
        }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path)
        }
        // An abstract name is exactly its bytes; a path ends with the NUL that follows it.
        let length = MemoryLayout.offset(of: \sockaddr_un.sun_path)! + path.count + (path[0] == 0 ? 0 : 1)
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                sendto(
                    descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), address,
                    socklen_t(length))
            }
        }
        if sent < 0, errno != EAGAIN { problem.say(String(cString: strerror(errno))) }
        return sent == bytes.count
    }

    /// Says why `NOTIFY_SOCKET` cannot be used, the first time only.
    private final class Problem: Sendable {
        let socket: String
        let warn: @Sendable (String) -> Void
        let said = Mutex(false)

        init(socket: String, warn: @escaping @Sendable (String) -> Void) {
            self.socket = socket
            self.warn = warn
        }

        func say(_ reason: String) {
            let first = said.withLock { said in
                defer { said = true }
                return !said
            }
            guard first else { return }
            let shown = TerminalText.sanitized(socket)
            warn("monitor: warning: NOTIFY_SOCKET=\(shown) cannot be used (\(reason)): systemd is told nothing\n")
        }
    }

    /// `RELOADING=1` with the monotonic time systemd (253 and later) wants with it, in microseconds.
    package static func reloading() -> String {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return "RELOADING=1\nMONOTONIC_USEC=\(UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000)"
    }
}
