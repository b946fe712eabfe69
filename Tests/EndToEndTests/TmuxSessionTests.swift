import Foundation
import TestSupport
import Testing

@Suite(
    "The tests' terminal", .timeLimit(.minutes(5)),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed (scripts/setup installs it): skipped"))
struct TmuxSessionTests {
    /// A listening socket on 127.0.0.1 that is not close-on-exec (as NIO's are not), and its inode.
    private static func listener() throws -> (descriptor: Int32, inode: UInt64) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let listening = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 && listen(descriptor, 8) == 0
            }
        }
        try #require(listening)
        var info = stat()
        try #require(fstat(descriptor, &info) == 0)
        return (descriptor, UInt64(info.st_ino))
    }

    #if os(Linux)
        @Test(
            "its server inherits none of the test process's descriptors: a listener open when it started is not among its own"
        )
        func inheritsNoSockets() async throws {
            let directory = try TemporaryDirectory()
            let (descriptor, inode) = try Self.listener()
            defer { close(descriptor) }
            let tmux = try await TmuxSession(in: directory.url, width: 40, height: 10)
            defer { tmux.kill() }
            let server = try #require(tmux.serverProcessID)
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server)/fd")
            let sockets = descriptors.compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server)/fd/\($0)")
            }
            #expect(!sockets.isEmpty)
            // Inherited, the listener would live on in the tmux server after the test closed it: a connection to its
            // port would be taken, and reset when the server ends.
            #expect(!sockets.contains("socket:[\(inode)]"))
        }
    #endif
}
