import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A datagram socket bound as systemd binds its notify socket — at a path in a directory, or at an abstract name
/// (`@…`) — that keeps every message `monitor` sends, in order. Read on a thread of its own; closed by ``close()``.
package final class NotifyListener: Sendable {
    /// What `NOTIFY_SOCKET` should say.
    package let address: String
    private let descriptor: Int32
    private let received = Watched<(messages: [String], closed: Bool)>(([], false))

    /// A socket bound at `path`, or at an abstract name when `path` starts with `@`.
    package init(_ path: String) throws {
        address = path
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var name = sockaddr_un()
        name.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &name.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count + (bytes[0] == 0 ? 0 : 1)
        let bound = withUnsafePointer(to: &name) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(length)) }
        }
        guard bound == 0 else {
            Glibc.close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        self.descriptor = descriptor
        let received = received
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                // `close()` shuts the socket down: an empty read, then no more.
                guard count > 0 else {
                    if count < 0, errno == EINTR { continue }
                    received.update { $0.closed = true }
                    return
                }
                let message = String(decoding: buffer[..<count], as: UTF8.self)
                received.update { $0.messages.append(message) }
            }
        }
    }

    /// The messages received so far.
    package var messages: [String] { received.value.messages }

    /// Waits until `count` messages have come (ignoring `STATUS=` ones when `statuses` is false) and returns them.
    @discardableResult
    package func wait(for count: Int, statuses: Bool = false) async throws -> [String] {
        let seen = try await received.wait { Self.kept($0.messages, statuses).count >= count || $0.closed }
        return Self.kept(seen.messages, statuses)
    }

    /// Waits until the messages (all of them) satisfy `condition`.
    package func wait(until condition: @escaping @Sendable ([String]) -> Bool) async throws {
        try await received.wait { condition($0.messages) || $0.closed }
    }

    /// The messages but `STATUS=` ones unless `statuses`.
    package static func kept(_ messages: [String], _ statuses: Bool) -> [String] {
        statuses ? messages : messages.filter { !$0.hasPrefix("STATUS=") }
    }

    /// Returns the messages received until `window` ends (but `STATUS=` ones unless `statuses`), or early, throwing,
    /// when more than `count` come; for what must not come.
    package func none(beyond count: Int, within window: Duration, statuses: Bool = false) async throws -> [String] {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.wait(for: count + 1, statuses: statuses) }
            group.addTask { try await Task.sleep(for: window) }
            try await group.next()
            group.cancelAll()
        }
        return Self.kept(messages, statuses)
    }

    /// The marker ``mark()`` sends.
    package static let marker = "MARK"

    /// Sends ``marker`` to the socket itself and waits for it: once it is read, so is every message queued before it.
    /// Returns the messages up to it (but `STATUS=` ones). One at a time.
    package func mark() async throws -> [String] {
        // The marks sent before were each waited for: all are counted here, and this one is not yet.
        let marks = received.value.messages.count { $0 == Self.marker }
        var name = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &name) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let sent = withUnsafePointer(to: &name) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, Self.marker, Self.marker.utf8.count, 0, $0, length)
            }
        }
        guard sent == Self.marker.utf8.count else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let seen = try await received.wait { $0.messages.count { $0 == Self.marker } > marks || $0.closed }
        return Self.kept(seen.messages, false)
    }

    /// Shuts the socket down and ends its thread.
    package func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
    }
}
