import NIOCore
import NIOPosix
import Testing

@testable import MonitorApp

/// The timer of a request (`HTTPClientTransport.wait(for:)`): cancelled when the answer comes first, it must be
/// dropped by its event loop at once, not kept until its deadline as a cancelled `Task.sleep` is.
@Suite("The timer of a request", .timeLimit(.minutes(5)))
struct RequestTimerTests {
    @Test("cancelled, the wait throws CancellationError and the event loop's task is cancelled, not kept for an hour")
    func cancelled() async throws {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let deadline = NIODeadline.now() + .hours(1)
        let timer = loops.next().scheduleTask(deadline: deadline) {}
        let waiting = Task { try await HTTPClientTransport.wait(for: timer) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // The loop's scheduled task itself was cancelled (and so removed from the loop), not left to run in an hour.
        await #expect(throws: EventLoopError.cancelled) { try await timer.futureResult.get() }
        try await loops.shutdownGracefully()
    }

    @Test("at its deadline the wait returns")
    func fires() async throws {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let deadline = NIODeadline.now()
        let timer = loops.next().scheduleTask(deadline: deadline) {}
        try await HTTPClientTransport.wait(for: timer)
        try await timer.futureResult.get()
        try await loops.shutdownGracefully()
    }
}
