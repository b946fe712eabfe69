import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notify protocol without a library: each message is one datagram (`KEY=VALUE` lines) sent to the
/// socket `NOTIFY_SOCKET` names, a path or an abstract name (`@…`, sent with a leading NUL byte).
package struct SystemdNotify: Sendable {
    /// The socket's address as given in `NOTIFY_SOCKET`.
    package let socket: String
    /// How often to send `WATCHDOG=1` (half of `WATCHDOG_USEC`); nil when systemd expects no watchdog beats.
    package let watchdogInterval: Duration?

    /// The notifier `environment` asks for, or nil when `NOTIFY_SOCKET` is unset or empty. The watchdog is ours
    /// when `WATCHDOG_USEC` is a positive number and `WATCHDOG_PID`, if set, is this process's id.
    package init?(environment: [String: String], pid: Int32 = getpid()) {
        guard let socket = environment["NOTIFY_SOCKET"], socket.hasPrefix("/") || socket.hasPrefix("@") else {
            return nil
        }
        self.socket = socket
        let ours = environment["WATCHDOG_PID"].map { Int32($0) == pid } ?? true
        if ours, let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0 {
            watchdogInterval = .microseconds(usec / 2)
        } else {
            watchdogInterval = nil
        }
    }

    /// Sends `message`; returns whether the datagram was sent (a supervisor gone away is not `monitor`'s problem).
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
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path)
        }
        // An abstract name is exactly its bytes; a path ends with the NUL that follows it.
        let length = MemoryLayout.offset(of: \sockaddr_un.sun_path)! + path.count + (path[0] == 0 ? 0 : 1)
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                sendto(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL), address, socklen_t(length))
            }
        }
        return sent == bytes.count
    }

    /// `RELOADING=1` with the monotonic time systemd (253 and later) wants with it, in microseconds.
    package static func reloading() -> String {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return "RELOADING=1\nMONOTONIC_USEC=\(UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000)"
    }
}
