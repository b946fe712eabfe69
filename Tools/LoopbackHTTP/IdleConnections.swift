import NIOCore
import NIOPosix

/// TCP connections to a port on `127.0.0.1` that send nothing and stay open until the server closes them or
/// ``close()`` does: a flood of idle clients.
package final class IdleConnections: Sendable {
    private let channels: [any Channel]

    private init(channels: [any Channel]) {
        self.channels = channels
    }

    /// Opens `count` connections to `127.0.0.1:port`, one after another, so that the server accepts them in order.
    package static func open(_ count: Int, port: Int) async throws -> IdleConnections {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.minutes(2))
        var channels: [any Channel] = []
        do {
            for _ in 0..<count {
                channels.append(try await bootstrap.connect(host: "127.0.0.1", port: port).get())
            }
        } catch {
            await IdleConnections(channels: channels).close()
            throw error
        }
        return IdleConnections(channels: channels)
    }

    /// Waits until connection number `index` (from 0, in the order opened) has been closed.
    package func waitUntilClosed(_ index: Int) async throws {
        try await channels[index].closeFuture.get()
    }

    /// Closes those still open.
    package func close() async {
        for channel in channels {
            try? await channel.close()
        }
    }
}
