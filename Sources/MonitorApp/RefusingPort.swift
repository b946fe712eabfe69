import Foundation

/// A TCP port on `127.0.0.1` to which every connection is refused: a socket of this process bound to it and never
/// listening, so no other program can take the port while it is held, and the kernel answers a connection with a reset
/// without anything being sent. ``HTTPClientTransport/prepare()`` sends its warm-up request there.
struct RefusingPort {
    /// The port.
    let number: Int
    private let socket: Int32

    /// Binds a socket to a free loopback port; nil when the system gives none.
    init?() {
        #if os(Linux)
            // Close-on-exec: the programs of exec feeds never inherit it.
            let descriptor = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = Foundation.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
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
        socket = descriptor
        number = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Releases the port.
    func close() {
        _ = Foundation.close(socket)
    }
}
