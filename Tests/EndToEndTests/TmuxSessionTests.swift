import Foundation
import MonitorCore
import TestSupport
import Testing

@Suite(
    "The tests' terminal", .timeLimit(.minutes(5)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (scripts/setup installs it): skipped"))
struct TmuxSessionTests {
    /// A listening socket on 127.0.0.1 that is not close-on-exec (as NIO's are not), and its port. It allows port
    /// reuse, so that a ``RefusingPort`` can hold the port once it is closed.
    private static func listener() throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var reuse: Int32 = 1
        try #require(setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &reuse, socklen_t(MemoryLayout<Int32>.size)) == 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        try #require(bound)
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// The errno of connecting to 127.0.0.1 at `port`, 0 when it connected.
    private static func connectError(port: UInt16) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return connected == 0 ? 0 : errno
    }

    @Test("its server inherits none of the test process's sockets: a listener closed while it runs refuses connections")
    func inheritsNoSockets() async throws {
        let directory = try TemporaryDirectory()
        let (descriptor, port) = try Self.listener()
        let tmux = try await TmuxSession(in: directory.url, width: 40, height: 10)
        defer { tmux.kill() }
        // Held while closed, so that no other test's server is given the port meanwhile.
        let held = try #require(RefusingPort(port: Int(port)))
        defer { held.close() }
        close(descriptor)
        // Inherited, the listener would live on in the tmux server: the connection would be taken, and reset later.
        #expect(Self.connectError(port: port) == ECONNREFUSED)
    }
}
