import Foundation
import Synchronization

/// A TCP port on `127.0.0.1` to which every connection is refused: a socket of this process bound to it and never
/// listening, so no other program can take the port while it is held, and the kernel answers a connection with a reset
/// without anything being sent. `HTTPClientTransport.prepare()` sends its warm-up request there; the tests use it for a
/// receiver that is down.
///
/// The socket allows address and port reuse, so that a server of this process can bind the port while it is held
/// (Linux lets a socket that allows address reuse bind a port whose other sockets allow it and do not listen, and one
/// of the same user that allows port reuse bind it whatever the others do: a test's relay holds its own port so while
/// it refuses, then listens on it again); the kernel still never picks a held port for a bind to port 0 or for a
/// connection while it has others free.
package final class RefusingPort: Sendable {
    /// The port.
    package let number: Int
    /// The socket; -1 once closed.
    private let socket: Mutex<Int32>

    /// Binds a socket to the loopback port `port`, a free one when 0; nil when the system refuses.
    package init?(port: Int = 0) {
        #if os(Linux)
            // Close-on-exec: the programs of exec feeds never inherit it.
            let descriptor = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = Foundation.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            _ = Foundation.close(descriptor)
            return nil
        }
        socket = Mutex(descriptor)
        number = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Releases the port; once, however often it is called (also when it is no longer referenced).
    package func close() {
        let descriptor = socket.withLock { socket in
            defer { socket = -1 }
            return socket
        }
        if descriptor >= 0 { _ = Foundation.close(descriptor) }
    }

    deinit {
        close()
    }
}
